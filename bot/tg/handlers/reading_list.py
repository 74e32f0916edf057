"""What a user keeps: Save buttons, `/saved`, `/export` (the calendar file too), `/follow`,
`/following`, `/forget`.

Adapters over `bot.answers.reading_list`: every store call goes through `store_call`, so a
database that stops answering is logged once and the user asked to try again. The user is
always whoever sent the message or tapped the button, never an id from callback data, so
no button can read or change another user's list.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import CallbackQuery, InputFile, Message, Update
from telegram.constants import ChatType

from bot import answers
from bot.i18n import Translator
from bot.render import (
    Doc,
    ExportAs,
    Forget,
    RemoveSaved,
    SavedPage,
    ToggleSave,
    Unfollow,
    library,
    text_doc,
)
from bot.store import Store, StoreUnavailable
from bot.tg.handlers._replies import (
    argument_or_usage,
    command_argument,
    edit_doc,
    index_of,
    markup,
    off_loop,
    reply,
    send,
    sorry,
    store_call,
    tap_within_limit,
    toast,
    within_limit,
)
from bot.tg.handlers._save_buttons import keyboard_of, viewer
from bot.tg.language import user_translator
from bot.tg.reminders import saved_soon
from bot.tg.state import Context


async def private_only(update: Update, t: Translator) -> bool:
    """True in a private chat; elsewhere the user is told lists are private, and False."""
    chat = update.effective_chat
    if chat is not None and chat.type == ChatType.PRIVATE:
        return True
    await reply(update, text_doc("list.private_only", t=t))
    return False


async def private_user(update: Update, context: Context) -> tuple[int, Translator] | None:
    """The sender's id and language, in their private chat; elsewhere None (and they are told)."""
    user = update.effective_user
    t = await user_translator(update, context)
    if user is None or not await private_only(update, t):
        return None
    return user.id, t


async def _saved_id(context: Context, user_id: int, ref: str) -> str | None:
    found = context.bot_data.paper_behind(ref) if ref.startswith("#") else None
    in_index = found.id if found is not None else None
    return await store_call(
        context, lambda store: answers.saved_id(store, user_id, ref, in_index=in_index)
    )


# ---------------------------------------------------------------- commands


async def _reply_from_store(
    update: Update, context: Context, work: Callable[[Store], Awaitable[Doc]], t: Translator
) -> None:
    """Reply with the Doc `work` makes from the store, or ask to try again while it is away."""
    try:
        doc = await store_call(context, work)
    except StoreUnavailable:
        await sorry(update, t)
        return
    await reply(update, doc)


async def saved(update: Update, context: Context) -> None:
    """Show the user's reading list, newest first, on /saved; `/saved <words>` searches it."""
    if (sender := await private_user(update, context)) is None:
        return
    user_id, t = sender
    index, per_page = index_of(context), context.bot_data.per_page
    words = command_argument(update.effective_message) if update.effective_message else ""
    if words:  # `/saved <words>`: the user's own papers ranked against them
        try:
            rows = await store_call(context, lambda store: store.export_rows(user_id))
        except StoreUnavailable:
            await sorry(update, t)
            return
        answer = await off_loop(context, answers.saved_matches, index, rows, words, t=t)
        await reply(update, answer.doc)
        return
    await _reply_from_store(
        update,
        context,
        lambda store: answers.saved_page(store, index, user_id, offset=0, per_page=per_page, t=t),
        t,
    )


async def send_export(
    message: Message, user_id: int, context: Context, fmt: str, t: Translator
) -> None:
    """Send the user's reading list as a `fmt` document (or say it is empty)."""
    rows = await store_call(context, lambda store: store.export_rows(user_id))
    index, now = index_of(context), context.bot_data.clock.now()
    exported = await off_loop(context, answers.export_file, rows, fmt, index=index, now=now, t=t)
    if isinstance(exported, Doc):  # nothing to put in the file
        await send(message, exported, quote=False)
        return
    await message.reply_document(
        InputFile(exported.data, filename=exported.filename),
        caption=exported.caption,
        do_quote=False,
    )


async def export_command(update: Update, context: Context) -> None:
    """Offer export formats on /export, or send the file for `/export bib|md|csv|ics`."""
    message, user = update.effective_message, update.effective_user
    t = await user_translator(update, context)
    if message is None or user is None or not await private_only(update, t):
        return
    argument = command_argument(message)
    if not argument:
        await reply(update, library.export_prompt_doc(t=t))
        return
    fmt = answers.export_format(argument)
    if fmt is None:
        await reply(update, text_doc("export.usage", t=t))
        return
    if not await within_limit(update, context, t):
        return
    try:
        await send_export(message, user.id, context, fmt, t)
    except StoreUnavailable:
        await sorry(update, t)


