"""The Application: every button has a handler; at start-up the command menu is sent as a task,
a failure only logged."""

from __future__ import annotations

import logging

import pytest

from bot import render
from bot.commands import COMMANDS
from bot.tg.app import BUTTON_HANDLERS, post_init
from testkit.fake_bot_api import FakeBotApi


def test_every_button_action_has_a_handler() -> None:
    # The commands' twin is tests/test_commands.py::test_every_command_has_a_telegram_handler.
    assert set(BUTTON_HANDLERS) == set(render.CALLBACK_ACTIONS)


async def test_post_init_registers_the_command_menu(app, fake_api: FakeBotApi) -> None:
    async with app:
        await post_init(app)
        await app.bot_data.set_commands_task
    default, chinese = fake_api.calls_of("setMyCommands")
    assert default.ok and chinese.ok
    assert "language_code" not in default.params and chinese.params["language_code"] == "zh"
    for call in (default, chinese):
        assert [c["command"] for c in call.params["commands"]] == [c.name for c in COMMANDS]
    described = {c["command"]: c["description"] for c in default.params["commands"]}
    assert described["random"] == "A random paper from ICML 2026"  # the seeds, by their header
    assert "ICML 2026" in str(chinese.params["commands"])


async def test_a_refused_command_menu_is_logged_and_the_bot_goes_on(
    app, fake_api: FakeBotApi, caplog: pytest.LogCaptureFixture
) -> None:
    fake_api.fail_next("setMyCommands", code=400, description="Bad Request: commands refused")
    with caplog.at_level(logging.ERROR, logger="bot.tg.menu"):
        async with app:
            await post_init(app)
            await app.bot_data.set_commands_task  # does not raise
            me = await app.bot.get_me()
    assert "Could not register the command menu" in caplog.text
    assert me.username == fake_api.bot["username"]
