"""Questions: `/search`, plain text in private chats, mentions in groups, and page turns."""

from __future__ import annotations

import re
import secrets

from telegram import CallbackQuery, Message, MessageEntity, Update
from telegram.ext import filters

from bot import answers, render
from bot.i18n import Translator
from bot.tg.handlers.papers import reply_saveable
from bot.tg.preferences import user_translator
from bot.tg.replies import (
    argument_or_usage,
    edit_doc,
    index_of,
    off_loop,
    reply,
    tap_within_limit,
    toast,
    with_save_buttons,
    within_limit,
)
from bot.tg.state import Context


async def answer_question(update: Update, context: Context, text: str) -> None:
    """Answer `text` (rate-limited): a person's papers, or the first page of results."""
    t = await user_translator(update, context)
    if not await within_limit(update, context, t):
        return
    state = context.bot_data
    index, per_page, key = index_of(context), state.per_page, secrets.token_urlsafe(8)
    answer = await off_loop(context, answers.ask, index, text, per_page=per_page, t=t, page_key=key)
    if answer.page_key is not None and answer.result is not None:
        state.page_states.put(answer.page_key, answer.result.query)  # a bounded LRU
    await reply_saveable(update, context, answer, t)


class _AddressedToBot(filters.MessageFilter):
    """Group messages that mention this bot or reply to it (privacy-mode style)."""

    __slots__ = ()

    def filter(self, message: Message) -> bool:
        bot = message.get_bot()
        if message.from_user is not None and message.from_user.is_bot:
            return False
        replied = message.reply_to_message
        if replied and replied.from_user and replied.from_user.id == bot.id:
            return True
        username = (bot.username or "").lower()
        for entity, text in message.parse_entities(
            [MessageEntity.MENTION, MessageEntity.TEXT_MENTION]
        ).items():
            if entity.user is not None and entity.user.id == bot.id:
                return True
            if username and text.lstrip("@").lower() == username:
                return True
        return False


ADDRESSED_TO_BOT = _AddressedToBot(name="addressed_to_bot")


def _strip_mentions(message: Message) -> str:
    """The message text without mentions of this bot."""
    text = message.text or ""
    username = message.get_bot().username or ""
    if username:
        text = re.sub(rf"@{re.escape(username)}\b", " ", text, flags=re.IGNORECASE)
    return text.strip()


async def search(update: Update, context: Context) -> None:
    """Answer `/search <question>` (also `/search@bot` in groups)."""
    question = await argument_or_usage(update, "search", await user_translator(update, context))
    if question is not None:
        await answer_question(update, context, question)


async def private_text(update: Update, context: Context) -> None:
    """Treat any plain text in a private chat as a question (edits are answered anew)."""
    message = update.effective_message
    if message is not None:
        await answer_question(update, context, message.text or "")


async def group_text(update: Update, context: Context) -> None:
    """Answer a group message that mentions the bot or replies to it."""
    message = update.effective_message
    if message is not None:
        await answer_question(update, context, _strip_mentions(message))


async def not_text(update: Update, context: Context) -> None:
    """Nudge a private sender of stickers, photos and the like towards a text question."""
    await reply(update, render.hint_doc("not_text", t=await user_translator(update, context)))


async def turn_page(
    query: CallbackQuery, message: Message, context: Context, action: render.TurnPage, t: Translator
) -> None:
    """Edit a results message in place to show the page `action` asks for."""
    state = context.bot_data
    if not await tap_within_limit(query, context, t):
        return
    question = action.query
    if question is None and action.key is not None:  # a long question, kept in the LRU
        question = state.page_states.get(action.key)
    if question is None:
        await toast(query, t.gettext("error.expired_button"))
        return
    answer = await off_loop(
        context,
        answers.page,
        index_of(context),
        question,
        offset=action.offset,
        per_page=state.per_page,
        t=t,
        page_key=action.key,
    )
    if answer.result is None or not answer.result.hits:
        await toast(query, t.gettext("error.expired_button"))
        return
    await query.answer()
    doc = await with_save_buttons(context, query.from_user, message.chat, answer, t)
    await edit_doc(query, doc)
