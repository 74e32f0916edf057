"""What the process tells its operator on stderr: logging that never prints a bot token (with
rewrites of PTB records that would read as a crash), and the progress of long work."""

from __future__ import annotations

import logging
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TextIO

# `bot<id>:<secret>` as it appears in Bot API URLs, and a bare token anywhere else.
_TOKEN_IN_URL = re.compile(r"bot\d+:[A-Za-z0-9_-]+")
_BARE_TOKEN = re.compile(r"\b\d{5,}:[A-Za-z0-9_-]{20,}")
REDACTED = "<redacted>"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
QUIET_LOGGERS = ("httpx", "httpcore")  # they log every request URL, a Bot API URL the token


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with bot tokens (and each of `secrets`) replaced by a marker."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = _TOKEN_IN_URL.sub("bot" + REDACTED, text)
    return _BARE_TOKEN.sub(REDACTED, text)


class RedactingFilter(logging.Filter):
    """Redacts each record's message, traceback and stack."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = tuple(s for s in secrets if s)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken %-format must not hide the record
            message = str(record.msg)
        record.msg = redact(message, self.secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secrets)
        return True


class RedactingFormatter(logging.Formatter):
    """A second line of defence: redacts the fully formatted line too."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__(LOG_FORMAT)
        self.secrets = tuple(s for s in secrets if s)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record), self.secrets)


def configure_logging(level: str = "INFO", *, secrets: Iterable[str] = ()) -> None:
    """Root logger to stderr at `level`, tokens redacted, httpx/httpcore at WARNING."""
    secrets = tuple(secrets)
    root = logging.getLogger()
    root.setLevel(level)
    if not root.handlers:
        root.addHandler(logging.StreamHandler(sys.stderr))
    for handler in root.handlers:
        handler.setFormatter(RedactingFormatter(secrets=secrets))
        handler.addFilter(RedactingFilter(secrets))
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


_START_UP_RETRY_LOOP = "Network Retry Loop (Bootstrap"  # PTB's log of a failed start-up call


class WithoutStartUpTraceback(logging.Filter):
    """PTB logs a rejected token or no network with a traceback; `run` says it in one line."""

    def __init__(self, errors: tuple[type[BaseException], ...]) -> None:
        super().__init__()
        self.errors = errors  # what `run` explains itself (InvalidToken, NetworkError)

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop PTB's retry-loop line; strip the traceback of an explained error."""
        if record.getMessage().startswith(_START_UP_RETRY_LOOP):
            return False  # "…Failed run number 0 of 0. Aborting.": run() explains what failed
        if record.exc_info and isinstance(record.exc_info[1], self.errors):
            record.exc_info = None
            record.exc_text = None
        return True


# PTB logs this CRITICAL when a getUpdates in flight as the bot stopped returned updates: they
# are neither handled nor confirmed, so Telegram hands them out again at the next start.
PULLED_WHILE_STOPPING = "Updater stopped unexpectedly"
KEPT_FOR_NEXT_START = (
    "Updates that arrived while stopping were not confirmed: "
    "Telegram delivers them again at the next start"
)


def pulled_while_stopping_is_not_a_crash(record: logging.LogRecord) -> bool:
    """Rewrite PTB's shutdown-race CRITICAL as what it is (see PULLED_WHILE_STOPPING)."""
    if record.name != "telegram.ext.Updater" or record.levelno != logging.CRITICAL:
        return True
    if not record.getMessage().startswith(PULLED_WHILE_STOPPING):
        return True  # any other CRITICAL of the Updater stays one
    record.msg, record.args = KEPT_FOR_NEXT_START, None
    record.levelno, record.levelname = logging.INFO, logging.getLevelName(logging.INFO)
    # Passed the logger's level check as CRITICAL: apply it again for INFO.
    return logging.getLogger(record.name).isEnabledFor(logging.INFO)


