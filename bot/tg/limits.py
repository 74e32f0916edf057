"""Abuse limits: a per-user question rate limit and a cache of inline answers.

The state lives in the BotState and is bounded: the limiter remembers at most
`MAX_TRACKED_USERS` users (least recently seen forgotten first), each with at most
`limit` timestamps; the inline cache keeps `INLINE_CACHE_SIZE` answers.
"""

from __future__ import annotations

import enum
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import Update

from bot.i18n import Translator, translator
from bot.search import Retriever, SearchResult
from bot.tg.state import Context, LruCache

WINDOW_SECONDS = 60.0  # the limit is "N questions in any 60 seconds"
MAX_TRACKED_USERS = 10_000  # ours: bounds the limiter's memory
INLINE_CACHE_SIZE = 1024  # ours: distinct inline queries remembered
SLOW_DOWN = translator("en").gettext("error.rate_limited")


class Verdict(enum.Enum):
    """What to do with one question."""

    ALLOW = "allow"
    WARN = "warn"
    """Refuse, and say so: the first refusal in this window."""
    DROP = "drop"
    """Refuse silently: the user was already told to slow down."""


@dataclass(slots=True)
class _UserLog:
    asked: deque[float]
    warned_until: float = field(default=float("-inf"))


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
        self._users: LruCache[int, _UserLog] = LruCache(max_users)

    def __len__(self) -> int:
        return len(self._users)

    def check(self, user_id: int) -> Verdict:
        """Record a question from `user_id` if the window has room; say what to do."""
        now = self.clock()
        log = self._users.get(user_id)
        if log is None:
            log = _UserLog(deque(maxlen=self.limit))
            self._users.put(user_id, log)
        asked = log.asked
        while asked and asked[0] <= now - self.window:
            asked.popleft()
        if len(asked) < self.limit:
            asked.append(now)
            log.warned_until = float("-inf")
            return Verdict.ALLOW
        if now < log.warned_until:
            return Verdict.DROP
        # Quiet until the oldest question leaves the window, i.e. the user may ask again.
        log.warned_until = asked[0] + self.window
        return Verdict.WARN


class InlineCache:
    """Search results per normalised inline query, valid for one index."""

    def __init__(self, size: int = INLINE_CACHE_SIZE) -> None:
        self.results: LruCache[tuple[str, int], SearchResult] = LruCache(size)
        self.index: Retriever | None = None
        self.hits = 0
        self.misses = 0


def normalise_query(text: str) -> str:
    """The cache key of a query: case-folded, whitespace collapsed."""
    return " ".join(text.casefold().split())


def rate_limiter(context: Context) -> RateLimiter:
    """The application's limiter, created on first use from the configured limit."""
    state = context.bot_data
    if state.rate_limiter is None:
        state.rate_limiter = RateLimiter(state.settings.questions_per_minute)
    return state.rate_limiter


async def allow_question(update: Update, context: Context, t: Translator) -> bool:
    """True if the sender may ask now; otherwise tell them once to slow down."""
    user = update.effective_user
    if user is None:
        return True  # anonymous group admins, channels: nobody to limit
    verdict = rate_limiter(context).check(user.id)
    if verdict is Verdict.WARN and update.effective_message is not None:
        await update.effective_message.reply_text(t.gettext("error.rate_limited"), do_quote=False)
    return verdict is Verdict.ALLOW


async def cached_search(
    context: Context,
    index: Retriever,
    question: str,
    *,
    limit: int,
    run: Callable[..., Awaitable[SearchResult]],
) -> SearchResult:
    """`index.search(question, limit=limit)`, answered from the inline cache when possible.

    `run(function, *args, **kwargs)` runs the search off the event loop (the bot's search
    executor), so inline queries share the questions' bound on search threads.
    """
    state = context.bot_data
    if state.inline_cache is None:
        state.inline_cache = InlineCache()
    cache = state.inline_cache
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
