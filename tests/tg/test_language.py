"""Which language each user is answered in (bot/tg/preferences.py), through the real Application.

Telegram's `language_code` decides until the user taps a /lang button; the choice goes to the
store (real SQLite in a temporary DATA_DIR) and into BotState's LRU, and a broken store never
turns into an error: the user's `language_code` decides then.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application

from bot import answers, render
from bot.answers import corpus_facts
from bot.i18n import Translator, translator
from bot.render import Doc
from bot.search import Index
from bot.store import open_store
from bot.store.factory import SQLITE_FILE
from testkit.fake_bot_api import FakeBotApi
from testkit.updates import Updates

USER = 4242


def start_of(index: Index, t: Translator) -> Doc:
    """/start as the bot answers it over `index` in `t`'s language."""
    return answers.start(index, corpus_facts(index.papers), t=t)


def help_of(index: Index, t: Translator) -> Doc:
    """/help as the bot answers it over `index` in `t`'s language."""
    return answers.help_text(index, corpus_facts(index.papers), t=t)


@pytest.fixture
async def stored_app(app: Application, tmp_path: Path) -> AsyncIterator[Application]:
    """The Application with a real SQLite store in `tmp_path` (post_init's job in production)."""
    app.bot_data.store = await open_store(None, tmp_path)
    async with app:
        yield app
    await app.bot_data.store.close()


async def feed(app: Application, *payloads: dict[str, Any]) -> None:
    for payload in payloads:
        await app.process_update(Update.de_json({"update_id": 1, **payload}, app.bot))


def last_text(api: FakeBotApi) -> str:
    return api.calls_of("sendMessage")[-1].params["text"]


def expected(doc: render.Doc) -> str:
    return render.to_html(doc)[0].text


def break_the_store(data_dir: Path) -> None:
    """Make every language query fail inside SQLite, as a damaged database would."""
    with sqlite3.connect(data_dir / SQLITE_FILE) as db:
        db.execute("ALTER TABLE users RENAME TO users_gone")


@pytest.mark.parametrize(
    ("language_code", "lang"),
    [
        pytest.param("zh-hans", "zh_Hans", id="zh-hans"),
        pytest.param("zh-HK", "zh_Hant", id="zh-HK"),
        pytest.param("fr", "en", id="other"),
        pytest.param(None, "en", id="none"),
    ],
)
async def test_telegram_language_decides_without_asking(
    stored_app: Application, fake_api: FakeBotApi, index, language_code, lang
) -> None:
    await feed(stored_app, Updates().speaking(language_code).message("/help", chat_id=USER))
    assert last_text(fake_api) == expected(help_of(index, translator(lang)))


async def test_lang_button_switches_stores_and_confirms_in_the_new_language(
    stored_app: Application, fake_api: FakeBotApi, index
) -> None:
    updates = Updates().speaking("en")
    await feed(stored_app, updates.message("/lang", chat_id=USER))
    prompt = fake_api.calls_of("sendMessage")[-1]
    [buttons] = prompt.params["reply_markup"]["inline_keyboard"]
    assert [b["callback_data"] for b in buttons] == ["l:en", "l:zh_Hans", "l:zh_Hant"]
    message = fake_api.message_json(USER, prompt.result["message_id"])
    await feed(stored_app, updates.callback("l:zh_Hans", message=message, user_id=USER))
    [confirmation] = fake_api.calls_of("editMessageText")
    assert confirmation.params["text"] == "好的，之后我会用简体中文回复你。"
    assert await stored_app.bot_data.store.get_language(USER) == "zh_Hans"
    [chat_menu] = fake_api.calls_of("setMyCommands")  # this chat's menu follows the choice
    assert chat_menu.params["scope"] == {"type": "chat", "chat_id": USER}
    assert chat_menu.params["commands"][0]["description"] == "我知道什么，怎么提问"
    await feed(stored_app, updates.message("/start", chat_id=USER))
    assert last_text(fake_api) == expected(start_of(index, translator("zh_Hans")))


async def test_a_known_choice_costs_no_database_round_trip(
    stored_app: Application, fake_api: FakeBotApi, tmp_path: Path, index
) -> None:
    await stored_app.bot_data.store.set_language(USER, "zh_Hant")
    updates = Updates().speaking("en")
    await feed(stored_app, updates.message("/help", chat_id=USER))  # read once, then cached
    break_the_store(tmp_path)
    await feed(stored_app, updates.message("/help", chat_id=USER))
    assert last_text(fake_api) == expected(help_of(index, translator("zh_Hant")))


async def test_an_unavailable_store_falls_back_to_telegram_language(
    stored_app: Application, fake_api: FakeBotApi, tmp_path: Path, caplog, index
) -> None:
    break_the_store(tmp_path)
    updates = Updates().speaking("zh-TW")
    await feed(stored_app, updates.message("/help", chat_id=USER))
    assert last_text(fake_api) == expected(help_of(index, translator("zh_Hant")))
    assert USER not in stored_app.bot_data.languages  # asked again next time
    assert "store unavailable" in caplog.text
    assert "Error while handling" not in caplog.text


async def test_a_choice_the_store_cannot_keep_still_applies_now(
    stored_app: Application, fake_api: FakeBotApi, tmp_path: Path, index
) -> None:
    updates = Updates().speaking("en")
    await feed(stored_app, updates.message("/lang", chat_id=USER))
    prompt = fake_api.calls_of("sendMessage")[-1]
    message = fake_api.message_json(USER, prompt.result["message_id"])
    break_the_store(tmp_path)
    await feed(stored_app, updates.callback("l:zh_Hant", message=message, user_id=USER))
    [confirmation] = fake_api.calls_of("editMessageText")
    assert "繁體中文" in confirmation.params["text"]
    await feed(stored_app, updates.message("/help", chat_id=USER))
    assert last_text(fake_api) == expected(help_of(index, translator("zh_Hant")))


async def test_errors_and_hints_are_translated(stored_app: Application, fake_api: FakeBotApi):
    updates = Updates().speaking("zh-hans")
    message = {"message_id": 3, "date": 0, "chat": updates.chat(USER)}
    await feed(stored_app, updates.callback("garbage", message=message, user_id=USER))
    [answer] = fake_api.calls_of("answerCallbackQuery")
    assert answer.params["text"] == translator("zh_Hans").gettext("error.expired_button")
    await feed(stored_app, updates.message("🤖🔥", chat_id=USER))
    assert "只发表情或符号" in last_text(fake_api)
    await feed(stored_app, updates.message("/frobnicate", chat_id=USER))
    assert last_text(fake_api) == translator("zh_Hans").gettext("error.unknown_command")
