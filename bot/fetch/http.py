"""HTTP for `fetch`: a polite client, bounded retries of 429 and 5xx, and the refusals every
source shares: an HTML page where JSON was asked for (a challenge page comes with 200), 403
and other errors, a cut transfer."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import TypeVar

import httpx
import orjson

__all__ = [
    "USER_AGENT",
    "Answer",
    "FetchError",
    "Http",
    "Missing",
    "RetryPolicy",
    "Retryable",
    "Say",
    "check",
    "parse_json",
    "retry_after_seconds",
    "transfer_failed",
]

USER_AGENT = "icml-papers-bot/0.1 (paper-search Telegram bot; python -m bot fetch)"
Say = Callable[[str], None]  # where progress lines go (stderr in the CLI)

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
    body: bytes

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
        return f"{self.status} {phrase}, {kind}, {len(self.body):,} bytes"


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


def parse_json(answer: Answer) -> object:
    """The JSON in `answer`; FetchError when it is not whole (a cut transfer)."""
    try:
        return orjson.loads(answer.body)
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

    def run(self, attempt: Callable[[], T], say: Say) -> T:
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
                say(f"{exc.got}; retrying in {wait:,.0f} s ({number + 1} of {self.attempts})")
                self.sleep(wait)
                waited += wait
        raise AssertionError("unreachable: attempts is at least 1")


class Http:
    """The feed's client: names the bot, follows redirects, retries per `policy`."""

    def __init__(self, policy: RetryPolicy, say: Say, *, timeout: float = 60.0) -> None:
        self.policy, self.say = policy, say
        self._client = httpx.Client(
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
            follow_redirects=True,
            timeout=httpx.Timeout(timeout, connect=15.0),
        )

    def get(self, url: str) -> Answer:
        """The checked answer at `url` (see `check`), after retries."""
        return self.policy.run(lambda: self._get_once(url), self.say)

    def _get_once(self, url: str) -> Answer:
        try:
            response = self._client.get(url)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise transfer_failed(exc) from exc
        answer = Answer(str(response.url), response.status_code, response.headers, response.content)
        check(answer)
        return answer

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Http:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
