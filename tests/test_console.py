"""Console mode: the same answers as plain text, from stdin to stdout, no token."""

from __future__ import annotations

import io

from bot.console import ConsoleSession, run_console
from bot.render import to_console


def test_console_conversation(monkeypatch) -> None:
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    stdin = io.StringIO("graph neural networks\n/paper_3rmh7qdh\n/help\n/quit\n/stats\n")
    stdout = io.StringIO()
    assert run_console(None, stdin=stdin, stdout=stdout) == 0
    out = stdout.getvalue()
    assert "> graph neural networks" in out and "Results for graph neural networks" in out
    assert "ArbNN: Arboreal Neural Networks" in out
    assert "/similar — " in out
    assert "Index\npapers:" not in out  # /quit stopped reading
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
