"""Which clock to show a user's times on: their /timezone choice (read from the store once,
cached in `BotState.zones`), in their private chat only: a card in a group is read by all its
members, so there it keeps the venue's clock. A store away never fails a reply."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatType

from bot.store import StoreError
from bot.tg.state import BotState, Context

logger = logging.getLogger(__name__)


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
    """The zone to show `update`'s sender times in beside the venue's; "" outside their
    private chat, or when they chose none."""
    if not isinstance(update, Update):
        return ""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None or chat.type != ChatType.PRIVATE:
        return ""
    return await chosen_zone(context.bot_data, user.id)
