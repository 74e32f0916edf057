"""Console mode: the same answers as plain text, from stdin to stdout, no token."""

from __future__ import annotations

import io

import pytest

from bot.console import ConsoleSession, console_language, run_console
from bot.i18n import translator
from bot.render import to_console


def test_console_conversation(monkeypatch) -> None:
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    stdin = io.StringIO("graph neural networks\n/paper_3rmh7qdh\n/help\n/quit\n/stats\n")
    stdout = io.StringIO()
    assert run_console(None, stdin=stdin, stdout=stdout) == 0
    out = stdout.getvalue()
    assert "> graph neural networks" in out and "Results for graph neural networks" in out
    assert "ArbNN: Arboreal Neural Networks" in out
    assert "/similar — " in out
    assert "Papers I search" not in out  # /quit stopped reading
    assert "<b>" not in out and "\033[" not in out  # not a TTY: plain text


def test_console_next_and_prev_turn_pages(index) -> None:
    session = ConsoleSession(index, per_page=5)
    first = to_console(session.answer("neural networks"))
    second = to_console(session.answer("/next"))
    back = to_console(session.answer("/prev"))
    assert "\n1. " in first and "\n6. " in second and back == first


def test_console_hints_and_unknown_commands(index) -> None:
    session = ConsoleSession(index)
    assert "Try for example" in to_console(session.answer("🙂"))
    assert "/help" in to_console(session.answer("/frobnicate"))
    assert session.answer("   ") is None


def test_next_before_any_search_says_there_is_nothing_to_page(index) -> None:
    session = ConsoleSession(index)
    for command in ("/next", "/prev"):
        text = to_console(session.answer(command))
        assert text == "There is nothing to page through yet — ask a question first."


def test_console_help_lists_paging_and_quit(index) -> None:
    text = to_console(ConsoleSession(index).answer("/help"))
    for line in ("/next — Next page of results", "/prev — ", "/quit — "):
        assert line in text
    assert "/lang — " not in text and "Inline" not in text  # Telegram-only


def test_banner_names_no_particular_conference(index, tmp_path, monkeypatch) -> None:
    corpus = tmp_path / "mine.jsonl"
    corpus.write_text('{"title": "T", "abstract": "Graph mixup for molecules."}\n')
    stdout = io.StringIO()
    assert run_console([corpus], stdin=io.StringIO(""), stdout=stdout, lang="en") == 0
    assert stdout.getvalue().splitlines()[0] == (
        "1 paper loaded. Ask a question, /help for commands, /quit or Ctrl-D to leave."
    )


@pytest.mark.parametrize("lang", ["zh_Hans", "zh_Hant"])
def test_console_speaks_the_chosen_language(index, lang) -> None:
    t = translator(lang)
    session = ConsoleSession(index, t=t)
    results = to_console(session.answer("diffusion models"))
    assert results.startswith(
        t.gettext(
            "results.header",
            query="diffusion models",
            first=1,
            last=5,
            total=index.search("diffusion models").total,
        )
    )
    assert t.gettext("console.more", commands="/next") in results
    assert t.gettext("command.next") in to_console(session.answer("/help"))


def test_lang_command_switches_the_console(index) -> None:
    session = ConsoleSession(index)
    assert "/lang zh_Hant — 繁體中文" in to_console(session.answer("/lang"))
    assert to_console(session.answer("/lang zh_hans")) == "好的，之后我会用简体中文回复你。"
    assert session.t.lang == "zh_Hans"


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        pytest.param({"LANG": "zh_CN.UTF-8"}, "zh_Hans", id="zh_CN"),
        pytest.param({"LANG": "zh_TW.UTF-8"}, "zh_Hant", id="zh_TW"),
        pytest.param({"LANG": "zh_TW.UTF-8", "LC_ALL": "en_US.UTF-8"}, "en", id="lc-all-wins"),
        pytest.param({"LANG": "C.UTF-8"}, "en", id="C"),
        pytest.param({}, "en", id="unset"),
    ],
)
def test_console_language_follows_the_locale(environ, lang) -> None:
    assert console_language(environ) == lang
