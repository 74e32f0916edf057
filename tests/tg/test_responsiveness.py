"""Searches run on a bounded executor, so /start is not queued behind them."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from telegram import Update

from bot.search import Index, SearchResult
from bot.tg.state import SEARCH_THREADS
from testkit.fake_bot_api import FakeBotApi, Updates

WAIT = 15.0  # seconds; a bound for waits on events, never a timing assertion


class BlockingIndex:
    """The real index, except that `search` blocks until released and counts who is in it."""

    def __init__(self, index: Index) -> None:
        self._index = index
        self.release = threading.Event()
        self.entered = threading.Event()
        self._lock = threading.Lock()
        self.inside = 0
        self.most_inside = 0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)

    def __len__(self) -> int:
        return len(self._index)

    def search(self, query: str, **kwargs: Any) -> SearchResult:
        """Block like a slow search over a huge corpus."""
        with self._lock:
            self.inside += 1
            self.calls += 1
            self.most_inside = max(self.most_inside, self.inside)
        self.entered.set()
        try:
            if not self.release.wait(WAIT):
                raise TimeoutError("never released")
            return self._index.search(query, **kwargs)
        finally:
            with self._lock:
                self.inside -= 1


async def test_start_is_answered_while_searches_are_busy(app, fake_api: FakeBotApi, index) -> None:
    blocking = BlockingIndex(index)
    app.bot_data.index = blocking
    updates = Updates()
    question_chats = [3001, 3002, 3003]
    async with app:
        tasks = [
            asyncio.create_task(
                app.process_update(
                    Update.de_json(
                        {"update_id": n, **updates.message("graph neural networks", chat_id=c)},
                        app.bot,
                    )
                )
            )
            for n, c in enumerate(question_chats, start=1)
        ]
        try:
            assert await asyncio.to_thread(blocking.entered.wait, WAIT)
            start = Update.de_json(
                {"update_id": 9, **updates.message("/start", chat_id=3999)}, app.bot
            )
            await app.process_update(start)
            answered = {c.params["chat_id"] for c in fake_api.calls_of("sendMessage")}
            assert answered == {3999}  # /start answered, every question still searching
            assert blocking.inside == SEARCH_THREADS  # the others wait their turn
        finally:
            blocking.release.set()
            await asyncio.gather(*tasks)
    answered = [c.params["chat_id"] for c in fake_api.calls_of("sendMessage")]
    assert sorted(answered) == sorted([*question_chats, 3999])
    assert blocking.calls == len(question_chats)
    assert blocking.most_inside == SEARCH_THREADS
