"""End to end: the real `python -m bot` process polling our fake Bot API over HTTP."""

from __future__ import annotations

import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot import render
from bot.commands import COMMANDS
from bot.i18n import translator
from testkit.botenv import bot_env
from testkit.fake_bot_api import (
    DEFAULT_TOKEN,
    ApiCall,
    FakeBotApi,
    Updates,
    assert_telegram_would_accept,
    parse_html,
)
from testkit.process import START_TIMEOUT, start_bot

# Tiers (tests/README.md): starts bot processes.
pytestmark = pytest.mark.slow

EN = translator("en")

PARAPHRASE = "neural network that compiles into a decision tree with if-else rules"
PARAPHRASE_PAPER = "3rmh7qdh"  # ArbNN in the seed corpus
TOKEN_SECRET = DEFAULT_TOKEN.split(":", 1)[1]


class RunningBot:
    """The bot process, its fake Bot API and captured stderr."""

    def __init__(self, api: FakeBotApi, process: subprocess.Popen, stderr_path: Path) -> None:
        self.api = api
        self.process = process
        self.stderr_path = stderr_path
        self.updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])

    def ask(self, payload: dict[str, Any], chat_id: int) -> ApiCall:
        before = len(self.sent_to(chat_id))
        self.api.push_update(payload)
        calls = self.api.wait_for(
            "sendMessage", count=before + 1, predicate=lambda c: c.params["chat_id"] == chat_id
        )
        return calls[before]

    def sent_to(self, chat_id: int) -> list[ApiCall]:
        return [c for c in self.api.calls_of("sendMessage") if c.params["chat_id"] == chat_id]

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


@pytest.fixture(scope="module")
def running_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningBot]:
    workdir = tmp_path_factory.mktemp("bot")
    with FakeBotApi() as api:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_API_BASE_URL=api.base_url,
            LOG_LEVEL="DEBUG",
        )
        process = start_bot(env, workdir, workdir / "stderr.log")
        bot = RunningBot(api, process, workdir / "stderr.log")
        try:
            if not api.first_get_updates.wait(START_TIMEOUT):
                raise AssertionError(f"bot never polled; stderr:\n{bot.stderr()[-3000:]}")
            yield bot
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)


def test_commands_are_registered_at_start(running_bot: RunningBot) -> None:
    call = running_bot.api.wait_for("setMyCommands", count=2)[0]  # also a "zh" menu
    assert [(c["command"], c["description"]) for c in call.params["commands"]] == [
        (c.name, translator("en").gettext(c.description_key, corpus="ICML 2026")) for c in COMMANDS
    ]


def test_question_gets_the_right_paper_in_html_telegram_accepts(running_bot: RunningBot) -> None:
    call = running_bot.ask(running_bot.updates.message(PARAPHRASE, chat_id=2001), 2001)
    assert_telegram_would_accept(call)
    first_result = parse_html(call.params["text"]).split("\n\n")[1]
    assert first_result.startswith("1. ArbNN")
    assert f"/paper_{PARAPHRASE_PAPER}" in first_result


def test_next_page_edits_the_answer_in_place(running_bot: RunningBot) -> None:
    api, updates = running_bot.api, running_bot.updates
    sent = running_bot.ask(updates.message("neural networks", chat_id=2002), 2002).result
    message = api.message_json(2002, sent["message_id"])
    nav = message["reply_markup"]["inline_keyboard"][-1]
    assert nav[-1]["text"].startswith("Next")
    api.push_update(updates.callback(nav[-1]["callback_data"], message=message, user_id=2002))
    [edit] = api.wait_for("editMessageText", predicate=lambda c: c.params["chat_id"] == 2002)
    assert edit.params["message_id"] == sent["message_id"]
    assert parse_html(edit.params["text"]).split("\n\n")[1].startswith("6. ")
    assert_telegram_would_accept(edit)


def test_stale_button_is_answered_with_a_notice(running_bot: RunningBot) -> None:
    api, updates = running_bot.api, running_bot.updates
    sent = running_bot.ask(updates.message("diffusion models", chat_id=2003), 2003).result
    message = api.message_json(2003, sent["message_id"])
    update = api.push_update(updates.callback("k:5:from-before-a-restart", message=message))
    query_id = update["callback_query"]["id"]
    [answer] = api.wait_for(
        "answerCallbackQuery", predicate=lambda c: c.params["callback_query_id"] == query_id
    )
    assert answer.params["text"] == EN.gettext("error.expired_button")


def test_inline_query_is_answered(running_bot: RunningBot) -> None:
    api = running_bot.api
    update = api.push_update(running_bot.updates.inline(PARAPHRASE))
    query_id = update["inline_query"]["id"]
    [call] = api.wait_for(
        "answerInlineQuery", predicate=lambda c: c.params["inline_query_id"] == query_id
    )
    results = call.params["results"]
    assert 1 <= len(results) <= render.INLINE_RESULTS
    assert results[0]["id"] == PARAPHRASE_PAPER


