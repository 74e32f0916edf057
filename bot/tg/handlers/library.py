"""What a user keeps: Save buttons, `/saved`, `/export`, `/follow`, `/following`, `/forget`.

Every store call goes through `store_call`: a database that stops answering is logged
once (not per message) and the user is asked to try again; searches never wait for it.
The user is always whoever sent the message or tapped the button, never an id from
callback data, so no button can read or change another user's list.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from telegram import CallbackQuery, Chat, InputFile, Message, Update, User
from telegram.constants import ChatType, ParseMode

from bot.corpus import Paper
from bot.i18n import Translator
from bot.render import Doc, Keyboard, library, to_html
from bot.render.callbacks import (
    ExportAs,
    Forget,
    RemoveSaved,
    SavedPage,
    ToggleSave,
    Unfollow,
    paper_ref,
    topic_ref,
)
from bot.search import Hit
from bot.store import SaveOutcome, Store, StoreUnavailable
from bot.store.export import FORMATS, export
from bot.store.model import Limits, normalize_topic, topic_key
from bot.tg.handlers._replies import (
    NO_PREVIEW,
    argument_or_usage,
    command_argument,
    index_of,
    markup,
    reply,
)
from bot.tg.language import user_translator
from bot.tg.state import Context

logger = logging.getLogger(__name__)
T = TypeVar("T")
LibraryAction = ToggleSave | SavedPage | RemoveSaved | ExportAs | Unfollow | Forget


async def store_call(context: Context, work: Callable[[Store], Awaitable[T]]) -> T:
    """Run `work` on the store; StoreUnavailable (logged once per outage) when it can't."""
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


async def _sorry(update: Update, context: Context) -> None:
    """Tell the user the store is away (a toast for buttons, a message otherwise)."""
    text = (await user_translator(update, context)).gettext("list.save_failed")
    if update.callback_query is not None:
        await update.callback_query.answer(text)
    elif update.effective_message is not None:
        await update.effective_message.reply_text(text)


# ---------------------------------------------------------------- Save buttons


def _resolve(context: Context, ref: str) -> Paper | None:
    from bot.tg.handlers.papers import resolve_paper  # lazy: papers imports this module

    return resolve_paper(context, ref)


def _paper_id(context: Context, ref: str) -> str | None:
    """The id behind a button ref in the served index (a plain ref is the id itself)."""
    if not ref.startswith("#"):
        return ref
    found = _resolve(context, ref)
    return found.id if found is not None else None


def viewer(user: User | None, chat: Chat | None) -> User | None:
    """The user whose saved papers the buttons may show: only in their private chat."""
    return user if chat is not None and chat.type == ChatType.PRIVATE else None


Numbered = Sequence[tuple[int | None, str]]
"""(number shown in the text, paper id) per paper that gets a Save button; None: a card."""


def numbered(hits: Sequence[Hit], first: int = 1) -> list[tuple[int | None, str]]:
    """Save-button targets for hits numbered from `first`, as the text numbers them."""
    return [(first + i, hit.paper.id) for i, hit in enumerate(hits)]


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


def _keyboard_of(message: Message) -> Keyboard | None:
    """The message's inline keyboard as plain rows; None if it has other kinds of button."""
    if message.reply_markup is None:
        return None
    rows = message.reply_markup.inline_keyboard
    if any(not isinstance(button.callback_data, str) for row in rows for button in row):
        return None
    return tuple(tuple((b.text, str(b.callback_data)) for b in row) for row in rows)


