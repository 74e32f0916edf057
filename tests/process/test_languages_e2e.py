"""End to end: the real bot process answers each user in their language.

Telegram's `language_code` picks the language without asking; `/lang` overrides it and the
choice survives a restart (the same DATA_DIR); the menu is registered once per language.
Each answer is compared with the view rendered in-process in the expected language.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot import answers, render
from bot.answers import corpus_facts, results
from bot.commands import COMMANDS
from bot.config import DEFAULT_RESULTS_PER_PAGE
from bot.i18n import COMMAND_MENUS, Lang, Translator, translator
from bot.render import Doc
from bot.search import Index
from testkit.botenv import bot_env
from testkit.fake_bot_api import ApiCall, FakeBotApi, assert_telegram_would_accept, parse_html
from testkit.process import START_TIMEOUT, start_bot
from testkit.updates import Updates

# Tiers (tests/README.md): starts bot processes.
pytestmark = pytest.mark.slow

WEAK_QUESTION = "music generation"  # finds papers, none closely: a weak match
QUESTION = "diffusion models"
PER_PAGE = DEFAULT_RESULTS_PER_PAGE


def start_of(index: Index, t: Translator) -> Doc:
    """/start as the bot answers it over `index` in `t`'s language."""
    return answers.start(index, corpus_facts(index.papers), t=t)


def help_of(index: Index, t: Translator) -> Doc:
    """/help as the bot answers it over `index` in `t`'s language."""
    return answers.help_text(index, corpus_facts(index.papers), t=t)


class Bot:
    """One bot process on a fake Bot API, with a DATA_DIR the caller may reuse."""

    def __init__(self, api: FakeBotApi, process: subprocess.Popen, stderr: Path) -> None:
        self.api, self.process, self.stderr = api, process, stderr
        self.updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])

    def speaking(self, language_code: str) -> Updates:
        """Updates from users whose Telegram is set to `language_code`."""
        return self.updates.speaking(language_code)

    def ask(self, updates: Updates, text: str, chat_id: int) -> ApiCall:
        before = len(self.sent_to(chat_id))
        self.api.push_update(updates.message(text, chat_id=chat_id))
        calls = self.api.wait_for(
            "sendMessage", count=before + 1, predicate=lambda c: c.params["chat_id"] == chat_id
        )
        return calls[before]

    def tap(self, updates: Updates, call: ApiCall, data: str, chat_id: int) -> ApiCall:
        """Tap the button carrying `data` on the message `call` sent; the edit it causes."""
        edits = len(self.edits_in(chat_id))
        message = self.api.message_json(chat_id, call.result["message_id"])
        self.api.push_update(updates.callback(data, message=message, user_id=chat_id))
        found = self.api.wait_for(
            "editMessageText", count=edits + 1, predicate=lambda c: c.params["chat_id"] == chat_id
        )
        return found[edits]

    def sent_to(self, chat_id: int) -> list[ApiCall]:
        return [c for c in self.api.calls_of("sendMessage") if c.params["chat_id"] == chat_id]

    def edits_in(self, chat_id: int) -> list[ApiCall]:
        return [c for c in self.api.calls_of("editMessageText") if c.params["chat_id"] == chat_id]


def run_bot(api: FakeBotApi, data_dir: Path, workdir: Path) -> Bot:
    env = bot_env(
        TELEGRAM_BOT_TOKEN=api.token,
        TELEGRAM_API_BASE_URL=api.base_url,
        DATA_DIR=str(data_dir),
        LOG_LEVEL="DEBUG",
    )
    stderr = workdir / f"stderr-{len(list(workdir.glob('stderr-*')))}.log"
    bot = Bot(api, start_bot(env, workdir, stderr), stderr)
    if not api.first_get_updates.wait(START_TIMEOUT):
        bot.process.kill()
        raise AssertionError(f"bot never polled; stderr:\n{stderr.read_text()[-3000:]}")
    return bot


def stop(bot: Bot) -> None:
    if bot.process.poll() is None:
        bot.process.send_signal(signal.SIGTERM)
        try:
            bot.process.wait(30)
        except subprocess.TimeoutExpired:
            bot.process.kill()
            bot.process.wait(10)


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    workdir = tmp_path_factory.mktemp("languages")
    with FakeBotApi() as api:
        running = run_bot(api, workdir / "data", workdir)
        try:
            yield running
        finally:
            stop(running)


def text_of(call: ApiCall) -> str:
    return call.params["text"]


def expected(doc: render.Doc) -> str:
    [message] = render.to_html(doc)
    return message.text


def keyboard(call: ApiCall) -> list[list[dict[str, Any]]]:
    return call.params.get("reply_markup", {}).get("inline_keyboard", [])


