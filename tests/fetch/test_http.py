"""The rules every source shares: Retry-After, backoff and its bounds, what is refused."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.fetch.http import (
    Answer,
    FetchError,
    Missing,
    Retryable,
    RetryPolicy,
    check,
    parse_json,
    retry_after_seconds,
)

NOW = datetime(2026, 7, 15, 10, 0, 0, tzinfo=UTC)


def answer(status: int = 200, body: bytes = b"{}", **headers: str) -> Answer:
    return Answer(
        "https://icml.cc/x.json", status, {k.replace("_", "-"): v for k, v in headers.items()}, body
    )


@pytest.mark.parametrize(
    ("value", "date", "seconds"),
    [
        ("7", None, 7.0),
        ("0", None, 0.0),
        ("Wed, 15 Jul 2026 10:00:30 GMT", None, 30.0),  # from now
        ("Wed, 15 Jul 2026 10:01:00 GMT", "Wed, 15 Jul 2026 10:00:00 GMT", 60.0),  # from Date
        ("Wed, 15 Jul 2026 09:00:00 GMT", None, 0.0),  # already past
        ("-5", None, None),
        ("soon", None, None),
        ("", None, None),
    ],
)
def test_retry_after_is_seconds_or_an_http_date(
    value: str, date: str | None, seconds: float | None
) -> None:
    headers = {"retry-after": value} | ({"date": date} if date else {})
    assert retry_after_seconds(headers, now=lambda: NOW) == seconds


def test_backoff_doubles_up_to_its_longest_wait() -> None:
    policy = RetryPolicy(first_wait=1.0, longest_wait=5.0)
    assert [policy.backoff(n) for n in range(1, 6)] == [1.0, 2.0, 4.0, 5.0, 5.0]


def test_the_policy_stops_at_its_total_wait() -> None:
    waits: list[float] = []
    policy = RetryPolicy(attempts=10, first_wait=10.0, longest_wait=10.0, total_wait=25.0,
                         sleep=waits.append)  # fmt: skip
    calls: list[int] = []

    def busy() -> None:
        calls.append(1)
        raise Retryable("503 Service Unavailable", None, 503)

    with pytest.raises(FetchError, match="25 s this command waits in all") as refused:
        policy.run(busy, print)
    assert waits == [10.0, 10.0] and len(calls) == 3
    assert refused.value.status == 503


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_429_and_5xx_are_retryable(status: int) -> None:
    with pytest.raises(Retryable) as retry:
        check(answer(status, retry_after="4"))
    assert retry.value.retry_after == 4.0


def test_html_is_refused_whatever_its_content_type_says() -> None:
    with pytest.raises(FetchError, match="HTML page"):
        check(answer(200, b"  <!DOCTYPE html><html>", content_type="application/json"))
    with pytest.raises(FetchError, match=r'HTML page \("Log in"\)'):
        check(answer(200, b"<html><title>Log in</title>", content_type="text/html"))


def test_404_is_missing_403_and_others_are_refused() -> None:
    with pytest.raises(Missing):
        check(answer(404, b"<html>Not Found</html>", content_type="text/html"))
    with pytest.raises(FetchError, match="403 Forbidden, application/json, 2 bytes") as forbidden:
        check(answer(403, content_type="application/json"))
    assert forbidden.value.status == 403 and not isinstance(forbidden.value, Missing)
    with pytest.raises(FetchError, match="410 Gone"):
        check(answer(410))
    check(answer(200, content_type="application/json"))  # fine


def test_json_cut_short_is_refused() -> None:
    assert parse_json(answer(body=b'{"count": 1}')) == {"count": 1}
    with pytest.raises(FetchError, match="not complete JSON"):
        parse_json(answer(body=b'{"count": 1, "results": [{"id"'))
