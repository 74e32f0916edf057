"""Abuse limits: a per-user question rate limit and a cache of inline answers.

The state lives in `bot_data` (PTB's place for shared state) and is bounded: the limiter
remembers at most `MAX_TRACKED_USERS` users (least recently seen forgotten first), each
with at most `limit` timestamps; the inline cache keeps `INLINE_CACHE_SIZE` answers.
"""

from __future__ import annotations

import enum
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from telegram import Update
from telegram.ext import ContextTypes

from bot.search import Index, SearchResult

RATE_LIMITER = "rate_limiter"  # bot_data key
INLINE_CACHE = "inline_cache"  # bot_data key
QUESTIONS_PER_MINUTE = "questions_per_minute"  # bot_data key: the setting

WINDOW_SECONDS = 60.0  # the limit is "N questions in any 60 seconds"
MAX_TRACKED_USERS = 10_000  # ours: bounds the limiter's memory
INLINE_CACHE_SIZE = 1024  # ours: distinct inline queries remembered
SLOW_DOWN = (
    "You are asking faster than I can keep up with — please slow down a little. "
    "I'll answer again in a minute."
)

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Verdict(enum.Enum):
    """What to do with one question."""

    ALLOW = "allow"
    WARN = "warn"
    """Refuse, and say so: the first refusal in this window."""
    DROP = "drop"
    """Refuse silently: the user was already told to slow down."""


class RateLimiter:
    """Sliding-window log: at most `limit` questions per `window` seconds per user."""

    def __init__(
        self,
        limit: int,
        *,
        window: float = WINDOW_SECONDS,
        max_users: int = MAX_TRACKED_USERS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self.window = window
        self.max_users = max_users
        self.clock = clock
        self._asked: OrderedDict[int, deque[float]] = OrderedDict()
        self._warned_until: dict[int, float] = {}

    def __len__(self) -> int:
        return len(self._asked)

    def check(self, user_id: int) -> Verdict:
        """Record a question from `user_id` if the window has room; say what to do."""
        now = self.clock()
        asked = self._asked.get(user_id)
        if asked is None:
            asked = deque(maxlen=self.limit)
            self._asked[user_id] = asked
            while len(self._asked) > self.max_users:
                forgotten, _ = self._asked.popitem(last=False)
                self._warned_until.pop(forgotten, None)
        self._asked.move_to_end(user_id)
        while asked and asked[0] <= now - self.window:
            asked.popleft()
        if len(asked) < self.limit:
            asked.append(now)
            self._warned_until.pop(user_id, None)
            return Verdict.ALLOW
        if now < self._warned_until.get(user_id, float("-inf")):
            return Verdict.DROP
        # Quiet until the oldest question leaves the window, i.e. the user may ask again.
        self._warned_until[user_id] = asked[0] + self.window
        return Verdict.WARN


class LruCache(Generic[K, V]):
    """A small least-recently-used mapping with a fixed size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        """The value for `key` (now most recent), or None."""
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def put(self, key: K, value: V) -> None:
        """Store `value`, forgetting the least recently used entry beyond `size`."""
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def clear(self) -> None:
        """Forget everything."""
        self._items.clear()


class InlineCache:
    """Search results per normalised inline query, valid for one index."""

    def __init__(self, size: int = INLINE_CACHE_SIZE) -> None:
        self.results: LruCache[tuple[str, int], SearchResult] = LruCache(size)
        self.index: Index | None = None
        self.hits = 0
        self.misses = 0


def normalise_query(text: str) -> str:
    """The cache key of a query: case-folded, whitespace collapsed."""
    return " ".join(text.casefold().split())


def rate_limiter(context: ContextTypes.DEFAULT_TYPE) -> RateLimiter:
    """The application's limiter, created on first use from the configured limit."""
    limiter = context.bot_data.get(RATE_LIMITER)
    if limiter is None:
        limit = context.bot_data.get(QUESTIONS_PER_MINUTE, 20)
        limiter = context.bot_data[RATE_LIMITER] = RateLimiter(limit)
    return limiter


async def allow_question(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """True if the sender may ask now; otherwise tell them once to slow down."""
    user = update.effective_user
    if user is None:
        return True  # anonymous group admins, channels: nobody to limit
    verdict = rate_limiter(context).check(user.id)
    if verdict is Verdict.WARN and update.effective_message is not None:
        await update.effective_message.reply_text(SLOW_DOWN, do_quote=False)
    return verdict is Verdict.ALLOW


async def cached_search(
    context: ContextTypes.DEFAULT_TYPE,
    index: Index,
    question: str,
    *,
    limit: int,
    run: Callable[..., Awaitable[SearchResult]],
) -> SearchResult:
    """`index.search(question, limit=limit)`, answered from the inline cache when possible.

    `run(function, *args, **kwargs)` runs the search off the event loop (the bot's search
    executor), so inline queries share the questions' bound on search threads.
    """
    cache: InlineCache = context.bot_data.setdefault(INLINE_CACHE, InlineCache())
    if cache.index is not index:  # a reload swapped the index: old answers are stale
        cache.results.clear()
        cache.index = index
    key = (normalise_query(question), limit)
    result = cache.results.get(key)
    if result is not None:
        cache.hits += 1
        return result
    cache.misses += 1
    result = await run(index.search, key[0], limit=limit)
    cache.results.put(key, result)
    return result
