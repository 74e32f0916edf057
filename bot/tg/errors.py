"""The one error handler: expected refusals pass quietly, anything else is logged and apologised
for."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.tg.preferences import user_translator
from bot.tg.replies import toast
from bot.tg.state import Context

logger = logging.getLogger(__name__)

QUIET_BAD_REQUESTS = (  # lower-case fragments of Bad Requests that need no reaction
    "message is not modified",  # a double tap asked for the page already shown
    "message to edit not found",  # the message was deleted meanwhile
    "query is too old",  # a button pressed long ago, or answered twice
)


async def error_handler(update: object, context: Context) -> None:
    """Handle expected Telegram refusals quietly; log anything else, then tell the user."""
    error = context.error
    update_id = update.update_id if isinstance(update, Update) else None
    if isinstance(error, BadRequest) and any(
        fragment in error.message.lower() for fragment in QUIET_BAD_REQUESTS
    ):
        logger.debug("Update %s: Telegram said %s; nothing to do", update_id, error)
        return
    if isinstance(error, Forbidden):
        # Blocked, kicked or deactivated: telling the user would fail the same way.
        chat = update.effective_chat if isinstance(update, Update) else None
        logger.info(
            "Update %s: chat %s refuses messages (%s); not answered",
            update_id,
            chat.id if chat else "?",
            error.message,
        )
        return
    logger.error("Error while handling update %s", update_id, exc_info=error)
    if not isinstance(update, Update):
        return  # polling/network errors arrive with update=None
    try:
        sorry = (await user_translator(update, context)).gettext("error.something_went_wrong")
        if update.callback_query is not None:
            await toast(update.callback_query, sorry)
        elif update.effective_message is not None and update.effective_chat is not None:
            await update.effective_message.reply_text(sorry)
    except TelegramError as exc:
        logger.warning("Could not tell the user about the error in update %s: %s", update_id, exc)
