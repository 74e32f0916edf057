"""Questions: `/search`, plain text in private chats, mentions in groups, and page turns."""

from __future__ import annotations

import re
import secrets

from telegram import CallbackQuery, Message, MessageEntity, Update
from telegram.constants import ParseMode
from telegram.ext import filters

from bot import render
from bot.i18n import Translator
from bot.search import MAX_QUERY_CHARS
from bot.tg import limits
from bot.tg.handlers._replies import (
    NO_PREVIEW,
    argument_or_usage,
    index_of,
    markup,
    off_loop,
    reply,
)
from bot.tg.handlers.library import numbered, saveable, viewer, with_save_buttons
from bot.tg.language import user_translator
from bot.tg.state import Context

MAX_QUESTION_CHARS = MAX_QUERY_CHARS  # the analyzer reads no further; one cap, in bot/text.py


def remember_query(context: Context, query: str) -> str:
    """Store a long query under a short random key (bounded LRU in the BotState)."""
    key = secrets.token_urlsafe(8)
    context.bot_data.page_states.put(key, query)
    return key


def recall_query(context: Context, key: str | None) -> str | None:
    """The long query stored under `key`, or None once forgotten."""
    return context.bot_data.page_states.get(key) if key is not None else None


async def answer_question(update: Update, context: Context, text: str) -> None:
    """Search for `text` (rate-limited) and reply with the first page of results."""
    t = await user_translator(update, context)
    if not await limits.allow_question(update, context, t):
        return
    question = text[:MAX_QUESTION_CHARS]
    index = index_of(context)
    if await off_loop(context, index.is_author_question, question):  # just a person's name
        await reply(update, render.author_doc(question, index.by_author(question), t=t))
        return
    per_page = context.bot_data.per_page
    result = await off_loop(context, index.search, question, limit=per_page, offset=0)
    key = None
    if result.total > per_page and not render.query_fits_callback(question):
        key = remember_query(context, question)
    doc = render.results_doc(result, per_page=per_page, page_key=key, t=t)
    papers = numbered(result.hits, result.offset + 1)
    await reply(update, await saveable(update, context, doc, papers, t))


class _AddressedToBot(filters.MessageFilter):
    """Group messages that mention this bot or reply to it (privacy-mode style)."""

    __slots__ = ()

    def filter(self, message: Message) -> bool:
        """True when the message is for us."""
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
    if message is None:
        return
    await answer_question(update, context, message.text or "")


async def group_text(update: Update, context: Context) -> None:
    """Answer a group message that mentions the bot or replies to it."""
    message = update.effective_message
    if message is None:
        return
    await answer_question(update, context, _strip_mentions(message))


async def not_text(update: Update, context: Context) -> None:
    """Nudge a private sender of stickers, photos and the like towards a text question."""
    await reply(update, render.hint_doc("not_text", t=await user_translator(update, context)))


async def turn_page(
    query: CallbackQuery, context: Context, action: render.TurnPage, t: Translator
) -> None:
    """Edit a results message in place to show the page `action` asks for."""
    question = action.query if action.query is not None else recall_query(context, action.key)
    if question is None:
        await query.answer(t.gettext("error.expired_button"))
        return
    per_page = context.bot_data.per_page
    index = index_of(context)
    result = await off_loop(context, index.search, question, limit=per_page, offset=action.offset)
    if not result.hits:
        await query.answer(t.gettext("error.expired_button"))
        return
    await query.answer()
    doc = render.results_doc(result, per_page=per_page, page_key=action.key, t=t)
    user = viewer(query.from_user, query.message.chat if query.message else None)
    papers = numbered(result.hits, result.offset + 1)
    page = render.to_html(await with_save_buttons(context, user, doc, papers, t))
    # A double tap asks for the page already shown: the error handler treats Telegram's
    # "message is not modified" as nothing to do.
    await query.edit_message_text(
        page[0].text,
        parse_mode=ParseMode.HTML,
        reply_markup=markup(page[0].keyboard),
        link_preview_options=NO_PREVIEW,
    )
