"""`/recommend`, its page buttons and "not interested": adapters over `bot.answers.recommend`."""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update

from bot import answers
from bot.i18n import Translator
from bot.render import Doc, Recommend, parse_callback
from bot.tg.replies import (
    edit_doc,
    index_of,
    keyboard_of,
    off_loop,
    private_command,
    reply,
    send,
    store_call,
    toast,
)
from bot.tg.state import Context


async def _page(context: Context, user_id: int, offset: int, t: Translator) -> Doc:
    """The user's recommendations from `offset` (store read, then ranked off the loop)."""
    taste = await store_call(context, lambda store: answers.taste(store, user_id))
    per_page = context.bot_data.per_page
    found = await off_loop(
        context,
        answers.recommended,
        index_of(context),
        taste,
        offset=offset,
        per_page=per_page,
        t=t,
    )
    return found.doc


@private_command
async def recommend(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """Papers like the ones the user saved, on /recommend."""
    await reply(update, await _page(context, user_id, 0, t))


async def recommend_button(
    query: CallbackQuery, message: Message, context: Context, action: Recommend, t: Translator
) -> None:
    """A page turn, /saved's Recommend, or a "not interested" (the page is redrawn without it)."""
    user_id = query.from_user.id
    dismissed = None
    if action.ref is not None:
        found = context.bot_data.paper_behind(action.ref)
        paper_id = found.id if found is not None else None
        dismissed = await store_call(context, lambda s: answers.dismiss(s, user_id, paper_id, t=t))
    await toast(query, dismissed)
    doc = await _page(context, user_id, action.offset, t)
    if _is_recommendations(message):
        await edit_doc(query, doc)
    else:  # /saved's button: the recommendations come under the list, which stays
        await send(message, doc, quote=False)


def _is_recommendations(message: Message) -> bool:
    """Whether `message` is a page of recommendations (its buttons say "not interested")."""
    keyboard = keyboard_of(message) or ()
    actions = (parse_callback(data) for row in keyboard for _, data in row)
    return any(isinstance(action, Recommend) and action.ref for action in actions)
