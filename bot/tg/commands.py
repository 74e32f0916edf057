"""The command registry bound to Telegram: one handler per `bot.commands` entry, and the menu."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from telegram import BotCommand, Update
from telegram.ext import CommandHandler

from bot.commands import COMMAND_NAMES, COMMANDS
from bot.i18n import Translator, translator
from bot.tg.handlers import info, library, papers, search
from bot.tg.state import Context

_EN = translator("en")

Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]

HANDLERS: dict[str, Handler] = {
    "start": info.start,
    "help": info.help_command,
    "search": search.search,
    "paper": papers.paper,
    "similar": papers.similar,
    "author": papers.author,
    "random": papers.random_paper,
    "stats": info.stats,
    "saved": library.saved,
    "export": library.export_command,
    "follow": library.follow,
    "following": library.following,
    "forget": library.forget,
    "lang": info.lang,
}
"""Command name -> handler; must cover exactly `bot.commands.COMMANDS`."""

if set(HANDLERS) != COMMAND_NAMES:  # a real check at import, not an assert
    raise RuntimeError(f"Telegram handlers {sorted(HANDLERS)} != commands {sorted(COMMAND_NAMES)}")


def command_handlers() -> list[CommandHandler[Any, None]]:
    """One CommandHandler per command, in menu order (it ignores `/cmd@otherbot`)."""
    return [CommandHandler(command.name, HANDLERS[command.name]) for command in COMMANDS]


def menu(t: Translator = _EN) -> list[BotCommand]:
    """The command menu for `set_my_commands`, described in `t`'s language."""
    return [BotCommand(command.name, t.gettext(command.description_key)) for command in COMMANDS]