async def follow(update: Update, context: Context) -> None:
    """Store a standing question on `/follow <topic>`; new matching papers are sent later."""
    if (sender := await private_user(update, context)) is None:
        return
    user_id, t = sender
    topic = await argument_or_usage(update, "follow", t)
    if topic is not None:
        await _reply_from_store(
            update, context, lambda store: answers.follow(store, user_id, topic, t=t), t
        )


async def following(update: Update, context: Context) -> None:
    """List the user's topics with Unfollow buttons, on /following."""
    if (sender := await private_user(update, context)) is not None:
        user_id, t = sender
        await _reply_from_store(
            update, context, lambda store: answers.following(store, user_id, t=t), t
        )


async def forget(update: Update, context: Context) -> None:
    """Ask before deleting everything stored about the user, on /forget."""
    t = await user_translator(update, context)
    if await private_only(update, t):
        await reply(update, library.forget_prompt_doc(t=t))


# ---------------------------------------------------------------- buttons


async def toggle_save(
    query: CallbackQuery, message: Message, context: Context, action: ToggleSave, t: Translator
) -> None:
    """☆ saves the paper behind the button for whoever tapped it, ★ removes it."""
    user = query.from_user
    if action.save:
        found = context.bot_data.paper_behind(action.ref)
        if found is None:
            await toast(query, t.gettext("error.expired_button"))
            return
        done = await store_call(context, lambda store: answers.save(store, user.id, found, t=t))
        saved_soon(context.bot_data, found)  # presented soon: its reminder may be due now
    else:
        paper_id = await _saved_id(context, user.id, action.ref)
        done = await store_call(
            context, lambda store: answers.remove(store, user.id, paper_id, t=t)
        )
    await toast(query, done.text)  # the acknowledgement: sent only after the store committed
    keyboard = keyboard_of(message)
    if keyboard is not None and viewer(user, message.chat) is not None:
        flipped = library.flip_save(keyboard, action.ref, done.saved, t=t)
        if flipped != keyboard:
            await query.edit_message_reply_markup(markup(flipped))


async def saved_button(
    query: CallbackQuery,
    message: Message,
    context: Context,
    action: SavedPage | RemoveSaved,
    t: Translator,
) -> None:
    """A page turn or a ✕ Remove in /saved: the tapper's list, edited in place."""
    user_id = query.from_user.id
    if isinstance(action, RemoveSaved):
        paper_id = await _saved_id(context, user_id, action.ref)
        done = await store_call(
            context, lambda store: answers.remove(store, user_id, paper_id, t=t)
        )
        await toast(query, done.text)
    else:
        await query.answer()
    index, per_page = index_of(context), context.bot_data.per_page
    doc = await store_call(
        context,
        lambda store: answers.saved_page(
            store, index, user_id, offset=action.offset, per_page=per_page, t=t
        ),
    )
    await edit_doc(query, doc)


async def export_button(
    query: CallbackQuery, message: Message, context: Context, action: ExportAs, t: Translator
) -> None:
    """An export format button: the file, in reply to the /export prompt."""
    if not await tap_within_limit(query, context, t):
        return
    await query.answer()
    await send_export(message, query.from_user.id, context, action.fmt, t)


async def unfollow_button(
    query: CallbackQuery, message: Message, context: Context, action: Unfollow, t: Translator
) -> None:
    """An Unfollow button in /following: the topic goes, the list is edited in place."""
    user_id = query.from_user.id
    text, remaining = await store_call(
        context, lambda store: answers.unfollow(store, user_id, action.ref, t=t)
    )
    await toast(query, text)
    if remaining is not None:
        await edit_doc(query, remaining)


async def forget_button(
    query: CallbackQuery, message: Message, context: Context, action: Forget, t: Translator
) -> None:
    """The /forget confirm or cancel button."""
    user_id = query.from_user.id
    if action.confirm:
        await store_call(context, lambda store: answers.forget(store, user_id))
        context.bot_data.languages.put(user_id, None)  # the cached /lang choice goes too
    await query.answer()
    key = "forget.done" if action.confirm else "forget.cancelled"
    await edit_doc(query, text_doc(key, t=t))