async def _toggle_save(
    query: CallbackQuery, message: Message, context: Context, action: ToggleSave, t: Translator
) -> None:
    user = query.from_user
    if action.save:
        found = _resolve(context, action.ref)
        if found is None:
            await query.answer(t.gettext("error.expired_button"))
            return
        snap = library.snapshot(found)
        outcome = await store_call(context, lambda store: store.save(user.id, snap))
        saved = outcome is not SaveOutcome.LIMIT_REACHED
        if outcome is SaveOutcome.LIMIT_REACHED:
            limit = (
                context.bot_data.store.limits if context.bot_data.store else Limits()
            ).max_saved
            text = t.ngettext("list.full", limit, limit=limit)
        else:
            key = "list.saved" if outcome is SaveOutcome.SAVED else "list.already_saved"
            text = t.gettext(key)
    else:
        paper_id = await _saved_id(context, user.id, action.ref)
        removed = paper_id is not None and await store_call(
            context, lambda store: store.remove(user.id, paper_id)
        )
        saved = False
        text = t.gettext("list.removed" if removed else "list.not_saved")
    await query.answer(text)  # the acknowledgement: sent only after the store committed
    keyboard = _keyboard_of(message)
    if keyboard is not None and viewer(user, message.chat) is not None:
        flipped = library.flip_save(keyboard, action.ref, saved, t=t)
        if flipped != keyboard:
            await query.edit_message_reply_markup(markup(flipped))


async def _saved_id(context: Context, user_id: int, ref: str) -> str | None:
    """The id of the user's saved paper behind `ref`, also when it left the corpus."""
    if not ref.startswith("#"):
        return ref
    paper_id = _paper_id(context, ref)
    if paper_id is not None:
        return paper_id
    rows = await store_call(context, lambda store: store.export_rows(user_id))
    return next((row.paper_id for row in rows if paper_ref(row.paper_id) == ref), None)


async def private_only(update: Update, t: Translator) -> bool:
    """True in a private chat; elsewhere the user is told lists are private, and False."""
    chat = update.effective_chat
    if chat is not None and chat.type == ChatType.PRIVATE:
        return True
    await reply(update, library.text_doc("list.private_only", t=t))
    return False


# ---------------------------------------------------------------- /saved


