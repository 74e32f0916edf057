"""BotState: the one typed shared state in bot_data, and the one LRU."""

from __future__ import annotations

import asyncio
import threading

import pytest

from bot.answers import corpus_facts
from bot.config import Settings
from bot.search import Index
from bot.tg import state as state_module
from bot.tg.state import MAX_PAGE_STATES, BotState, LruCache
from testkit.week import load_week


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


class _Wrapper:
    """Stands for the hybrid: another retriever over the same papers."""

    def __init__(self, index: Index) -> None:
        self.papers = index.papers


async def test_the_programme_is_built_once_per_index_off_the_loop_and_the_search_thread(
    monkeypatch, tmp_path
) -> None:
    threads: list[str] = []

    def recording(papers, **given):
        threads.append(threading.current_thread().name)
        return corpus_facts(papers, **given)

    monkeypatch.setattr(state_module, "corpus_facts", recording)
    week = list(load_week(tmp_path).values())
    state = BotState(index=Index.build(week))
    try:
        first, again = await asyncio.gather(state.programme(), state.programme())
        assert first is again and [s.name for s in first.find("1")] == ["Poster Session 1"]
        state.index = _Wrapper(state.index)  # type: ignore[assignment]  # the hybrid swap
        assert await state.programme() is first
        state.index = Index.build(week[:3])  # a reload
        assert await state.programme() is not first
        assert len(threads) == 2  # once per index
        assert threading.current_thread().name not in threads
        assert not any(name.startswith("search") for name in threads)  # never behind searches
    finally:
        state.executor().shutdown()


async def test_a_failed_build_is_tried_again(monkeypatch, tmp_path) -> None:
    calls: list[int] = []

    def failing_once(papers, **given):
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("boom")
        return corpus_facts(papers, **given)

    monkeypatch.setattr(state_module, "corpus_facts", failing_once)
    state = BotState(index=Index.build(list(load_week(tmp_path).values())))
    try:
        with pytest.raises(ValueError):
            await state.programme()
        assert await state.programme()
        assert len(calls) == 2
    finally:
        state.executor().shutdown()
