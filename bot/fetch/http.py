"""The rules every `fetch` source shares: bounded retries of 429 and 5xx, the refusals (an HTML
page where JSON was asked for, 403 and other errors, a cut transfer) and the limits: bytes per
download, a deadline for the whole fetch and an idle limit per read."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import TypeVar

import orjson

USER_AGENT = "icml-papers-bot/0.1 (paper-search Telegram bot; python -m bot fetch)"
Say = Callable[[str], None]  # where progress lines go (stderr in the CLI)

MAX_BYTES = 512_000_000  # decoded bytes one download holds (a real feed is about 10 MB)
TIMEOUT = 900.0  # seconds for the whole fetch, retries and their waits included
IDLE = 15.0  # seconds one read may wait for data (it was 60)
MAX_EVENTS = 100_000  # a larger feed `count` is no conference's (ICML 2026: 6,796 events)

T = TypeVar("T")
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)


class FetchError(Exception):
    """A refusal, saying what was got (status, content type, size, how many of how many)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Missing(FetchError):
    """404: nothing there (an abstracts sidecar may be absent for older years)."""


class Retryable(Exception):
    """429 or 5xx: worth asking again, after `retry_after` seconds when the server says."""

    def __init__(self, got: str, retry_after: float | None, status: int) -> None:
        super().__init__(got)
        self.got, self.retry_after, self.status = got, retry_after, status


@dataclass(frozen=True, slots=True)
class Answer:
    """One HTTP answer, whichever client got it."""

    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes  # the whole body, or its start when it went to a file
    length: int | None = None  # the whole body's size when `body` is its start

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    def described(self) -> str:
        """E.g. `403 Forbidden, text/html, 1,234 bytes`."""
        try:
            phrase = HTTPStatus(self.status).phrase
        except ValueError:
            phrase = "status"
        kind = self.content_type or "no content type"
        size = len(self.body) if self.length is None else self.length
        return f"{self.status} {phrase}, {kind}, {size:,} bytes"


def _looks_like_html(answer: Answer) -> bool:
    if "html" in answer.content_type.lower():
        return True
    return answer.body.lstrip()[:1] == b"<"


def _html_title(body: bytes) -> str:
    match = _TITLE.search(body[:20_000])
    if match is None:
        return ""
    title = " ".join(match[1].decode("utf-8", "replace").split())[:80]
    return f' ("{title}")' if title else ""


def check(answer: Answer) -> None:
    """Raise unless `answer` is a success carrying data: Retryable for 429 and 5xx, Missing
    for 404, FetchError for an HTML page, 403 or any other error."""
    status, got = answer.status, answer.described()
    if status == HTTPStatus.TOO_MANY_REQUESTS or 500 <= status <= 599:
        raise Retryable(got, retry_after_seconds(answer.headers), status)
    html = _looks_like_html(answer)
    page = f"an HTML page{_html_title(answer.body)}" if html else ""
    if status == HTTPStatus.NOT_FOUND:
        raise Missing(f"not found ({got})", status=status)
    if status == HTTPStatus.FORBIDDEN:
        what = f": {page}: a challenge or a login wall" if html else ""
        raise FetchError(f"the server refused the download ({got}){what}", status=status)
    if not 200 <= status <= 299:
        raise FetchError(f"the server answered {got}", status=status)
    if html:
        raise FetchError(
            f"got {page} where JSON was expected ({got}): a challenge or login page; "
            "open the URL in a browser, or try again later",
            status=status,
        )


def parse_json(answer: Answer, body: bytes | None = None) -> object:
    """The JSON in `answer` (or in `body`, when it went to a file); FetchError if cut short."""
    try:
        return orjson.loads(answer.body if body is None else body)
    except orjson.JSONDecodeError as exc:
        raise FetchError(
            f"the answer is not complete JSON ({answer.described()}; {exc}): a cut transfer?",
            status=answer.status,
        ) from exc


