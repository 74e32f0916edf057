"""A user's own clock through the real Application, the fake Bot API and a real database
(SQLite, and PostgreSQL on a throw-away server): /timezone from a city, a Chinese city, an
IANA name or an offset, kept across a restart, shown with the venue's time beside it on
cards, /schedule, /now and reminders, off again, private to its user, deleted by /forget."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone

import pytest
from telegram.ext import Application

from bot.config import Settings
from bot.corpus import Paper
from bot.i18n import translator
from bot.search import Index
from bot.store import Store, snapshot
from bot.tg.app import build_application
from bot.tg.menu import menu
from bot.tg.reminders import remind_round
from bot.tg.state import Clock
from testkit.chat import Chat
from testkit.fake_bot_api import FakeBotApi, parse_html
from testkit.pg import Backend
from testkit.week import EAST, load_week

ALICE, BOB = 1001, 2002
VENUE = timezone(timedelta(hours=9))
F_IN_SEOUL = f"Poster · Wed 15 Jul 11:00–13:30 Seoul time · {EAST} · #E-301"
F_IN_BERLIN = f"Poster · Wed 15 Jul 04:00–06:30 your time (11:00 Seoul time) · {EAST} · #E-301"


def venue(day: int, clock: str) -> datetime:
    hour, minute = map(int, clock.split(":"))
    return datetime(2026, 7, day, hour, minute, tzinfo=VENUE)


class FixedClock(Clock):
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def now(self) -> datetime:
        return self.moment


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Paper]:
    return load_week(tmp_path_factory.mktemp("week"))


@pytest.fixture(scope="module")
def week_index(week: dict[str, Paper]) -> Index:
    return Index.build(list(week.values()))


def week_app(api: FakeBotApi, index: Index, store: Store) -> Application:
    app = build_application(Settings(token=api.token, api_base_url=api.base_url), index)
    app.bot_data.store, app.bot_data.clock = store, FixedClock(venue(15, "10:50"))
    return app


@pytest.fixture
async def kept(
    fake_api: FakeBotApi, week_index: Index, backend: Backend
) -> AsyncIterator[tuple[Application, Store]]:
    store = await backend.open(timeout=2)
    app = week_app(fake_api, week_index, store)
    async with app:
        yield app, store
    await store.close()


@pytest.fixture
def chat(kept: tuple[Application, Store], fake_api: FakeBotApi) -> Chat:
    return Chat(kept[0], fake_api)


async def card_line(chat: Chat, paper: Paper, **where: object) -> str:
    """The programme line of `paper`'s card as the sender reads it."""
    await chat.send(f"/paper_{paper.id}", **where)  # type: ignore[arg-type]
    return next(line for line in chat.last_text().splitlines() if line.startswith("Poster"))


