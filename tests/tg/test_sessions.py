"""/session through the real Application and the fake Bot API: pages turned by buttons that
carry the session's position (checked against the served programme), a stale button after a
reload, the several and unknown answers, a corpus without a programme, Chinese."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application

from bot.config import Settings
from bot.corpus import load_corpus
from bot.i18n import translator
from bot.search import Index
from bot.tg.app import build_application
from testkit.fake_bot_api import FakeBotApi, Updates, parse_html
from testkit.hall import hall_events
from testkit.programme import write_feed
from testkit.week import load_week

EN = translator("en")


@pytest.fixture(scope="module")
def hall_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    feed = write_feed(tmp_path_factory.mktemp("hall"), hall_events(), {})
    return Index.build(load_corpus([feed]).papers)


@pytest.fixture(scope="module")
def week_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    return Index.build(list(load_week(tmp_path_factory.mktemp("week")).values()))


def application(api: FakeBotApi, index: Index) -> Application:
    return build_application(Settings(token=api.token, api_base_url=api.base_url), index)


async def feed(app: Application, *payloads: dict[str, Any]) -> None:
    for number, payload in enumerate(payloads, start=1):
        await app.process_update(Update.de_json({"update_id": number, **payload}, app.bot))


def sent(api: FakeBotApi) -> dict[str, Any]:
    result = api.calls_of("sendMessage")[-1].result
    return api.message_json(result["chat"]["id"], result["message_id"])


def shown(api: FakeBotApi, message: dict[str, Any]) -> dict[str, Any]:
    return api.message_json(message["chat"]["id"], message["message_id"])


def buttons(message: dict[str, Any]) -> dict[str, str]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return {button["text"]: button["callback_data"] for row in rows for button in row}


def boards(message: dict[str, Any]) -> list[str]:
    """The boards a page lists (a message as Telegram keeps it: plain text)."""
    return [line.split(" · ")[0] for line in message["text"].splitlines() if line.startswith("#")]


def last_html(api: FakeBotApi) -> str:
    return api.calls_of("sendMessage")[-1].params["text"]


async def test_a_session_pages_in_poster_position_order(fake_api, hall_index) -> None:
    app, updates = application(fake_api, hall_index), Updates()
    async with app:
        await feed(app, updates.message("/session 1"))
        first = sent(fake_api)
        nav = buttons(first)
        assert list(nav) == ["Next ▶"] and len(nav["Next ▶"].encode()) <= 64
        await feed(app, updates.callback(nav["Next ▶"], message=first))
        second = shown(fake_api, first)
        await feed(app, updates.callback(buttons(second)["Next ▶"], message=second))
        third = shown(fake_api, first)
        await feed(app, updates.callback(buttons(third)["◀ Previous"], message=third))
        back = shown(fake_api, first)
    text = first["text"]
    assert text.startswith(
        "Poster Session 1\nTue 14 Jul 11:00–13:30 Seoul time · East Exhibition Hall A-B"
    )
    assert "23 papers" in text and "Page 1 of 3" in text
    assert boards(first) == [f"#E-{n}" for n in range(1, 11)]
    assert "#E-1 · Poster paper number 1 · /paper_" in text  # position, title, the command
    assert boards(second) == [f"#E-{n}" for n in range(11, 21)]
    assert boards(third) == ["#E-21", "#E-22", "#E-23"] and list(buttons(third)) == ["◀ Previous"]
    assert boards(back) == boards(second)
    assert len(fake_api.calls_of("sendMessage")) == 1  # pages are edits of the one message
    assert len(fake_api.calls_of("answerCallbackQuery")) == 3


async def test_a_button_from_before_a_reload_is_told_it_expired(
    fake_api, hall_index, week_index
) -> None:
    app, updates = application(fake_api, hall_index), Updates()
    async with app:
        await feed(app, updates.message("/session 1"))
        first = sent(fake_api)
        data = buttons(first)["Next ▶"]  # "n:10:1:<check>": Poster Session 1 is second
        offset, check = data.split(":")[1], data.split(":")[3]
        app.bot_data.index = week_index  # a reload: another programme
        moved = f"n:{offset}:2:{check}"  # there: Poster Session 2
        await feed(app, updates.callback(moved, message=first))
        await feed(app, updates.callback(f"n:0:999:{check}", message=first))
        await feed(app, updates.callback(data, message=first))  # the same session there
    answers = [call.params.get("text") for call in fake_api.calls_of("answerCallbackQuery")]
    assert answers == [EN.gettext("error.expired_button")] * 2 + [None]
    [edit] = fake_api.calls_of("editMessageText")  # the week's Poster Session 1, 3 papers
    assert parse_html(edit.params["text"]).startswith("Poster Session 1\nTue 14 Jul 11:00")
    assert "3 papers" in parse_html(edit.params["text"])


async def test_a_name_a_prefix_several_and_none(fake_api, week_index) -> None:
    app, updates = application(fake_api, week_index), Updates()
    async with app:
        await feed(app, updates.message("/session Oral 2B"))
        oral = sent(fake_api)["text"]
        await feed(app, updates.message("/session 4"))
        choice = sent(fake_api)
        east = buttons(choice)["Poster Session 4 East · Wed"]
        await feed(app, updates.callback(east, message=choice))
        opened = shown(fake_api, choice)["text"]
        await feed(app, updates.message("/session <b>nope</b>"))
        unknown = last_html(fake_api)
        await feed(app, updates.message("/session"))
        usage = sent(fake_api)["text"]
    assert oral.startswith(
        "Oral 2B Large Language Models\nWed 15 Jul 11:30–11:45 Seoul time · West Ballroom C"
    )
    assert "11:30 · Speculative decoding for long contexts · /paper_" in oral  # a talk's time
    assert choice["text"].startswith("2 sessions match 4 — pick one:")
    assert list(buttons(choice)) == ["Poster Session 4 East · Wed", "Poster Session 4 West · Wed"]
    assert opened.startswith("Poster Session 4 East") and "#E-500 · Adaptive low-rank" in opened
    assert "&lt;b&gt;nope&lt;/b&gt;" in unknown  # escaped
    assert "<code>/session Oral 1A Theory</code>" in unknown  # examples of existing names
    assert "<code>/session Poster Session 1</code>" in unknown
    assert "/session <number or name>" in usage


async def test_a_corpus_without_a_programme_says_so(app, fake_api) -> None:
    async with app:
        await feed(app, Updates().message("/session 3"))
    assert parse_html(last_html(fake_api)) == EN.gettext("session.no_programme")


@pytest.mark.parametrize(
    ("code", "header", "count"),
    [("zh-hans", "7月14日 周二 11:00–13:30 首尔时间", "23 篇论文"),
     ("zh-tw", "7月14日 週二 11:00–13:30 首爾時間", "23 篇論文")],
)  # fmt: skip
async def test_a_session_in_chinese(fake_api, hall_index, code, header, count) -> None:
    app, updates = application(fake_api, hall_index), Updates().speaking(code)
    async with app:
        await feed(app, updates.message("/session 1"))
    message = sent(fake_api)
    text = message["text"]
    assert header in text and count in text
    assert list(buttons(message)) == [translator("zh_Hans" if code == "zh-hans" else "zh_Hant")
                                      .gettext("button.next")]  # fmt: skip
