"""The command menu (`set_my_commands`) from the one registry, described per language, with
the served corpus's name where a description names it (/random)."""

from __future__ import annotations

import logging

from telegram import Bot, BotCommand

from bot.commands import COMMANDS
from bot.corpus import CorpusName
from bot.i18n import COMMAND_MENUS, Translator, translator
from bot.render import command_description
from bot.tg.state import BotState

logger = logging.getLogger(__name__)
_EN = translator("en")


def menu(t: Translator = _EN, name: CorpusName | None = None) -> list[BotCommand]:
    """The command menu for `set_my_commands`, described in `t`'s language."""
    return [BotCommand(c.name, command_description(c, t=t, name=name)) for c in COMMANDS]


async def register_menus(bot: Bot, name: CorpusName) -> None:
    """Register the menu once per language; a failure is logged, the bot keeps serving."""
    for language_code, lang in COMMAND_MENUS:
        try:
            await bot.set_my_commands(
                menu(translator(lang), name), language_code=language_code or None
            )
        except Exception:
            logger.exception("Could not register the command menu (setMyCommands, %s)", lang)


async def register_when_named(bot: Bot, state: BotState, before: CorpusName | None = None) -> None:
    """Register the menus once the served corpus's name is known (after a reload, only if it
    changed from `before`)."""
    try:
        name = (await state.corpus_facts()).name
    except Exception:  # logged where the facts are built; the menu names no corpus
        name = CorpusName()
    if before is None or name != before:
        await register_menus(bot, name)