def transfer_failed(exc: Exception) -> FetchError:
    """A dropped connection, a body shorter than its Content-Length, a timeout."""
    return FetchError(f"the transfer failed or was cut ({type(exc).__name__}: {exc})")


def retry_after_seconds(
    headers: Mapping[str, str], now: Callable[[], datetime] = lambda: datetime.now(UTC)
) -> float | None:
    """Retry-After in seconds: a number, or an HTTP date (measured from the answer's own Date
    header when it has one: no clock skew)."""
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
        date = headers.get("date")
        reference = parsedate_to_datetime(date) if date else now()
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None or reference.tzinfo is None:
        return None
    return max(0.0, (when - reference).total_seconds())


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """At most `attempts` tries and `total_wait` seconds of waiting on 429 and 5xx; each wait
    is the server's Retry-After, else `first_wait` doubling up to `longest_wait`."""

    attempts: int = 5
    first_wait: float = 2.0
    longest_wait: float = 60.0
    total_wait: float = 300.0
    sleep: Callable[[float], None] = time.sleep

    def backoff(self, retry: int) -> float:
        """The wait before retry number `retry` (1, 2, …) when the server names none."""
        return min(self.longest_wait, self.first_wait * 2 ** (retry - 1))

    def run(self, attempt: Callable[[], T], say: Say, deadline: Deadline | None = None) -> T:
        """`attempt()`, again after each Retryable while the bounds allow; FetchError after."""
        waited = 0.0
        for number in range(1, self.attempts + 1):
            try:
                return attempt()
            except Retryable as exc:
                if number == self.attempts:
                    raise FetchError(
                        f"{exc.got}, {self.attempts} times: gave up", status=exc.status
                    ) from exc
                wait = exc.retry_after if exc.retry_after is not None else self.backoff(number)
                if waited + wait > self.total_wait:
                    raise FetchError(
                        f"{exc.got}; waiting {wait:,.0f} s more would pass the "
                        f"{self.total_wait:,.0f} s this command waits in all: try again later",
                        status=exc.status,
                    ) from exc
                if deadline is not None and wait > deadline.left():
                    raise deadline.refusal(exc.got, waiting=wait) from exc
                say(f"{exc.got}; retrying in {wait:,.0f} s ({number + 1} of {self.attempts})")
                self.sleep(wait)
                waited += wait
        raise AssertionError("unreachable: attempts is at least 1")


@dataclass(frozen=True, slots=True)
class Limits:
    """What one fetch may take: `max_bytes` decoded bytes a download holds, `timeout` seconds
    in all, `idle` seconds a read waits for data; `clock` for tests."""

    max_bytes: int = MAX_BYTES
    timeout: float = TIMEOUT
    idle: float = IDLE
    clock: Callable[[], float] = time.monotonic


class Deadline:
    """The end of the whole fetch, `seconds` after it was made."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self._clock = seconds, clock
        self._started = clock()

    def elapsed(self) -> float:
        return self._clock() - self._started

    def left(self) -> float:
        """Seconds left, 0 once past."""
        return max(0.0, self.seconds - self.elapsed())

    def bound(self, timeout: float | None) -> float:
        """`timeout` cut to what is left, a millisecond at least (so a late wait ends at once)."""
        left = max(self.left(), 0.001)
        return left if timeout is None else min(timeout, left)

    def refusal(self, what: str, *, waiting: float | None = None) -> FetchError:
        """The FetchError of a fetch past its deadline (or that `waiting` would take past)."""
        limit = f"the {self.seconds:g} s deadline of the whole fetch"
        head = (
            f"past {limit}" if waiting is None else f"waiting {waiting:,.0f} s would pass {limit}"
        )
        return FetchError(f"{head} (--timeout; {self.elapsed():,.1f} s so far): {what}")

    def check(self, what: str) -> None:
        """Raise `refusal(what)` once past."""
        if self.left() <= 0:
            raise self.refusal(what)
