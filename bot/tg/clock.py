"""The time background jobs read and how they wait, in one object tests can replace."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime


class Clock:
    """Wall-clock time (aware, UTC) and an interruptible wait; tests pass a subclass, so none
    sleeps for real."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def wait(self, seconds: float, wake: asyncio.Event) -> None:
        """Return after `seconds`, or as soon as `wake` is set."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), timeout=max(seconds, 0.0))
