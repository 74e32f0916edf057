"""Which language to answer a user in: their /lang choice (store, cached), else Telegram's.

A choice is read from the store once per user and kept in `BotState.languages` (the
bot's one LRU), so an ordinary message costs no database round trip. When the store is
unavailable the user's Telegram `language_code` decides; the bot never fails over it.
"""

from __future__ import annotations

import logging

from telegram import Update, User

from bot.i18n import Lang, Translator, is_language, pick_language, translator
from bot.store import StoreError
from bot.tg.state import BotState, Context

logger = logging.getLogger(__name__)


def _fallback(user: User | None) -> Lang:
    return pick_language(user.language_code if user is not None else None)


async def _stored_choice(state: BotState, user_id: int) -> Lang | None:
    """The user's stored /lang choice; raises StoreError when the store cannot answer."""
    if state.store is None:
        return None
    stored = await state.store.get_language(user_id)
    return stored if is_language(stored) else None  # type: ignore[return-value]


async def user_language(update: object, context: Context) -> Lang:
    """The language to answer `update`'s sender in."""
    user = update.effective_user if isinstance(update, Update) else None
    if user is None:
        return _fallback(None)
    state = context.bot_data
    if user.id in state.languages:
        return state.languages.get(user.id) or _fallback(user)
    try:
        choice = await _stored_choice(state, user.id)
    except StoreError as exc:
        # Not cached: the next message asks the store again.
        logger.warning("Language of user %s unknown, store unavailable: %s", user.id, exc)
        return _fallback(user)
    state.languages.put(user.id, choice)
    return choice or _fallback(user)


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
