"""`/session <name or number>` and its page buttons: a session of the conference programme."""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update

from bot import answers, render
from bot.i18n import Translator
from bot.tg.preferences import user_translator
from bot.tg.replies import argument_or_usage, edit_doc, reply, toast
from bot.tg.state import Context


async def session(update: Update, context: Context) -> None:
    """Show the session a name or number names, on `/session <query>`."""
    t = await user_translator(update, context)
    query = await argument_or_usage(update, "session", t)
    if query is not None:
        programme = await context.bot_data.programme()  # built off the loop, once per index
        await reply(update, answers.session(programme, query, t=t).doc)


async def session_button(
    query: CallbackQuery,
    message: Message,
    context: Context,
    action: render.SessionPage,
    t: Translator,
) -> None:
    """Turn a session's page or open one of several; a button a reload made stale is told so."""
    found = answers.session_turn(await context.bot_data.programme(), action, t=t)
    if found is None:
        await toast(query, t.gettext("error.expired_button"))
        return
    await query.answer()
    await edit_doc(query, found.doc)
