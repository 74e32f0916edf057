"""Abuse limits: a per-user question rate limit and a cache of inline answers, both bounded."""

from __future__ import annotations

import enum
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.search import Retriever, SearchResult
from bot.tg.lru import LruCache

WINDOW_SECONDS = 60.0  # the limit is "N questions in any 60 seconds"
MAX_TRACKED_USERS = 10_000  # ours: bounds the limiter's memory
INLINE_CACHE_SIZE = 1024  # ours: distinct inline queries remembered


class Verdict(enum.Enum):
    """What to do with one question: allow it, refuse it saying so (the window's first
    refusal), or refuse it silently (the user was told)."""

    ALLOW = "allow"
    WARN = "warn"
    DROP = "drop"


@dataclass(slots=True)
class _UserLog:
    asked: deque[float]
    warned_until: float = field(default=float("-inf"))


class RateLimiter:
    """Sliding-window log: at most `limit` questions per `WINDOW_SECONDS` per user."""

    def __init__(self, limit: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self.clock = clock
        self._users: LruCache[int, _UserLog] = LruCache(MAX_TRACKED_USERS)

    def check(self, user_id: int) -> Verdict:
        """Record a question from `user_id` if the window has room; say what to do."""
        now = self.clock()
        log = self._users.get(user_id)
        if log is None:
            log = _UserLog(deque(maxlen=self.limit))
            self._users.put(user_id, log)
        asked = log.asked
        while asked and asked[0] <= now - WINDOW_SECONDS:
            asked.popleft()
        if len(asked) < self.limit:
            asked.append(now)
            log.warned_until = float("-inf")
            return Verdict.ALLOW
        if now < log.warned_until:
            return Verdict.DROP
        # Quiet until the oldest question leaves the window, i.e. the user may ask again.
        log.warned_until = asked[0] + WINDOW_SECONDS
        return Verdict.WARN


class InlineCache:
    """Search results per normalised inline query, valid for one index."""

    def __init__(self) -> None:
        self.results: LruCache[tuple[str, int], SearchResult] = LruCache(INLINE_CACHE_SIZE)
        self.index: Retriever | None = None


def normalise_query(text: str) -> str:
    """The cache key of a query: case-folded, whitespace collapsed."""
    return " ".join(text.casefold().split())
