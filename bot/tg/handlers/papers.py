"""One paper: `/paper <id>`, the tappable `/paper_<id>`, `/similar`, `/author`, `/random`."""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update
from telegram.constants import ChatType
from telegram.ext import filters

from bot import answers, render
from bot.commands import addressed_to
from bot.corpus import PAPER_COMMAND_PATTERN, parse_paper_command
from bot.i18n import Translator
from bot.tg.preferences import chosen_zone, user_translator, user_zone
from bot.tg.replies import (
    argument_or_usage,
    index_of,
    off_loop,
    reply,
    send,
    tap_within_limit,
    toast,
    with_save_buttons,
    within_limit,
)
from bot.tg.state import Context

PAPER_SHORTCUT = filters.Regex(PAPER_COMMAND_PATTERN)


async def reply_saveable(
    update: Update, context: Context, answer: answers.Answer, t: Translator
) -> None:
    """Send `answer` with a Save button per paper it shows."""
    user, chat = update.effective_user, update.effective_chat
    await reply(update, await with_save_buttons(context, user, chat, answer, t))


async def paper(update: Update, context: Context) -> None:
    """Show one paper, on `/paper <id>`."""
    t = await user_translator(update, context)
    paper_id = await argument_or_usage(update, "paper", t)
    if paper_id is not None:
        await open_card(update, context, paper_id, t)


async def open_card(update: Update, context: Context, paper_id: str, t: Translator) -> None:
    """Reply with the card of `paper_id` (its link to copy, Save and Share buttons)."""
    name, mine = context.bot.username, await user_zone(update, context)
    card = answers.open_paper(index_of(context), paper_id, t=t, bot_username=name, mine=mine)
    await reply_saveable(update, context, card, t)


async def paper_shortcut(update: Update, context: Context) -> None:
    """Show one paper, on the tappable `/paper_<id>`."""
    message = update.effective_message
    parsed = parse_paper_command(message.text or "") if message else None
    if parsed is None or not addressed_to(parsed[1] or None, context.bot.username):
        return  # another bot's command
    await open_card(update, context, parsed[0], await user_translator(update, context))


async def author(update: Update, context: Context) -> None:
    """List a person's papers, on `/author <name>`."""
    t = await user_translator(update, context)
    name = await argument_or_usage(update, "author", t)
    if name is not None and await within_limit(update, context, t):
        answer = await off_loop(context, answers.author, index_of(context), name, t=t)
        await reply(update, answer.doc)


async def similar(update: Update, context: Context) -> None:
    """List papers like one paper, on `/similar <id>`."""
    t = await user_translator(update, context)
    paper_id = await argument_or_usage(update, "similar", t)
    if paper_id is None or not await within_limit(update, context, t):
        return
    per_page = context.bot_data.per_page
    answer = await off_loop(
        context, answers.similar, index_of(context), paper_id, per_page=per_page, t=t
    )
    await reply_saveable(update, context, answer, t)


async def random_paper(update: Update, context: Context) -> None:
    """Show a random paper, on /random."""
    t = await user_translator(update, context)
    name, mine = context.bot.username, await user_zone(update, context)
    card = answers.random_paper(index_of(context), t=t, bot_username=name, mine=mine)
    await reply_saveable(update, context, card, t)


async def open_from_button(
    query: CallbackQuery,
    message: Message,
    context: Context,
    action: render.OpenPaper,
    t: Translator,
) -> None:
    """Send the paper (or its similar papers) a reminder or card button points at."""
    found = context.bot_data.paper_behind(action.ref)
    if found is None:
        await toast(query, t.gettext("error.expired_button"))
        return
    if action.similar and not await tap_within_limit(query, context, t):
        return
    await query.answer()
    index, per_page = index_of(context), context.bot_data.per_page
    if action.similar:
        answer = await off_loop(context, answers.similar, index, found.id, per_page=per_page, t=t)
    else:
        name = context.bot.username
        private = message.chat.type == ChatType.PRIVATE  # a card in a group: the venue's clock
        mine = await chosen_zone(context.bot_data, query.from_user.id) if private else ""
        answer = answers.open_paper(index, found.id, t=t, bot_username=name, mine=mine)
    doc = await with_save_buttons(context, query.from_user, message.chat, answer, t)
    await send(message, doc, quote=False)
