"""What a user keeps: Save buttons, /saved, /export, /follow, /following, /forget. The user is
whoever sent the message or tapped the button."""

from __future__ import annotations

from telegram import CallbackQuery, InputFile, Message, Update

from bot import answers
from bot.i18n import Translator
from bot.render import (
    Doc,
    ExportAs,
    Forget,
    SavedPage,
    ToggleSave,
    Unfollow,
    reading_list,
    text_doc,
)
from bot.tg.reminders import saved_soon
from bot.tg.replies import (
    argument_or_usage,
    command_argument,
    edit_doc,
    in_private,
    index_of,
    keyboard_of,
    markup,
    off_loop,
    private_command,
    reply,
    send,
    store_call,
    tap_within_limit,
    toast,
    within_limit,
)
from bot.tg.state import Context


async def _saved_id(context: Context, user_id: int, ref: str) -> str | None:
    found = context.bot_data.paper_behind(ref) if ref.startswith("#") else None
    in_index = found.id if found is not None else None
    return await store_call(
        context, lambda store: answers.saved_id(store, user_id, ref, in_index=in_index)
    )


async def _remove(context: Context, user_id: int, ref: str, t: Translator) -> answers.Toggled:
    paper_id = await _saved_id(context, user_id, ref)
    return await store_call(context, lambda store: answers.remove(store, user_id, paper_id, t=t))


async def _page(context: Context, user_id: int, offset: int, t: Translator) -> Doc:
    index, per_page = index_of(context), context.bot_data.per_page
    return await store_call(
        context,
        lambda store: answers.saved_page(
            store, index, user_id, offset=offset, per_page=per_page, t=t
        ),
    )


# ---------------------------------------------------------------- commands


@private_command
async def saved(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """Show the user's reading list, newest first, on /saved; `/saved <words>` searches it."""
    words = command_argument(update.effective_message)
    if not words:
        await reply(update, await _page(context, user_id, 0, t))
        return
    rows = await store_call(context, lambda store: store.export_rows(user_id))
    answer = await off_loop(context, answers.saved_matches, index_of(context), rows, words, t=t)
    await reply(update, answer.doc)


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


@private_command
async def export_command(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """Offer export formats on /export, or send the file for `/export bib|md|csv|ics`."""
    message = update.effective_message
    argument = command_argument(message)
    fmt = answers.export_format(argument)
    if not argument:
        await reply(update, reading_list.export_prompt_doc(t=t))
    elif fmt is None:
        await reply(update, text_doc("export.usage", t=t))
    elif message is not None and await within_limit(update, context, t):
        await send_export(message, user_id, context, fmt, t)


@private_command
async def follow(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """Store a standing question on `/follow <topic>`; new matching papers are sent later."""
    topic = await argument_or_usage(update, "follow", t)
    if topic is not None:
        doc = await store_call(context, lambda store: answers.follow(store, user_id, topic, t=t))
        await reply(update, doc)


@private_command
async def following(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """List the user's topics with Unfollow buttons, on /following."""
    await reply(update, await store_call(context, lambda s: answers.following(s, user_id, t=t)))


@private_command
async def forget(update: Update, context: Context, user_id: int, t: Translator) -> None:
    """Ask before deleting everything stored about the user, on /forget."""
    await reply(update, reading_list.forget_prompt_doc(t=t))


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
        done = await _remove(context, user.id, action.ref, t)
    await toast(query, done.text)  # the acknowledgement: sent only after the store committed
    keyboard = keyboard_of(message)
    if keyboard is not None and in_private(message.chat):
        flipped = reading_list.flip_save(keyboard, action.ref, done.saved, t=t)
        if flipped != keyboard:
            await query.edit_message_reply_markup(markup(flipped))


async def saved_button(
    query: CallbackQuery, message: Message, context: Context, action: SavedPage, t: Translator
) -> None:
    """A page turn or a ✕ Remove in /saved: the tapper's list, edited in place."""
    user_id = query.from_user.id
    removed = await _remove(context, user_id, action.ref, t) if action.ref is not None else None
    await toast(query, removed.text if removed is not None else None)
    await edit_doc(query, await _page(context, user_id, action.offset, t))


async def export_button(
    query: CallbackQuery, message: Message, context: Context, action: ExportAs, t: Translator
) -> None:
    """An export format button: the file, in reply to the /export prompt."""
    if await tap_within_limit(query, context, t):
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
        context.bot_data.zones.put(user_id, "")  # and the /timezone one
    await query.answer()
    await edit_doc(query, text_doc("forget.done" if action.confirm else "forget.cancelled", t=t))
