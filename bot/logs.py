"""Logging set-up for the bot process: one stderr handler that never prints a bot token, and
the rewrites of PTB records that would read as a crash (`filter_ptb_records`)."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable

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
    """Rewrites each record's message, traceback and stack so no token survives."""

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


# PTB's CRITICAL when a getUpdates in flight as the bot stopped returned updates: it neither
# queues them nor confirms their offset, so Telegram hands them out again at the next start.
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
    `tracebacks`: keep those of `errors` (LOG_LEVEL=DEBUG)."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(pulled_while_stopping_is_not_a_crash)
        if not tracebacks:
            handler.addFilter(WithoutStartUpTraceback(errors))
