"""The one command registry: Telegram handlers, menu, /help and console all follow it."""

from __future__ import annotations

import pytest
from telegram.ext import CommandHandler

from bot import render
from bot.cli.session import ANSWERS, ConsoleSession
from bot.commands import COMMAND_NAMES, COMMANDS, CONSOLE_COMMANDS, command
from bot.corpus.profile import CorpusName, VenueYears
from bot.i18n import LANGUAGES, translator
from bot.tg.app import COMMAND_HANDLERS
from bot.tg.menu import menu


def test_every_command_has_a_telegram_handler(app) -> None:
    assert set(COMMAND_HANDLERS) == COMMAND_NAMES
    assert [h.commands for h in app.handlers[0] if isinstance(h, CommandHandler)] == [
        frozenset({c.name}) for c in COMMANDS
    ]


def test_the_menu_is_the_registry_in_order() -> None:
    en = translator("en")
    assert [(b.command, b.description) for b in menu()] == [
        (c.name, en.gettext(c.description_key, corpus="this list")) for c in COMMANDS
    ]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_menu_is_described_in_each_language(lang) -> None:
    t = translator(lang)
    name = CorpusName((VenueYears("ICML", 2026, 2026),))
    described = menu(t, name)
    assert [b.description for b in described] == [
        t.gettext(c.description_key, corpus="ICML 2026") for c in COMMANDS
    ]
    assert "ICML 2026" in described[[c.name for c in COMMANDS].index("random")].description


def test_every_command_has_a_console_answer() -> None:
    console_only = {c.name for c in CONSOLE_COMMANDS} - {"quit"}  # quit ends the loop
    assert set(ANSWERS) == COMMAND_NAMES | console_only


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("name", sorted(c.name for c in COMMANDS if c.takes_argument))
def test_commands_with_an_argument_have_usage_and_example(name: str, lang) -> None:
    wanted, t = command(name), translator(lang)
    usage, example = t.gettext(wanted.usage_key), t.gettext(wanted.example_key)
    assert usage.startswith(f"/{name} ") and example.startswith(f"/{name} ")
    [message] = render.to_html(render.usage_doc(name, t=t))
    assert usage.replace("<", "&lt;").replace(">", "&gt;") in message.text


def test_usage_of_a_command_without_argument_is_refused() -> None:
    with pytest.raises(ValueError, match="takes no argument"):
        render.usage_doc("start")


def test_unknown_command_name_raises() -> None:
    with pytest.raises(KeyError):
        command("frobnicate")


@pytest.mark.parametrize("name", sorted(COMMAND_NAMES))
def test_console_answers_every_command(index, name: str) -> None:
    session = ConsoleSession(index)
    line = f"/{name}" + (" 1" if command(name).takes_argument else "")
    doc = session.answer(line)
    assert doc != render.unknown_command_doc()


def test_a_command_is_for_us_when_it_names_no_bot_or_ours_in_any_case() -> None:
    from bot.commands import addressed_to

    assert addressed_to(None, "icml_papers_bot")
    assert addressed_to("ICML_Papers_Bot", "icml_papers_bot")
    assert not addressed_to("other_bot", "icml_papers_bot")
    assert not addressed_to("icml_papers_bot", None)  # before getMe: no name to match