async def _saved_page(context: Context, user_id: int, offset: int, t: Translator) -> Doc:
    per_page = context.bot_data.per_page
    total = await store_call(context, lambda store: store.count_saved(user_id))
    offset = min(offset, max(0, (total - 1) // per_page * per_page))  # the last page shrank
    papers = await store_call(
        context, lambda store: store.list_saved(user_id, offset=offset, limit=per_page)
    )
    index = index_of(context)
    in_corpus = frozenset(p.paper_id for p in papers if index.get(p.paper_id) is not None)
    return library.saved_doc(
        papers, total=total, offset=offset, per_page=per_page, in_corpus=in_corpus, t=t
    )


async def saved(update: Update, context: Context) -> None:
    """Show the user's reading list, newest first, on /saved."""
    user = update.effective_user
    t = await user_translator(update, context)
    if user is None or not await private_only(update, t):
        return
    try:
        doc = await _saved_page(context, user.id, 0, t)
    except StoreUnavailable:
        await _sorry(update, context)
        return
    await reply(update, doc)


async def _edit(query: CallbackQuery, doc: Doc) -> None:
    page = to_html(doc)[0]
    await query.edit_message_text(
        page.text,
        parse_mode=ParseMode.HTML,
        reply_markup=markup(page.keyboard),
        link_preview_options=NO_PREVIEW,
    )


# ---------------------------------------------------------------- /export


async def send_export(update: Update, context: Context, fmt: str, t: Translator) -> None:
    """Send the user's reading list as a `fmt` document (or say it is empty)."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    rows = await store_call(context, lambda store: store.export_rows(user.id))
    if not rows:
        await message.reply_text(t.gettext("export.empty"), do_quote=False)
        return
    data = export(rows, fmt).encode("utf-8")
    await message.reply_document(
        InputFile(data, filename=library.export_filename(fmt)),
        caption=t.ngettext("export.caption", len(rows)),
        do_quote=False,
    )


async def export_command(update: Update, context: Context) -> None:
    """Offer export formats on /export, or send the file for `/export bib|md|csv`."""
    message = update.effective_message
    t = await user_translator(update, context)
    if message is None or not await private_only(update, t):
        return
    fmt = command_argument(message).lower().lstrip(".")
    if not fmt:
        await reply(update, library.export_prompt_doc(t=t))
        return
    if fmt not in FORMATS:
        await reply(update, library.text_doc("export.usage", t=t))
        return
    try:
        await send_export(update, context, fmt, t)
    except StoreUnavailable:
        await _sorry(update, context)


# ---------------------------------------------------------------- /follow, /following


async def follow(update: Update, context: Context) -> None:
    """Store a standing question on `/follow <topic>`; new matching papers are sent later."""
    user = update.effective_user
    t = await user_translator(update, context)
    if user is None or not await private_only(update, t):
        return
    topic = await argument_or_usage(update, "follow", t)
    if topic is None:
        return
    try:
        outcome = await store_call(context, lambda store: store.follow(user.id, topic))
    except StoreUnavailable:
        await _sorry(update, context)
        return
    store = context.bot_data.store
    limits = store.limits if store is not None else Limits()
    await reply(update, library.follow_doc(outcome, normalize_topic(topic), limits, t=t))


async def following(update: Update, context: Context) -> None:
    """List the user's topics with Unfollow buttons, on /following."""
    user = update.effective_user
    t = await user_translator(update, context)
    if user is None or not await private_only(update, t):
        return
    try:
        topics = await store_call(context, lambda store: store.topics(user.id))
    except StoreUnavailable:
        await _sorry(update, context)
        return
    await reply(update, library.following_doc(topics, t=t))


async def _unfollow(
    query: CallbackQuery, context: Context, action: Unfollow, t: Translator
) -> None:
    user_id = query.from_user.id
    topics = await store_call(context, lambda store: store.topics(user_id))
    topic = next((one for one in topics if topic_ref(topic_key(one)) == action.ref), None)
    removed = topic is not None and await store_call(
        context, lambda store: store.unfollow(user_id, topic)
    )
    if not removed:
        await query.answer(t.gettext("follow.not_following"))
        return
    await query.answer(t.gettext("follow.removed", topic=topic))
    remaining = await store_call(context, lambda store: store.topics(user_id))
    await _edit(query, library.following_doc(remaining, t=t))


# ---------------------------------------------------------------- /forget


async def forget(update: Update, context: Context) -> None:
    """Ask before deleting everything stored about the user, on /forget."""
    t = await user_translator(update, context)
    if await private_only(update, t):
        await reply(update, library.forget_prompt_doc(t=t))


async def _forget(query: CallbackQuery, context: Context, action: Forget, t: Translator) -> None:
    user_id = query.from_user.id
    if action.confirm:
        await store_call(context, lambda store: store.forget_user(user_id))
        context.bot_data.languages.put(user_id, None)  # the cached /lang choice goes too
    await query.answer()
    key = "forget.done" if action.confirm else "forget.cancelled"
    await _edit(query, library.text_doc(key, t=t))


# ---------------------------------------------------------------- buttons


async def _saved_button(
    query: CallbackQuery, context: Context, action: SavedPage | RemoveSaved, t: Translator
) -> None:
    user_id = query.from_user.id
    if isinstance(action, RemoveSaved):
        paper_id = await _saved_id(context, user_id, action.ref)
        removed = paper_id is not None and await store_call(
            context, lambda store: store.remove(user_id, paper_id)
        )
        await query.answer(t.gettext("list.removed" if removed else "list.not_saved"))
    else:
        await query.answer()
    await _edit(query, await _saved_page(context, user_id, action.offset, t))


async def library_button(
    update: Update, query: CallbackQuery, message: Message, context: Context, action: LibraryAction
) -> None:
    """Handle a Save, /saved, export, unfollow or forget button for whoever tapped it."""
    t = await user_translator(update, context)
    try:
        if isinstance(action, ToggleSave):
            await _toggle_save(query, message, context, action, t)
        elif isinstance(action, SavedPage | RemoveSaved):
            await _saved_button(query, context, action, t)
        elif isinstance(action, ExportAs):
            await query.answer()
            await send_export(update, context, action.fmt, t)
        elif isinstance(action, Unfollow):
            await _unfollow(query, context, action, t)
        else:
            await _forget(query, context, action, t)
    except StoreUnavailable:
        await _sorry(update, context)