def test_the_menu_is_registered_per_language(bot: Bot) -> None:
    calls = bot.api.wait_for("setMyCommands", count=len(COMMAND_MENUS))
    registered = {call.params.get("language_code", ""): call.params["commands"] for call in calls}
    assert set(registered) == {code for code, _lang in COMMAND_MENUS}
    for code, lang in COMMAND_MENUS:
        t = translator(lang)
        assert [(c["command"], c["description"]) for c in registered[code]] == [
            (c.name, t.gettext(c.description_key, corpus="ICML 2026")) for c in COMMANDS
        ]
    assert "论文" in str(registered["zh"])  # Chinese descriptions for Chinese users


def test_a_zh_hans_user_gets_chinese_without_asking(bot: Bot, index: Index) -> None:
    updates = bot.speaking("zh-hans")
    answer = bot.ask(updates, "/start", chat_id=3101)
    assert text_of(answer) == expected(start_of(index, translator("zh_Hans")))
    assert "可以试试这样问" in parse_html(text_of(answer))


@pytest.mark.parametrize(
    ("lang", "language_code", "chat_id"),
    [
        pytest.param("en", "en", 3201, id="en"),
        pytest.param("zh_Hans", "zh-CN", 3202, id="zh_Hans"),
        pytest.param("zh_Hant", "zh-TW", 3203, id="zh_Hant"),
    ],
)
def test_a_whole_conversation_in_each_language(
    bot: Bot, index: Index, lang: Lang, language_code: str, chat_id: int
) -> None:
    t, updates = translator(lang), bot.speaking(language_code)

    start = bot.ask(updates, "/start", chat_id)
    assert text_of(start) == expected(start_of(index, t))

    result = results(index, QUESTION, limit=PER_PAGE)
    answer = bot.ask(updates, QUESTION, chat_id)
    assert text_of(answer) == expected(render.results_doc(result, per_page=PER_PAGE, t=t))
    assert_telegram_would_accept(answer)
    # Results open by their /paper_<id>; the keyboard is a Save star per result, then paging.
    stars, nav = keyboard(answer)
    assert [b["text"] for b in stars] == [f"☆ {n}" for n in range(1, len(result.hits) + 1)]
    assert nav[-1]["text"] == t.gettext("button.next")

    page = bot.tap(updates, answer, nav[-1]["callback_data"], chat_id)
    second = results(index, QUESTION, limit=PER_PAGE, offset=PER_PAGE)
    assert text_of(page) == expected(render.results_doc(second, per_page=PER_PAGE, t=t))
    assert [b["text"] for b in keyboard(page)[-1]] == [
        t.gettext("button.previous"),
        t.gettext("button.next"),
    ]

    weak = bot.ask(updates, WEAK_QUESTION, chat_id)
    weak_result = results(index, WEAK_QUESTION, limit=PER_PAGE)
    assert not weak_result.confident
    assert text_of(weak) == expected(render.results_doc(weak_result, per_page=PER_PAGE, t=t))
    assert parse_html(text_of(weak)).startswith(t.gettext("results.weak"))

    help_answer = bot.ask(updates, "/help", chat_id)
    assert text_of(help_answer) == expected(help_of(index, t))

    stats = bot.ask(updates, "/stats", chat_id)
    assert t.ngettext("stats.papers_indexed", len(index)) in parse_html(text_of(stats))


def test_lang_switches_and_the_choice_survives_a_restart(tmp_path: Path, index: Index) -> None:
    data_dir, chat_id = tmp_path / "data", 3301
    with FakeBotApi() as api:
        first = run_bot(api, data_dir, tmp_path)
        english = first.speaking("en")
        try:
            prompt = first.ask(english, "/lang", chat_id)
            assert text_of(prompt) == expected(render.lang_doc())
            [buttons] = keyboard(prompt)
            assert [b["text"] for b in buttons] == ["English", "简体中文", "繁體中文"]
            confirmation = first.tap(english, prompt, buttons[2]["callback_data"], chat_id)
            assert text_of(confirmation) == expected(
                render.lang_changed_doc(t=translator("zh_Hant"))
            )
            after = first.ask(english, "/start", chat_id)
            hant = translator("zh_Hant")
            assert text_of(after) == expected(start_of(index, hant))
        finally:
            stop(first)
        assert first.process.returncode == 0

    with FakeBotApi() as api:  # a new process, the same DATA_DIR
        second = run_bot(api, data_dir, tmp_path)
        english = second.speaking("en")
        try:
            again = second.ask(english, "/help", chat_id)
            assert text_of(again) == expected(help_of(index, translator("zh_Hant")))
            stranger = second.ask(english, "/help", chat_id + 1)  # never chose: Telegram's
            assert text_of(stranger) == expected(help_of(index, translator("en")))
        finally:
            stop(second)
