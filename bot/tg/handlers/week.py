"""The conference week, private to the user: /schedule and its pages, /now, /remind, /timezone."""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update

from bot import answers
from bot.i18n import Translator
from bot.render import Doc, SchedulePage
from bot.store import StoreUnavailable
from bot.tg.preferences import chosen_zone, user_language
from bot.tg.replies import (
    command_argument,
    edit_doc,
    index_of,
    off_loop,
    private_command,
    reply,
    store_call,
)
from bot.tg.state import Context


async def _schedule(context: Context, user_id: int, offset: int, t: Translator) -> Doc:
    """A page of the user's schedule (StoreUnavailable while the store is away)."""
    index = index_of(context)
    papers = await store_call(context, lambda store: answers.saved_papers(store, index, user_id))
    mine = await chosen_zone(context.bot_data, user_id)
    return await off_loop(context, answers.schedule_page, papers, offset=offset, t=t, mine=mine)


@private_command
async def schedule(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """The user's saved papers by day and session, with their clashes, on /schedule."""
    await reply(update, await _schedule(context, user_id, 0, t))


async def schedule_button(
    query: CallbackQuery, message: Message, context: Context, action: SchedulePage, t: Translator
) -> None:
    """A page turn of /schedule: the tapper's schedule, edited in place."""
    doc = await _schedule(context, query.from_user.id, action.offset, t)
    await query.answer()
    await edit_doc(query, doc)


@private_command
async def now(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """The sessions on now and next, with the user's papers in them, on /now."""
    state, index = context.bot_data, index_of(context)
    try:
        week = await store_call(context, lambda store: answers.week_of(store, index, user_id))
    except StoreUnavailable:  # what is on does not wait for the database
        week = answers.Week(())
    programme, moment = await state.programme(), state.clock.now()
    mine = await chosen_zone(state, user_id)
    doc = await off_loop(
        context, answers.now_page, programme, index, week, now=moment, t=t, mine=mine
    )
    await reply(update, doc)


@private_command
async def remind(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """`/remind <minutes>` (1-120) or `/remind off`; `/remind` alone says what is set."""
    argument = command_argument(update.effective_message)
    language = await user_language(update, context)
    doc = await store_call(
        context, lambda store: answers.remind(store, user_id, argument, language=language, t=t)
    )
    context.bot_data.reminders_wake.set()  # a reminder already due goes out now
    await reply(update, doc)


@private_command
async def timezone(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """`/timezone <city, zone or offset>` also shows times on that clock, `/timezone off` stops."""
    argument = command_argument(update.effective_message)
    state = context.bot_data
    doc, zone = await store_call(
        context,
        lambda store: answers.timezone(store, user_id, argument, now=state.clock.now(), t=t),
    )
    state.zones.put(user_id, zone)
    await reply(update, doc)
