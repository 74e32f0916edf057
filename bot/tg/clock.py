"""The time background jobs read and how they wait, in one object tests can replace."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime


class Clock:
    """Wall-clock time (aware, UTC) and an interruptible wait: what the reminder job runs on.

    Tests pass a subclass whose `now` they set and whose `wait` returns when they say, so no
    test sleeps for real.
    """

    def now(self) -> datetime:
        """The current time, aware."""
        return datetime.now(UTC)

    async def wait(self, seconds: float, wake: asyncio.Event) -> None:
        """Return after `seconds`, or as soon as `wake` is set."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), timeout=max(seconds, 0.0))
