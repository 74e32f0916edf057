"""Save buttons under answers: "☆ 1 ☆ 2 …" or a card's "☆ Save", showing what the reader saved."""

from __future__ import annotations

import contextlib

from telegram import Chat, InlineKeyboardButton, Message, Update, User
from telegram.constants import ChatType

from bot.answers import Numbered
from bot.i18n import Translator
from bot.render import Doc, InlineSwitch, Keyboard, library
from bot.store import StoreUnavailable
from bot.tg.handlers._replies import store_call
from bot.tg.state import Context


def viewer(user: User | None, chat: Chat | None) -> User | None:
    """The user whose saved papers the buttons may show: only in their private chat."""
    return user if chat is not None and chat.type == ChatType.PRIVATE else None


async def with_save_buttons(
    context: Context, user: User | None, doc: Doc, papers: Numbered, t: Translator
) -> Doc:
    """`doc` with a Save button per paper, showing whether `user` (see `viewer`) saved it.

    Without a user (a group) every button shows "☆", so a group never sees what one
    member saved; likewise while the database is away (a tap then asks to try again):
    the answer is never held up. Without a store the doc is sent as it is.
    """
    if context.bot_data.store is None or not papers:
        return doc
    saved: frozenset[str] = frozenset()
    if user is not None:
        ids = [paper_id for _number, paper_id in papers]
        # Unavailable: every button shows "☆"; a tap will ask to try again.
        with contextlib.suppress(StoreUnavailable):
            saved = await store_call(context, lambda store: store.saved_among(user.id, ids))
    return library.with_save_buttons(doc, papers, saved, t=t)


async def saveable(
    update: Update, context: Context, doc: Doc, papers: Numbered, t: Translator
) -> Doc:
    """`with_save_buttons` for the sender of `update` (their saved state only in private)."""
    user = viewer(update.effective_user, update.effective_chat)
    return await with_save_buttons(context, user, doc, papers, t)


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
