"""The bot's shared state (`BotState`) and what it holds: an LRU, a clock, a rate limit, caches."""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Generic, TypeVar

from telegram.ext import CallbackContext, ContextTypes, ExtBot

from bot.answers import CorpusFacts, corpus_facts
from bot.config import Settings
from bot.corpus import Paper
from bot.i18n import Lang
from bot.planner import Programme
from bot.render import paper_ref
from bot.search import Embedding, Retriever, SearchResult
from bot.store import Store

logger = logging.getLogger(__name__)

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

SEARCH_THREADS = 1  # searches hold the GIL (snippets are Python), see search_executor
MAX_PAGE_STATES = 2048  # long queries remembered for Next/Previous (LRU)
MAX_REFUSED_CHATS = 10_000  # chats remembered as already refused (LRU)
MAX_LANGUAGE_USERS = 10_000  # users whose language is remembered in memory (LRU)
WINDOW_SECONDS = 60.0  # the limit is "N questions in any 60 seconds"
MAX_TRACKED_USERS = 10_000  # bounds the limiter's memory
INLINE_CACHE_SIZE = 1024  # distinct inline queries remembered


class LruCache(Generic[K, V]):
    """A least-recently-used mapping of at most `size` items."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

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
        self._items.clear()


class Clock:
    """Wall-clock time (UTC) and an interruptible wait; tests pass one that never sleeps."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def wait(self, seconds: float, wake: asyncio.Event) -> None:
        """Return after `seconds`, or as soon as `wake` is set."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), timeout=max(seconds, 0.0))


class Verdict(enum.Enum):
    """What to do with a question: allow it, refuse it saying so, or refuse it silently."""

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


@dataclass(eq=False)
class BotState:
    """Everything handlers share; the `*_task` fields keep background tasks referenced."""

    index: Retriever | None = None  # BM25 or the hybrid; a reload replaces it in one assignment
    store: Store | None = None  # opened in post_init, closed at shutdown
    skipped: int = 0  # for /stats: records the load behind `index` skipped
    sources: int | None = None  # for /stats: files that load read
    settings: Settings = field(default_factory=Settings)
    # Queries too long for callback data, by the short key their buttons carry.
    page_states: LruCache[str, str] = field(default_factory=lambda: LruCache(MAX_PAGE_STATES))
    paper_refs: tuple[Retriever, dict[str, str]] | None = None  # `#hash` refs -> long ids
    # Each user's /lang choice as stored (None: never chose), so a message costs no query.
    languages: LruCache[int, Lang | None] = field(
        default_factory=lambda: LruCache(MAX_LANGUAGE_USERS)
    )
    # Each user's /timezone choice as stored ("": none), so a card costs no query.
    zones: LruCache[int, str] = field(default_factory=lambda: LruCache(MAX_LANGUAGE_USERS))
    loaded_at: datetime | None = None
    refused_chats: LruCache[int, None] = field(default_factory=lambda: LruCache(MAX_REFUSED_CHATS))
    store_down: bool = False  # an outage is logged once, and its end once
    reload_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    rate_limiter: RateLimiter | None = None
    inline_cache: InlineCache | None = None
    search_executor: ThreadPoolExecutor | None = None
    alerts_task: asyncio.Task[int] | None = None
    set_commands_task: asyncio.Task[None] | None = None
    """Keeps the set-my-commands task referenced until it is done."""
    semantic_task: asyncio.Task[None] | None = None
    """Keeps the task that starts semantic search referenced until it is done."""
    embedding_job: Embedding | None = None
    """The background embedding of the served papers (SEMANTIC on), until it is replaced."""
    clock: Clock = field(default_factory=Clock)
    """The time the reminder job and /now read (tests pass their own)."""
    reminders_task: asyncio.Task[None] | None = None
    reminders_wake: asyncio.Event = field(default_factory=asyncio.Event)  # look again now
    facts_build: tuple[Sequence[Paper], asyncio.Future[CorpusFacts]] | None = None
    facts_task: asyncio.Task[None] | None = None

    @property
    def per_page(self) -> int:
        return self.settings.results_per_page

    def served_index(self) -> Retriever:
        """The index; raises RuntimeError before `build_application` set one."""
        if self.index is None:
            raise RuntimeError("no index loaded")
        return self.index

    def limiter(self) -> RateLimiter:
        """The per-user question limiter (QUESTIONS_PER_MINUTE)."""
        if self.rate_limiter is None:
            self.rate_limiter = RateLimiter(self.settings.questions_per_minute)
        return self.rate_limiter

    def inline_results(self, index: Retriever) -> InlineCache:
        """The inline answers cached for `index` (a reload's new index starts it afresh)."""
        if self.inline_cache is None:
            self.inline_cache = InlineCache()
        cache = self.inline_cache
        if cache.index is not index:  # a reload swapped the index: old answers are stale
            cache.results.clear()
            cache.index = index
        return cache

    def paper_behind(self, ref: str) -> Paper | None:
        """The paper a button `ref` names in the served index: an id, or `#hash` of a long id."""
        index = self.served_index()
        if not ref.startswith("#"):
            return index.get(ref)
        if self.paper_refs is None or self.paper_refs[0] is not index:
            # From the ids alone: making every Paper of a cached index would hold the loop.
            refs = {paper_ref(paper_id): paper_id for paper_id in index.paper_ids() if paper_id}
            self.paper_refs = (index, refs)
        paper_id = self.paper_refs[1].get(ref)
        return index.get(paper_id) if paper_id is not None else None

    async def corpus_facts(self) -> CorpusFacts:
        """The corpus's facts, built once per index in a worker thread; retried after a failure."""
        papers = self.served_index().papers
        build = self.facts_build
        if build is None or build[0] is not papers:
            given = self.settings.corpus_name
            work = asyncio.to_thread(corpus_facts, papers, given_name=given)
            build = (papers, asyncio.ensure_future(work))
            self.facts_build = build
        try:
            return await asyncio.shield(build[1])  # one caller's cancellation stops no other
        except Exception:
            if self.facts_build is build:
                self.facts_build = None
            raise

    async def programme(self) -> Programme:
        """The served corpus's conference programme (falsy when it has none)."""
        return (await self.corpus_facts()).programme

    def built_facts(self) -> CorpusFacts | None:
        """The served index's facts if they are built (no waiting), else None."""
        build = self.facts_build
        if build is None or build[0] is not self.served_index().papers or not build[1].done():
            return None
        return None if build[1].cancelled() or build[1].exception() else build[1].result()

    def prepare_corpus_facts(self) -> None:
        """Start building the facts now, so the first answer needing them does not wait."""
        self.facts_task = asyncio.create_task(self._build_facts(), name="corpus-facts")

    async def _build_facts(self) -> None:
        try:
            await self.corpus_facts()
        except Exception:  # logged here; an answer that needs them tries again
            logger.exception("Could not work out the corpus's programme and name")

    def executor(self) -> ThreadPoolExecutor:
        """The one search thread: searches hold the GIL, so more threads only slow the loop."""
        if self.search_executor is None:
            self.search_executor = ThreadPoolExecutor(
                max_workers=SEARCH_THREADS, thread_name_prefix="search"
            )
        return self.search_executor


Context = CallbackContext[ExtBot[None], dict, dict, BotState]  # what every handler gets
CONTEXT_TYPES = ContextTypes(bot_data=BotState)  # so PTB makes a BotState for `bot_data`
