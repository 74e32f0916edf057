"""The command menu from the one registry, per language, naming the served corpus (/random)."""

from __future__ import annotations

import logging

from telegram import Bot, BotCommand, BotCommandScopeChat
from telegram.error import TelegramError

from bot.commands import COMMANDS
from bot.corpus import CorpusName
from bot.i18n import COMMAND_MENUS, Lang, Translator, is_language, translator
from bot.render import command_description
from bot.store import StoreError
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


async def set_chat_menu(bot: Bot, chat_id: int, lang: Lang, name: CorpusName) -> None:
    """This private chat's menu in `lang`; a refusal is logged and the chat keeps its menu."""
    try:
        await bot.set_my_commands(menu(translator(lang), name), scope=BotCommandScopeChat(chat_id))
    except TelegramError as exc:
        logger.warning("Could not set the %s menu of chat %s: %s", lang, chat_id, exc)


async def register_when_named(bot: Bot, state: BotState, before: CorpusName | None = None) -> None:
    """Register the menus with the corpus's name (after a reload, only if it changed)."""
    try:
        name = (await state.corpus_facts()).name
    except Exception:  # logged where the facts are built; the menu names no corpus
        name = CorpusName()
    if before is not None and name == before:
        return
    await register_menus(bot, name)
    if before is not None:  # renamed by a reload
        await _rename_chat_menus(bot, state, name)


async def _rename_chat_menus(bot: Bot, state: BotState, name: CorpusName) -> None:
    """Set again the chat menu of each user who chose a language, to name the new corpus."""
    if state.store is None:
        return
    try:
        chosen = await state.store.languages()
    except StoreError as exc:
        logger.warning("Could not read the language choices to rename chat menus: %s", exc)
        return
    for user_id, lang in chosen.items():
        if is_language(lang):
            await set_chat_menu(bot, user_id, lang, name)
