"""The Application's start-up hook (the command menu is sent as a task, a failure only logged)
and how PTB's shutdown-race log reaches the operator."""

from __future__ import annotations

import inspect
import io
import logging

import pytest

from bot.commands import COMMANDS
from bot.logs import (
    KEPT_FOR_NEXT_START,
    PULLED_WHILE_STOPPING,
    pulled_while_stopping_is_not_a_crash,
)
from bot.tg.app import post_init
from testkit.fake_bot_api import FakeBotApi


async def test_post_init_registers_the_command_menu(app, fake_api: FakeBotApi) -> None:
    async with app:
        await post_init(app)
        await app.bot_data.set_commands_task
    default, chinese = fake_api.calls_of("setMyCommands")
    assert default.ok and chinese.ok
    assert "language_code" not in default.params and chinese.params["language_code"] == "zh"
    for call in (default, chinese):
        assert [c["command"] for c in call.params["commands"]] == [c.name for c in COMMANDS]


async def test_a_refused_command_menu_is_logged_and_the_bot_goes_on(
    app, fake_api: FakeBotApi, caplog: pytest.LogCaptureFixture
) -> None:
    fake_api.fail_next("setMyCommands", code=400, description="Bad Request: commands refused")
    with caplog.at_level(logging.ERROR, logger="bot.tg.app"):
        async with app:
            await post_init(app)
            await app.bot_data.set_commands_task  # does not raise
            me = await app.bot.get_me()
    assert "Could not register the command menu" in caplog.text
    assert me.username == fake_api.bot["username"]


# ------------------------------------------------------------------ PTB's shutdown-race log


def updater_log(level: int, *messages: str) -> list[str]:
    """What a stderr handler with our filter prints for PTB's Updater logger."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(pulled_while_stopping_is_not_a_crash)
    updater = logging.getLogger("telegram.ext.Updater")
    old_level = updater.level
    updater.addHandler(handler)
    updater.setLevel(level)
    try:
        for message in messages:
            updater.critical(message)
    finally:
        updater.removeHandler(handler)
        updater.setLevel(old_level)
    return stream.getvalue().splitlines()


PTB_SHUTDOWN_RACE = (
    "Updater stopped unexpectedly. Pulled updates will be ignored and pulled again on restart."
)


def test_updates_pulled_while_stopping_are_logged_as_kept_not_as_a_crash() -> None:
    assert updater_log(logging.INFO, PTB_SHUTDOWN_RACE) == [f"INFO {KEPT_FOR_NEXT_START}"]


def test_the_rewritten_line_obeys_the_log_level() -> None:
    assert updater_log(logging.WARNING, PTB_SHUTDOWN_RACE) == []


def test_other_critical_updater_logs_stay_critical() -> None:
    assert updater_log(logging.WARNING, "Something went wrong") == ["CRITICAL Something went wrong"]


def test_ptb_still_logs_the_shutdown_race_as_our_filter_expects() -> None:
    # A PTB upgrade rewording it would bring the crash-like CRITICAL back: fail here instead.
    from telegram.ext import _updater

    assert f'"{PULLED_WHILE_STOPPING}' in inspect.getsource(_updater)
    assert "_LOGGER.critical(" in inspect.getsource(_updater)