def test_group_privacy(running_bot: RunningBot) -> None:
    api, updates = running_bot.api, running_bot.updates
    group = -1002004
    for ignored in (
        "did anyone read the diffusion papers?",
        "/search@other_bot diffusion",
        "@somebody_else diffusion models",
    ):
        api.push_update(updates.message(ignored, chat_id=group, chat_type="supergroup"))
    answer = running_bot.ask(
        updates.message(
            f"/search@{api.bot['username']} {PARAPHRASE}", chat_id=group, chat_type="supergroup"
        ),
        group,
    )
    assert f"/paper_{PARAPHRASE_PAPER}" in answer.params["text"]
    # A later private question is answered after every group update was handled.
    running_bot.ask(updates.message("diffusion", chat_id=2004), 2004)
    assert len(running_bot.sent_to(group)) == 1


def test_flood_limit_429_is_retried_and_arrives_once(running_bot: RunningBot) -> None:
    api, updates = running_bot.api, running_bot.updates
    api.fail_next("sendMessage", 1, code=429, retry_after=1)
    call = running_bot.ask(updates.message(PARAPHRASE, chat_id=2005), 2005)
    assert_telegram_would_accept(call)
    failed = [
        c
        for c in api.calls_of("sendMessage", include_failed=True)
        if not c.ok and c.params["chat_id"] == 2005
    ]
    assert len(failed) == 1 and failed[0].error.startswith("Too Many Requests")
    running_bot.ask(updates.message("diffusion", chat_id=2006), 2006)  # a barrier
    assert len(running_bot.sent_to(2005)) == 1


def test_sigint_stops_cleanly_and_logs_never_show_the_token(running_bot: RunningBot) -> None:
    running_bot.process.send_signal(signal.SIGINT)
    assert running_bot.process.wait(timeout=30) == 0
    log = running_bot.stderr()
    assert "Calling Bot API endpoint" in log  # DEBUG logging was really on
    assert "Serving 57 ICML 2026 papers from " in log  # what it serves, named at start
    assert TOKEN_SECRET not in log
    assert DEFAULT_TOKEN not in log


# ------------------------------------------------------------------ start-up failures


def run_to_exit(tmp_path: Path, **env: str) -> tuple[int, str]:
    process = start_bot(bot_env(**env), tmp_path, tmp_path / "stderr.log")
    process.wait(timeout=START_TIMEOUT)
    output = (tmp_path / "stderr.log").read_text() + process.stdout.read().decode()
    return process.returncode, output


def test_no_token_explains_botfather_and_console(tmp_path: Path) -> None:
    code, output = run_to_exit(tmp_path)
    assert code == 2
    assert "@BotFather" in output and ".env" in output and "python -m bot console" in output
    assert "Traceback" not in output


def test_invalid_setting_is_named(tmp_path: Path) -> None:
    code, output = run_to_exit(tmp_path, TELEGRAM_BOT_TOKEN=DEFAULT_TOKEN, RESULTS_PER_PAGE="50")
    assert code == 2
    assert "RESULTS_PER_PAGE" in output and "Traceback" not in output


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
def test_rejected_token_is_reported_without_the_token(tmp_path: Path, level: str) -> None:
    wrong = "999999:WRONG-secret-value-abcdefghijklmnop"
    with FakeBotApi() as api:  # accepts only DEFAULT_TOKEN: answers 401 Unauthorized
        code, output = run_to_exit(
            tmp_path,
            TELEGRAM_BOT_TOKEN=wrong,
            TELEGRAM_API_BASE_URL=api.base_url,
            LOG_LEVEL=level,
        )
    assert code == 2
    assert "Telegram rejected TELEGRAM_BOT_TOKEN" in output
    assert wrong.split(":")[1] not in output  # PTB puts it in InvalidToken's text
    if level == "INFO":
        assert "Traceback" not in output


def closed_loopback_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
def test_no_network_is_one_line_naming_what_to_check(tmp_path: Path, level: str) -> None:
    base_url = f"http://127.0.0.1:{closed_loopback_port()}/bot"
    code, output = run_to_exit(
        tmp_path,
        TELEGRAM_BOT_TOKEN=DEFAULT_TOKEN,
        TELEGRAM_API_BASE_URL=base_url,
        LOG_LEVEL=level,
    )
    assert code == 1
    [line] = [ln for ln in output.splitlines() if "Cannot reach Telegram" in ln]
    assert "network" in line and "proxy" in line and "TELEGRAM_API_BASE_URL" in line
    assert TOKEN_SECRET not in output
    if level == "INFO":
        problems = [ln for ln in output.splitlines() if " INFO " not in ln]
        assert problems == [line]  # one line, no traceback, no PTB retry-loop error
    else:
        assert "Traceback" in output  # DEBUG keeps the details