async def test_a_city_sets_the_clock_cards_read_it_and_off_goes_back(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    store = kept[1]
    assert await card_line(chat, week["F"]) == F_IN_SEOUL
    await chat.send("/timezone berlin")
    assert chat.last_text().startswith(
        "Done — I'll show times in Berlin time (Europe/Berlin), with the venue's beside them. "
        "It is Wed 15 Jul 03:50 there now."
    )
    assert await store.get_timezone(ALICE) == "Europe/Berlin"
    assert await card_line(chat, week["F"]) == F_IN_BERLIN

    await chat.send("/timezone")
    assert chat.last_text().startswith("I show times in Berlin time (Europe/Berlin)")
    assert "/timezone off goes back to the venue's clock" in chat.last_text()

    await chat.send("/timezone off")
    assert chat.last_text() == "Done — I'll show times on the venue's clock alone."
    assert await store.get_timezone(ALICE) is None
    assert await card_line(chat, week["F"]) == F_IN_SEOUL
    await chat.send("/timezone")
    assert chat.last_text().startswith("I show times on the venue's clock.")


@pytest.mark.parametrize(
    ("typed", "stored", "line"),
    [
        ("纽约", "America/New_York", "Tue 14 Jul 22:00–00:30 your time (11:00 Seoul time)"),
        ("Asia/Kolkata", "Asia/Kolkata", "Wed 15 Jul 07:30–10:00 your time (11:00 Seoul time)"),
        ("UTC+2", "+02:00", "Wed 15 Jul 04:00–06:30 your time (11:00 Seoul time)"),
        ("seoul", "Asia/Seoul", "Wed 15 Jul 11:00–13:30 Seoul time"),  # the venue's: once
    ],
)
async def test_a_chinese_city_an_iana_name_or_an_offset_each_set_it(
    chat: Chat, kept, week: dict[str, Paper], typed: str, stored: str, line: str
) -> None:
    await chat.send(f"/timezone {typed}")
    assert chat.last_text().startswith("Done")
    assert await kept[1].get_timezone(ALICE) == stored
    assert line in await card_line(chat, week["F"])


async def test_an_unknown_zone_is_named_back_with_examples_and_changes_nothing(
    chat: Chat, kept
) -> None:
    await chat.send("/timezone Asia/Seoul")
    await chat.send("/timezone Atlantis <b>")
    text = chat.last_text()
    assert text.startswith("I don't know a time zone called Atlantis <b>. Try a big city")
    for example in ("/timezone Berlin", "/timezone 北京", "/timezone America/New_York"):
        assert example in text
    assert await kept[1].get_timezone(ALICE) == "Asia/Seoul"


async def test_the_choice_outlives_a_restart(
    fake_api: FakeBotApi, week_index: Index, backend: Backend, week: dict[str, Paper]
) -> None:
    store = await backend.open(timeout=2)
    try:
        async with week_app(fake_api, week_index, store) as first:
            await Chat(first, fake_api).send("/timezone Europe/Berlin")
        async with week_app(fake_api, week_index, store) as second:  # nothing cached
            assert await card_line(Chat(second, fake_api), week["F"]) == F_IN_BERLIN
    finally:
        await store.close()


async def test_schedule_and_now_read_the_users_clock_beside_the_venues(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    app, store = kept
    for name in "DF":  # Poster Session 3, Wed 15 Jul 11:00-13:30 in Seoul
        await store.save(ALICE, snapshot(week[name]))
    await chat.send("/timezone 柏林")
    await chat.send("/schedule")
    schedule = chat.last_text()
    assert "04:00–06:30 your time (11:00 Seoul time) · Poster Session 3" in schedule
    app.bot_data.clock.moment = venue(15, "11:40")
    await chat.send("/now")
    now = chat.last_text()
    assert now.startswith("Now: Wed 15 Jul 04:40 your time (11:40 Seoul time)")
    assert "Poster Session 3 · Wed 15 Jul 04:00–06:30 your time (11:00 Seoul time)" in now


async def test_a_reminder_reads_in_the_users_zone(
    chat: Chat, kept, week: dict[str, Paper], fake_api: FakeBotApi
) -> None:
    app, store = kept
    for user in (ALICE, BOB):
        await store.save(user, snapshot(week["F"]))
        await store.set_reminder(user, 15)
    await store.set_timezone(ALICE, "Europe/Berlin")  # set by another replica: no cache here
    await remind_round(app, venue(15, "10:50"))
    sent = {
        call.params["chat_id"]: parse_html(call.params["text"])
        for call in fake_api.calls_of("sendMessage")
    }
    assert F_IN_BERLIN in sent[ALICE].splitlines()
    assert F_IN_SEOUL in sent[BOB].splitlines()


async def test_in_a_group_cards_keep_the_venues_clock_and_the_setting_is_private(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    await chat.send("/timezone Europe/Berlin")
    assert await card_line(chat, week["F"], chat_type="group") == F_IN_SEOUL
    await chat.send("/timezone Asia/Tokyo", chat_type="group")
    assert "private" in chat.last_text()
    assert await kept[1].get_timezone(ALICE) == "Europe/Berlin"


async def test_forget_deletes_the_zone_and_its_cached_copy(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    await chat.send("/timezone Europe/Berlin")
    await chat.send("/forget")
    prompt = chat.last()
    assert "time zone" in parse_html(prompt.params["text"])
    await chat.tap("g:yes", prompt)
    assert await kept[1].get_timezone(ALICE) is None
    assert await card_line(chat, week["F"]) == F_IN_SEOUL


async def test_help_and_the_menu_list_timezone(chat: Chat) -> None:
    await chat.send("/help")
    assert "/timezone — Show times on my own clock (a city or time zone)" in chat.last_text()
    for lang, words in (("en", "my own clock"), ("zh_Hans", "时区"), ("zh_Hant", "時區")):
        described = {c.command: c.description for c in menu(translator(lang))}
        assert words in described["timezone"]
