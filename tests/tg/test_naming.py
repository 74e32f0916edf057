"""The bot names what it serves: /start and /help over a feed (its conference and year, its
frequent topics as examples) and over the paperlists sample, through the real Application."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application

from bot.config import Settings
from bot.corpus import load_corpus
from bot.search import Index
from bot.tg.app import build_application
from testkit.fake_bot_api import FakeBotApi, Updates, parse_html
from testkit.paths import TEST_DATA
from testkit.programme import feed_event, write_feed

TOPICS = {
    "Deep Learning->Graph Neural Networks": "Graph neural networks for {}",
    "Reinforcement Learning->Offline": "Offline policies for {}",
}


def topical_events() -> list[dict[str, Any]]:
    """Papers whose programme topics their titles say, four on graphs, two offline."""
    graphs, offline = TOPICS
    things = ["molecules", "traffic", "proteins", "citations", "robots", "ads"]
    return [
        feed_event(42000 + n, TOPICS[topic].format(thing), "Poster", topic=topic)
        for n, thing in enumerate(things)
        for topic in ([graphs] if n < 4 else [offline])
    ]


async def ask(app: Application, api: FakeBotApi, updates: Updates, text: str) -> str:
    await app.process_update(Update.de_json({"update_id": 1, **updates.message(text)}, app.bot))
    return parse_html(api.calls_of("sendMessage")[-1].params["text"])


@pytest.fixture
def feed_app(fake_api: FakeBotApi, tmp_path) -> Application:
    papers = load_corpus([write_feed(tmp_path, topical_events(), {}, conference="neurips")]).papers
    settings = Settings(token=fake_api.token, api_base_url=fake_api.base_url)
    return build_application(settings, Index.build(papers))


async def test_start_over_a_feed_names_it_and_asks_its_topics(feed_app, fake_api) -> None:
    async with feed_app:
        start = await ask(feed_app, fake_api, Updates(), "/start")
        zh = await ask(feed_app, fake_api, Updates().speaking("zh-TW"), "/help")
    assert start.startswith("Hi! I search 6 NeurIPS 2026 papers by their titles and abstracts.")
    assert start.endswith(
        "Try for example:\n• /search Graph Neural Networks\n• /search Offline"
    )  # the corpus's own topics, most papers first
    assert zh.startswith("我可以搜尋 6 篇 NeurIPS 2026 論文。")
    assert "/random — 隨機看一篇論文（NeurIPS 2026）" in zh


async def test_start_over_old_lists_names_their_years(fake_api) -> None:
    papers = load_corpus([TEST_DATA / "paperlists_sample"]).papers
    settings = Settings(token=fake_api.token, api_base_url=fake_api.base_url)
    app = build_application(settings, Index.build(papers))
    async with app:
        start = await ask(app, fake_api, Updates(), "/start")
    assert start.startswith(f"Hi! I search {len(papers)} papers from ICML 2013–2019 by their")
    assert "ICML 2026" not in start


async def test_a_list_that_names_nothing_takes_the_setting(fake_api, tmp_path) -> None:
    corpus = tmp_path / "mine.jsonl"
    corpus.write_text('{"title": "Graph mixup", "abstract": "Graph mixup for molecules."}\n')
    papers = load_corpus([corpus]).papers
    for given, said in (("", "Hi! I search 1 paper by its"), ("Lab picks", "1 Lab picks paper")):
        settings = Settings(token=fake_api.token, api_base_url=fake_api.base_url, corpus_name=given)
        app = build_application(settings, Index.build(papers))
        async with app:
            assert said in await ask(app, fake_api, Updates(), "/start")
