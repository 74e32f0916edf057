"""Fixtures of the `fetch` tests: the stand-in server, a retry policy that records its waits
instead of sleeping, and no OpenReview login leaking in from the caller's environment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.fetch.http import RetryPolicy
from testkit.programme_server import ProgrammeServer


@pytest.fixture(autouse=True)
def no_openreview_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD", "OPENREVIEW_API_BASEURL_V2"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[ProgrammeServer]:
    with ProgrammeServer() as running:
        yield running


@pytest.fixture
def waits() -> list[float]:
    """The seconds `policy` was asked to sleep, in order."""
    return []


@pytest.fixture
def policy(waits: list[float]) -> RetryPolicy:
    return RetryPolicy(sleep=waits.append)


@pytest.fixture
def said() -> list[str]:
    """The progress lines, for a `say` of `said.append`."""
    return []
