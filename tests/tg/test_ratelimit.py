"""Abuse limits: the per-user rate limit, the inline cache, the input cap."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application

from bot.config import Settings
from bot.i18n import translator
from bot.search import Index
from bot.search.query.pipeline import MAX_QUERY_CHARS, PreparedQuery
from bot.tg import state as ratelimit
from bot.tg.app import build_application
from bot.tg.state import RateLimiter, Verdict
from testkit.fake_bot_api import FakeBotApi, Updates

EN = translator("en")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_limiter_allows_the_limit_then_warns_once_then_drops() -> None:
    clock = Clock()
    limiter = RateLimiter(3, clock=clock)
    verdicts = [limiter.check(7) for _ in range(6)]
    assert verdicts == [Verdict.ALLOW] * 3 + [Verdict.WARN] + [Verdict.DROP] * 2
    assert limiter.check(8) is Verdict.ALLOW  # other users are not affected


def test_limiter_window_slides() -> None:
    clock = Clock()
    limiter = RateLimiter(2, clock=clock)
    assert limiter.check(1) is Verdict.ALLOW
    clock.now += 30
    assert limiter.check(1) is Verdict.ALLOW
    assert limiter.check(1) is Verdict.WARN
    clock.now += 30.5  # the first question left the window, the second did not
    assert limiter.check(1) is Verdict.ALLOW
    assert limiter.check(1) is Verdict.WARN  # a new window of refusals: told again, once
    assert limiter.check(1) is Verdict.DROP


def test_limiter_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratelimit, "MAX_TRACKED_USERS", 100)
    limiter = RateLimiter(5, clock=Clock())
    for user in range(10_000):
        limiter.check(user)
    assert len(limiter._users) == 100


@pytest.mark.parametrize(
    ("one", "other"),
    [("Graph  Neural\tNetworks", "graph neural networks"), ("DIFFUSION ", " diffusion")],
)
def test_normalised_queries_share_a_key(one: str, other: str) -> None:
    assert ratelimit.normalise_query(one) == ratelimit.normalise_query(other)


# ------------------------------------------------------------------ through the Application


def limited_app(fake_api: FakeBotApi, index: Index, per_minute: int) -> Application:
    return build_application(
        Settings(
            token=fake_api.token, api_base_url=fake_api.base_url, questions_per_minute=per_minute
        ),
        index,
    )


async def feed(app: Application, *payloads: dict[str, Any]) -> None:
    for number, payload in enumerate(payloads, start=1):
        await app.process_update(Update.de_json({"update_id": number, **payload}, app.bot))


async def test_a_flooding_user_is_told_to_slow_down_once(fake_api, index) -> None:
    app = limited_app(fake_api, index, per_minute=3)
    updates = Updates()
    async with app:
        await feed(app, *[updates.message(f"diffusion {n}", chat_id=11) for n in range(8)])
        await feed(app, updates.message("diffusion", chat_id=12))
    to_flooder = [
        c.params["text"] for c in fake_api.calls_of("sendMessage") if c.params["chat_id"] == 11
    ]
    assert len(to_flooder) == 4
    assert all(text.startswith("Results for") for text in to_flooder[:3])
    assert to_flooder[3] == EN.gettext("error.rate_limited")
    assert any(c.params["chat_id"] == 12 for c in fake_api.calls_of("sendMessage"))


async def test_commands_that_do_not_search_are_not_limited(fake_api, index) -> None:
    app = limited_app(fake_api, index, per_minute=1)
    updates = Updates()
    async with app:
        await feed(
            app, updates.message("diffusion", chat_id=13), updates.message("/help", chat_id=13)
        )
        await feed(app, updates.message("/paper 3rmh7qdh", chat_id=13))
    assert EN.gettext("error.rate_limited") not in [
        c.params["text"] for c in fake_api.calls_of("sendMessage")
    ]


class CountingIndex:
    """The real index, counting searches."""

    def __init__(self, index: Index) -> None:
        self._index = index
        self.searches = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)

    def __len__(self) -> int:
        return len(self._index)

    def search(self, *args: Any, **kwargs: Any):
        self.searches += 1
        return self._index.search(*args, **kwargs)


async def test_inline_answers_are_cached_per_normalised_query(app, fake_api, index) -> None:
    counting = CountingIndex(index)
    app.bot_data.index = counting
    updates = Updates()
    async with app:
        await feed(
            app,
            updates.inline("Graph Neural Networks"),
            updates.inline("graph  neural networks "),
            updates.inline("diffusion"),
        )
        assert counting.searches == 2
        replacement = CountingIndex(index)  # what a reload does: a new index object
        app.bot_data.index = replacement
        await feed(app, updates.inline("graph neural networks"))
    assert replacement.searches == 1  # the cache belonged to the old index
    first, second, _, fourth = fake_api.calls_of("answerInlineQuery")
    assert first.params["results"] == second.params["results"] == fourth.params["results"]
    assert all(int(c.params["cache_time"]) > 0 for c in (first, second))


async def test_long_messages_are_cut_before_analysis(app, fake_api, index, monkeypatch) -> None:
    prepared: list[PreparedQuery] = []
    prepare = index.queries.prepare

    def recording_prepare(query: object) -> PreparedQuery:
        prepared.append(prepare(query))
        return prepared[-1]

    monkeypatch.setattr(index.queries, "prepare", recording_prepare)
    text = "diffusion " * 5000
    async with app:
        await feed(app, Updates().message(text))
    [question] = prepared  # searched once, through the one pipeline
    assert question.typed == text  # the front end passes it whole ...
    assert len(question.text) <= MAX_QUERY_CHARS  # ... and the pipeline makes the one cut
