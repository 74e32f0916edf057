"""What every handler does: arguments, index work off the loop, rate limit, store, HTML replies."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from telegram import (
    Bot,
    CallbackQuery,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
    Update,
    User,
)
from telegram.constants import ChatType, ParseMode

from bot import render
from bot.answers import Answer
from bot.i18n import Translator
from bot.render import Doc, InlineSwitch, Keyboard, reading_list
from bot.search import Retriever
from bot.store import Store, StoreUnavailable
from bot.tg.preferences import user_translator
from bot.tg.state import Context, Verdict

logger = logging.getLogger(__name__)
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def index_of(context: Context) -> Retriever:
    """The index being served."""
    return context.bot_data.served_index()


async def off_loop(
    context: Context,
    function: Callable[_P, _R],
    /,
    *args: _P.args,
    **kwargs: _P.kwargs,
) -> _R:
    """Run index work (CPU work over the corpus) on the search executor."""
    loop = asyncio.get_running_loop()
    call = functools.partial(function, *args, **kwargs)
    return await loop.run_in_executor(context.bot_data.executor(), call)


async def within_limit(update: Update, context: Context, t: Translator) -> bool:
    """True if the sender may start more index work now; else they are told once to slow down."""
    if update.callback_query is not None:
        return await tap_within_limit(update.callback_query, context, t)
    user = update.effective_user
    if user is None:
        return True  # anonymous group admins, channels: nobody to limit
    verdict = context.bot_data.limiter().check(user.id)
    if verdict is Verdict.WARN and update.effective_message is not None:
        await update.effective_message.reply_text(t.gettext("error.rate_limited"), do_quote=False)
    return verdict is Verdict.ALLOW


async def toast(query: CallbackQuery, text: str | None) -> None:
    """Answer a button tap with `text` as its toast (fitted to Telegram's limit), if any."""
    await query.answer(render.fit_toast(text) if text is not None else None)


async def tap_within_limit(query: CallbackQuery, context: Context, t: Translator) -> bool:
    """`within_limit` for a button: the refusal is its toast (every tap must be answered)."""
    verdict = context.bot_data.limiter().check(query.from_user.id)
    if verdict is Verdict.WARN:
        await toast(query, t.gettext("error.rate_limited"))
    elif verdict is Verdict.DROP:
        await query.answer()
    return verdict is Verdict.ALLOW


def _button(label: str, data: str | InlineSwitch) -> InlineKeyboardButton:
    if isinstance(data, InlineSwitch):
        return InlineKeyboardButton(label, switch_inline_query=data.query)
    return InlineKeyboardButton(label, callback_data=data)


def markup(keyboard: Keyboard) -> InlineKeyboardMarkup | None:
    """The inline keyboard for `(label, callback_data)` rows (a Share button switches inline)."""
    if not keyboard:
        return None
    return InlineKeyboardMarkup([[_button(label, data) for label, data in row] for row in keyboard])


def _html(keyboard: Keyboard) -> dict[str, Any]:
    """How each message of ours is sent: HTML, its keyboard, no link previews."""
    return {
        "parse_mode": ParseMode.HTML,
        "reply_markup": markup(keyboard),
        "link_preview_options": NO_PREVIEW,
    }


async def send(message: Message, doc: Doc, *, quote: bool | None) -> None:
    """Send `doc` as HTML in reply to `message`; only the first part may quote it."""
    for part in render.to_html(doc):
        await message.reply_text(part.text, do_quote=quote, **_html(part.keyboard))
        quote = False if quote else quote


async def send_to(bot: Bot, chat_id: int, doc: Doc) -> None:
    """Send `doc` as HTML to `chat_id`, not in reply to anything (alerts, reminders)."""
    for part in render.to_html(doc):
        await bot.send_message(chat_id, part.text, **_html(part.keyboard))


async def edit_doc(query: CallbackQuery, doc: Doc) -> None:
    """Replace the tapped message with `doc`'s first page."""
    page = render.to_html(doc)[0]
    await query.edit_message_text(page.text, **_html(page.keyboard))


async def reply(update: Update, doc: Doc) -> None:
    """Send `doc` as HTML, answering the message (quoted in groups and for edits)."""
    message = update.effective_message
    if message is None:
        return
    await send(message, doc, quote=True if update.edited_message is not None else None)


def command_argument(message: Message | None) -> str:
    """Text after the leading `/command` (or `/command@bot`), newlines kept."""
    text = (message.text or "") if message is not None else ""
    parts = text.split(maxsplit=1)
    return parts[1].strip() if len(parts) > 1 else ""


async def argument_or_usage(update: Update, command: str, t: Translator) -> str | None:
    """The command's argument; without one, the command's usage is sent and None returned."""
    argument = command_argument(update.effective_message)
    if not argument:
        await reply(update, render.usage_doc(command, t=t))
        return None
    return argument


async def store_call(context: Context, work: Callable[[Store], Awaitable[_R]]) -> _R:
    """Run `work` on the store; StoreUnavailable when it can't (logged once per outage)."""
    state = context.bot_data
    if state.store is None:
        raise StoreUnavailable("no store is open")
    try:
        result = await work(state.store)
    except StoreUnavailable as exc:
        if not state.store_down:  # once per outage, not once per message
            state.store_down = True
            logger.warning("The database is not answering (%s); saving is paused", exc)
        raise
    if state.store_down:
        state.store_down = False
        logger.info("The database answers again; saving works")
    return result


async def sorry(update: Update, t: Translator) -> None:
    """Tell the user the store is away (a toast for buttons, a message otherwise)."""
    text = t.gettext("list.save_failed")
    if update.callback_query is not None:
        await toast(update.callback_query, text)
    elif update.effective_message is not None:
        await update.effective_message.reply_text(text)


def private_command(
    handler: Callable[[Update, Context, int, Translator], Awaitable[None]],
) -> Callable[[Update, Context], Awaitable[None]]:
    """`handler(update, context, user_id, t)`, run only in the sender's private chat."""

    @functools.wraps(handler)
    async def command(update: Update, context: Context) -> None:
        user, chat = update.effective_user, update.effective_chat
        t = await user_translator(update, context)
        if user is None:
            return
        if chat is None or chat.type != ChatType.PRIVATE:
            await reply(update, render.text_doc("list.private_only", t=t))
            return
        try:
            await handler(update, context, user.id, t)
        except StoreUnavailable:
            await sorry(update, t)

    return command


def in_private(chat: Chat | None) -> bool:
    """Whether the buttons may show the reader's saved papers: only in their private chat."""
    return chat is not None and chat.type == ChatType.PRIVATE


async def with_save_buttons(
    context: Context, user: User | None, chat: Chat | None, answer: Answer, t: Translator
) -> Doc:
    """`answer`'s doc with Save buttons, "★" for what `user` saved (never shown in a group)."""
    if context.bot_data.store is None or not answer.papers:
        return answer.doc
    saved: frozenset[str] = frozenset()
    if user is not None and in_private(chat):
        ids = [paper_id for _number, paper_id in answer.papers]
        with contextlib.suppress(StoreUnavailable):
            saved = await store_call(context, lambda store: store.saved_among(user.id, ids))
    return reading_list.with_save_buttons(answer.doc, answer.papers, saved, t=t)


def _data(button: InlineKeyboardButton) -> str | InlineSwitch | None:
    if isinstance(button.callback_data, str):
        return button.callback_data
    query = button.switch_inline_query
    return InlineSwitch(query) if query else None


def keyboard_of(message: Message) -> Keyboard | None:
    """The message's inline keyboard as rows of ours; None if it has other kinds of button."""
    if message.reply_markup is None:
        return None
    rows = [[(b.text, _data(b)) for b in row] for row in message.reply_markup.inline_keyboard]
    if any(data is None for row in rows for _label, data in row):
        return None
    return tuple(tuple((label, data) for label, data in row if data is not None) for row in rows)
