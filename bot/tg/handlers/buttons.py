"""Inline keyboard buttons: decode the callback data, then page, open a paper or set a language."""

from __future__ import annotations

from telegram import Update

from bot import render
from bot.tg.handlers.info import set_language
from bot.tg.handlers.library import LibraryAction, library_button
from bot.tg.handlers.papers import open_from_button
from bot.tg.handlers.search import turn_page
from bot.tg.language import user_translator
from bot.tg.state import Context


async def button(update: Update, context: Context) -> None:
    """Handle paging, similar, paper and language buttons; anything stale gets a notice."""
    query = update.callback_query
    if query is None:
        return
    action = render.parse_callback(query.data)
    message = query.message if query.message is not None and query.message.is_accessible else None
    if action is None or message is None:
        t = await user_translator(update, context)
        await query.answer(t.gettext("error.expired_button"))
        return
    if isinstance(action, render.SetLanguage):
        await set_language(query, message, context, action)
        return
    if isinstance(action, LibraryAction):
        await library_button(update, query, message, context, action)
        return
    t = await user_translator(update, context)
    if isinstance(action, render.TurnPage):
        await turn_page(query, context, action, t)
    else:
        await open_from_button(query, message, context, action, t)
