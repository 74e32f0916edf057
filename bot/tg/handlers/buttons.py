"""Inline keyboard buttons: decode the callback data, then run the handler its action names."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from telegram import CallbackQuery, Message, Update
from telegram.constants import ChatType

from bot import render
from bot.i18n import Translator
from bot.store import StoreUnavailable
from bot.tg.preferences import user_translator
from bot.tg.replies import sorry, toast
from bot.tg.state import Context

# What a tap on one kind of button does: `(query, message, context, action, t)`.
ButtonHandler = Callable[
    [CallbackQuery, Message, Context, Any, Translator], Coroutine[Any, Any, None]
]

# Buttons of a user's own lists and /forget are sent only in private chats: one on a group
# message is forged (it would post the tapper's list there).
PRIVATE_ACTIONS = (
    render.SavedPage,
    render.ExportAs,
    render.SchedulePage,
    render.Unfollow,
    render.Forget,
)


def dispatcher(
    table: Mapping[type, ButtonHandler],
) -> Callable[[Update, Context], Coroutine[Any, Any, None]]:
    """The one CallbackQueryHandler callback: each action goes to `table[type(action)]`."""

    async def button(update: Update, context: Context) -> None:
        """Handle a tap; anything stale or malformed gets a notice."""
        query = update.callback_query
        if query is None:
            return
        action = render.parse_callback(query.data)
        message = query.message
        accessible = message if message is not None and message.is_accessible else None
        t = await user_translator(update, context)
        forged = isinstance(action, PRIVATE_ACTIONS) and (
            accessible is None or accessible.chat.type != ChatType.PRIVATE
        )
        if action is None or accessible is None or forged:
            await toast(query, t.gettext("error.expired_button"))
            return
        try:
            await table[type(action)](query, accessible, context, action, t)  # type: ignore[arg-type]
        except StoreUnavailable:
            await sorry(update, t)

    return button
