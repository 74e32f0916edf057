"""A newer fetch of the real programme, in which some posters moved to another session, served
after a restart on each backend: reading lists are kept, /schedule follows the new times, a
reminder already sent is not sent again, and one due at a poster's new time is sent once."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from telegram.ext import Application

from bot.config import Settings
from bot.corpus import Paper, load_corpus
from bot.search import Index
from bot.store import Store, snapshot
from bot.tg.app import build_application
from bot.tg.reminders import remind_round
from testkit.chat import USER, Chat
from testkit.fake_bot_api import FakeBotApi, parse_html
from testkit.pg import Backend
from testkit.real_programme import Versions, feed_versions, real_programme

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(real_programme() is None, reason="the real feed is not here"),
]


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> Versions:
    return feed_versions(tmp_path_factory.mktemp("feeds"))


def index_of(folder: Path) -> Index:
    return Index.build(list(load_corpus([folder]).papers))


def app_on(api: FakeBotApi, index: Index, store: Store) -> Application:
    app = build_application(Settings(token=api.token, api_base_url=api.base_url), index)
    app.bot_data.store = store
    return app


def by_event(index: Index, event: str) -> Paper:
    return next(p for p in index.papers if any(s.event == event for s in p.presentations))


def start_of(paper: Paper) -> datetime:
    (shown,) = [s for s in paper.presentations if s.kind == "poster"]
    assert shown.starts_at is not None
    return shown.starts_at


def reminders(api: FakeBotApi) -> list[str]:
    texts = (parse_html(c.params["text"]) for c in api.calls_of("sendMessage"))
    return [text for text in texts if text.startswith("⏰")]


async def test_a_newer_programme_keeps_lists_and_reminds_at_the_new_time_once(
    versions: Versions, fake_api: FakeBotApi, backend: Backend
) -> None:
    older, newer = index_of(versions.older), index_of(versions.newer)
    moved = by_event(older, versions.moved[0])
    stayed = next(p for p in older.papers if start_of(p) == start_of(moved) and p != moved)
    was, now = start_of(moved), start_of(by_event(newer, versions.moved[0]))
    assert (was.tzname(), now - was) == ("KST", timedelta(hours=4))  # PS3 10:30, PS4 14:30

    store = await backend.open(timeout=2)
    try:
        async with app_on(fake_api, older, store) as app:
            for paper in (moved, stayed):
                await store.save(USER, snapshot(paper))
            await store.set_reminder(USER, 15)
            await remind_round(app, was - timedelta(minutes=10))
        assert len(reminders(fake_api)) == 2  # both in Poster Session 3

        async with app_on(fake_api, newer, store) as app:  # a restart on the newer fetch
            chat = Chat(app, fake_api)
            await chat.send("/saved")
            listed = chat.last_text()
            assert moved.title in listed and stayed.title in listed
            await chat.send("/schedule")
            schedule = chat.last_text()
            assert "14:30–16:15 · Poster Session 4" in schedule
            assert schedule.index(moved.title) > schedule.index("Poster Session 4")
            await remind_round(app, was - timedelta(minutes=5))  # nothing again
            await remind_round(app, now - timedelta(minutes=10))  # the moved poster, anew
            await remind_round(app, now - timedelta(minutes=5))  # and only once
    finally:
        await store.close()
    sent = reminders(fake_api)
    assert len(sent) == 3
    assert sum(moved.title in text for text in sent) == 2
    assert "Wed 8 Jul 14:30–16:15 Seoul time" in sent[-1]
