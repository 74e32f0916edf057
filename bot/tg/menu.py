"""The command menu (`set_my_commands`) from the one registry, described per language."""

from __future__ import annotations

from telegram import BotCommand

from bot.commands import COMMANDS
from bot.i18n import Translator, translator

_EN = translator("en")


def menu(t: Translator = _EN) -> list[BotCommand]:
    """The command menu for `set_my_commands`, described in `t`'s language."""
    return [BotCommand(command.name, t.gettext(command.description_key)) for command in COMMANDS]
