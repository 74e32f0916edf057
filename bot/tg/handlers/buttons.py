"""Inline keyboard buttons: decode the callback data, then page or open a paper."""

from __future__ import annotations

from telegram import Update

from bot import render
from bot.tg.handlers.library import LibraryAction, library_button
from bot.tg.handlers.papers import open_from_button
from bot.tg.handlers.search import turn_page
from bot.tg.state import Context


async def button(update: Update, context: Context) -> None:
    """Handle result, paging and similar buttons; anything stale gets a short notice."""
    query = update.callback_query
    if query is None:
        return
    action = render.parse_callback(query.data)
    message = query.message if query.message is not None and query.message.is_accessible else None
    if action is None or message is None:
        await query.answer(render.EXPIRED_BUTTON)
        return
    if isinstance(action, LibraryAction):
        await library_button(update, query, message, context, action)
    elif isinstance(action, render.TurnPage):
        await turn_page(query, context, action)
    else:
        await open_from_button(query, message, context, action)
