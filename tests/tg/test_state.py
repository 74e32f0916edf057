"""BotState: the one typed shared state in bot_data, and the one LRU."""

from __future__ import annotations

from bot.config import Settings
from bot.tg.lru import LruCache
from bot.tg.state import MAX_PAGE_STATES, BotState


def test_lru_cache_forgets_the_least_recently_used() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and len(cache) == 2


def test_lru_cache_membership_does_not_refresh() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert "a" in cache
    cache.put("c", 3)
    assert "a" not in cache and "b" in cache


def test_application_bot_data_is_the_typed_state(app, index) -> None:
    state = app.bot_data
    assert isinstance(state, BotState)
    assert state.index is index
    assert state.settings.token == app.bot.token
    assert state.per_page == Settings().results_per_page


def test_page_states_are_bounded() -> None:
    state = BotState()
    for number in range(MAX_PAGE_STATES + 10):
        state.page_states.put(str(number), "query")
    assert len(state.page_states) == MAX_PAGE_STATES
    assert state.page_states.get("0") is None


def test_the_search_executor_is_made_once() -> None:
    state = BotState()
    try:
        assert state.executor() is state.executor()
    finally:
        state.executor().shutdown()