def filter_ptb_records(errors: tuple[type[BaseException], ...], *, tracebacks: bool) -> None:
    """Add the PTB record rewrites above to every root handler (after `configure_logging`);
    with `tracebacks` (LOG_LEVEL=DEBUG) the tracebacks of `errors` are kept."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(pulled_while_stopping_is_not_a_crash)
        if not tracebacks:
            handler.addFilter(WithoutStartUpTraceback(errors))


# Progress of long work (indexing, embedding), under a logger name of its own.
logger = logging.getLogger("bot.progress")

Progress = Callable[[int, int], None]  # progress(done, total)
PIPE_INTERVAL = 30.0  # seconds between progress lines in a pipe or the log (also every 10%)


def progress_line(line: str, log: logging.Logger | None = None) -> None:
    """Write a progress line to the log when it would show there, else to stderr."""
    log = log or logger
    if logging.getLogger().handlers and log.isEnabledFor(logging.INFO):
        log.info("%s", line)
    else:
        print(line, file=sys.stderr, flush=True)


def duration_text(seconds: float) -> str:
    """A rough duration for progress lines: "40 s", "12 min", "3.5 h"."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def progress_reporter(
    total: int, *, stream: TextIO | None = None, label: str = "indexing papers"
) -> Progress:
    """A progress callback: a live line with the time left on a terminal, else a line every
    10% or `PIPE_INTERVAL` seconds. The rate counts from the first call, so work found in the
    cache does not make the rest look fast."""
    out = stream if stream is not None else sys.stderr
    live = out.isatty()
    clock = EtaClock()
    shown = [0.0, -1.0, time.perf_counter(), 0]  # last live draw, decile logged, line; width

    def report(done: int, total_: int = total) -> None:
        clock(done, total_)
        total_ = max(total_, 1)
        now = time.perf_counter()
        percent = 100 * done // total_
        left = clock.seconds_left()
        eta = f", about {duration_text(left)} left" if left and done < total_ else ""
        line = f"{label}: {done:,}/{total_:,} ({percent}%) {clock.elapsed():.1f} s{eta}"
        if live:
            if now - shown[0] < 0.1 and done < total_:
                return
            shown[0] = now
            end = "\n" if done >= total_ else ""
            erase = "\x1b[K" if len(line) < shown[3] else ""  # what a longer line left behind
            shown[3] = len(line)
            out.write(f"\r{line}{erase}{end}")
            out.flush()
        elif percent // 10 > shown[1] or now - shown[2] >= PIPE_INTERVAL or done >= total_:
            if done >= total_ and shown[1] >= 10:
                return  # the last line was already shown
            shown[1], shown[2] = max(shown[1], percent // 10), now
            progress_line(line, logger)  # a pipe too: the log if it shows, else stderr

    return report


class EtaClock:
    """A thread-safe `Progress` that measures what was left at the first report, the rate
    since, and the time still to go (at `prior_rate` until this run measured its own); every
    report is passed on to `inner`. `in_flight` papers are under way at once: the rate counts
    only once that many are done, as the first to finish says nothing of the others."""

    def __init__(
        self,
        inner: Progress | None = None,
        *,
        prior_rate: float | None = None,
        in_flight: int = 1,
    ) -> None:
        self._inner = inner
        self.prior_rate = prior_rate
        self._in_flight = max(1, in_flight)
        self.checked = threading.Event()  # set at the first report: what is left is known
        self.measured = threading.Event()  # set once this run's rate is known
        self._lock = threading.Lock()
        self._first: tuple[int, float] | None = None  # (done, time) at the first report
        self._last: tuple[int, int, float] = (0, 0, 0.0)  # done, total, time

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        with self._lock:
            if self._first is None:
                self._first = (done, now)
            self._last = (done, total, now)
        self.checked.set()
        if self._timed(self._first[0], done, total):
            self.measured.set()
        if self._inner is not None:
            self._inner(done, total)

    @property
    def missing(self) -> int | None:
        """Papers left at the first report (None before it)."""
        with self._lock:
            return None if self._first is None else self._last[1] - self._first[0]

    @property
    def left(self) -> int | None:
        """Papers still left now (None before the first report)."""
        with self._lock:
            return None if self._first is None else self._last[1] - self._last[0]

    def _timed(self, first: int, done: int, total: int) -> bool:
        """Whether `in_flight` papers, or all, are done since the first report."""
        return done > first and (done - first >= self._in_flight or done >= total)

    def measured_rate(self) -> tuple[float, int] | None:
        """This run's papers a second and how many papers were timed; None until `_timed`."""
        with self._lock:
            if self._first is None or not self._timed(self._first[0], *self._last[:2]):
                return None
            papers = self._last[0] - self._first[0]
            seconds = max(self._last[2] - self._first[1], 1e-6)
        return papers / seconds, papers

    def rate(self) -> float | None:
        """Papers a second: this run's, else `prior_rate`."""
        measured = self.measured_rate()
        return measured[0] if measured is not None else self.prior_rate

    def elapsed(self) -> float:
        with self._lock:
            return 0.0 if self._first is None else time.perf_counter() - self._first[1]

    def seconds_left(self) -> float | None:
        """About how long the rest will take; None while unknown."""
        left, rate = self.left, self.rate()
        if left is None:
            return None
        if left <= 0:
            return 0.0
        return left / rate if rate else None
