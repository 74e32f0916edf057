"""Save buttons under answers: "☆ 1 ☆ 2 …" or a card's "☆ Save", showing what the reader saved."""

from __future__ import annotations

import contextlib

from telegram import Chat, InlineKeyboardButton, Message, User
from telegram.constants import ChatType

from bot.answers import Answer
from bot.i18n import Translator
from bot.render import Doc, InlineSwitch, Keyboard, reading_list
from bot.store import StoreUnavailable
from bot.tg.handlers._replies import store_call
from bot.tg.state import Context


def in_private(chat: Chat | None) -> bool:
    """Whether the buttons may show the reader's saved papers: only in their private chat."""
    return chat is not None and chat.type == ChatType.PRIVATE


async def with_save_buttons(
    context: Context, user: User | None, chat: Chat | None, answer: Answer, t: Translator
) -> Doc:
    """`answer`'s doc with a Save button per paper, "★" for those `user` saved: all "☆" in a
    group (which never sees what one member saved) or while the store is away."""
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
