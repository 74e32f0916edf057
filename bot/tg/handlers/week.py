"""The conference week: `/schedule` and its pages, `/now`, `/remind`.

Adapters over `bot.answers.week`, private to the user like the reading list: the user is
whoever sent the message or tapped the button; in a group they are told to ask in private.
"""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update

from bot import answers
from bot.corpus import Paper
from bot.i18n import Translator
from bot.render import SchedulePage
from bot.store import StoreUnavailable
from bot.tg.handlers._replies import (
    command_argument,
    edit_doc,
    index_of,
    off_loop,
    reply,
    sorry,
    store_call,
)
from bot.tg.handlers.reading_list import private_user
from bot.tg.language import user_language
from bot.tg.state import Context


async def _saved(context: Context, user_id: int) -> list[Paper]:
    """The user's saved papers still served (StoreUnavailable while the store is away)."""
    index = index_of(context)
    return await store_call(context, lambda store: answers.saved_papers(store, index, user_id))


async def schedule(update: Update, context: Context) -> None:
    """The user's saved papers by day and session, with their clashes, on /schedule."""
    if (sender := await private_user(update, context)) is None:
        return
    user_id, t = sender
    try:
        papers = await _saved(context, user_id)
    except StoreUnavailable:
        await sorry(update, t)
        return
    await reply(update, await off_loop(context, answers.schedule_page, papers, offset=0, t=t))


async def schedule_button(
    query: CallbackQuery, message: Message, context: Context, action: SchedulePage, t: Translator
) -> None:
    """A page turn of /schedule: the tapper's schedule, edited in place."""
    papers = await _saved(context, query.from_user.id)
    await query.answer()
    doc = await off_loop(context, answers.schedule_page, papers, offset=action.offset, t=t)
    await edit_doc(query, doc)


async def now(update: Update, context: Context) -> None:
    """The sessions on now and next in the venue's time, with the user's papers in them, on
    /now; outside the conference, when it is."""
    if (sender := await private_user(update, context)) is None:
        return
    user_id, t = sender
    state, index = context.bot_data, index_of(context)
    try:
        week = await store_call(context, lambda store: answers.week_of(store, index, user_id))
    except StoreUnavailable:  # what is on does not wait for the database
        week = answers.Week(())
    programme, moment = await state.programme(), state.clock.now()
    doc = await off_loop(context, answers.now_page, programme, index, week, now=moment, t=t)
    await reply(update, doc)


async def remind(update: Update, context: Context) -> None:
    """`/remind <minutes>` (1-120) or `/remind off`; `/remind` alone says what is set."""
    if (sender := await private_user(update, context)) is None:
        return
    user_id, t = sender
    message = update.effective_message
    argument = command_argument(message) if message is not None else ""
    language = await user_language(update, context)
    try:
        doc = await store_call(
            context, lambda store: answers.remind(store, user_id, argument, language=language, t=t)
        )
    except StoreUnavailable:
        await sorry(update, t)
        return
    context.bot_data.reminders_wake.set()  # a reminder already due goes out now
    await reply(update, doc)
