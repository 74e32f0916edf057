"""A user's language and clock, read once from the store and cached (an outage fails no reply)."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatType

from bot.i18n import Lang, Translator, is_language, pick_language, translator
from bot.store import StoreError
from bot.tg.state import BotState, Context

logger = logging.getLogger(__name__)


async def chosen_language(state: BotState, user_id: int) -> Lang | None:
    """The user's /lang choice; None when they never chose or the store cannot say."""
    if user_id in state.languages or state.store is None:
        return state.languages.get(user_id)
    try:
        stored = await state.store.get_language(user_id)
    except StoreError as exc:  # not cached: the next message asks the store again
        logger.warning("Language of user %s unknown, store unavailable: %s", user_id, exc)
        return None
    choice: Lang | None = stored if is_language(stored) else None  # type: ignore[assignment]
    state.languages.put(user_id, choice)
    return choice


async def user_language(update: object, context: Context) -> Lang:
    """The language to answer `update`'s sender in."""
    user = update.effective_user if isinstance(update, Update) else None
    if user is None:
        return pick_language(None)
    return await chosen_language(context.bot_data, user.id) or pick_language(user.language_code)


async def user_translator(update: object, context: Context) -> Translator:
    """The translator for `update`'s sender (see `user_language`)."""
    return translator(await user_language(update, context))


async def choose_language(context: Context, user_id: int, lang: Lang) -> bool:
    """Remember `lang` for `user_id`; False when the store could not keep it past a restart."""
    state = context.bot_data
    state.languages.put(user_id, lang)  # this process answers in it either way
    if state.store is None:
        return False
    try:
        await state.store.set_language(user_id, lang)
    except StoreError as exc:
        logger.warning("Could not store the language of user %s: %s", user_id, exc)
        return False
    return True


async def chosen_zone(state: BotState, user_id: int) -> str:
    """The user's /timezone choice as stored; "" when they have none or the store cannot say."""
    if user_id in state.zones or state.store is None:
        return state.zones.get(user_id) or ""
    try:
        stored = await state.store.get_timezone(user_id)
    except StoreError as exc:  # not cached: the next message asks the store again
        logger.warning("Time zone of user %s unknown, store unavailable: %s", user_id, exc)
        return ""
    state.zones.put(user_id, stored or "")
    return stored or ""


async def user_zone(update: object, context: Context) -> str:
    """The zone to show the sender's times in: "" outside their private chat or when unset."""
    if not isinstance(update, Update):
        return ""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None or chat.type != ChatType.PRIVATE:
        return ""
    return await chosen_zone(context.bot_data, user.id)
