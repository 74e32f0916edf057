"""The PTB Application: its builder, command and button tables, error handler, start and stop."""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

from telegram import CallbackQuery, Message, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import render
from bot.commands import COMMANDS
from bot.config import ConfigError, Settings
from bot.i18n import Translator
from bot.search import Index, Retriever
from bot.store import StoreUnavailable, open_store
from bot.tg import admin, transport
from bot.tg.handlers import (
    about,
    inline,
    papers,
    questions,
    reading_list,
    recommend,
    sessions,
    week,
)
from bot.tg.menu import register_when_named
from bot.tg.preferences import user_translator
from bot.tg.reminders import start_reminders, stop_reminders
from bot.tg.replies import sorry, toast
from bot.tg.semantic import end_embedding, serve_semantic
from bot.tg.state import CONTEXT_TYPES, BotState, Context

logger = logging.getLogger(__name__)

RATE_LIMIT_RETRIES = 3  # RetryAfter (429) retries before a send gives up
CONCURRENT_UPDATES = 32  # updates handled at once; handlers share only bot_data
ALLOWED_UPDATES = (
    Update.MESSAGE,
    Update.EDITED_MESSAGE,
    Update.CALLBACK_QUERY,
    Update.INLINE_QUERY,
)
"""The update types the handlers below use; Telegram need not send others."""
QUIET_BAD_REQUESTS = (  # lower-case fragments of Bad Requests that need no reaction
    "message is not modified",  # a double tap asked for the page already shown
    "message to edit not found",  # the message was deleted meanwhile
    "query is too old",  # a button pressed long ago, or answered twice
)


async def post_init(application: Application) -> None:
    """Open the store, send the command menu, start reminders, semantic search and SIGHUP reload."""
    state: BotState = application.bot_data
    if state.store is None:  # StoreOpenError propagates: run() names the setting, exits 2
        state.store = await open_store(state.settings.database_url, state.settings.data_dir)
    # The menu is sent alongside the first getUpdates rather than before it: one round
    # trip less before the bot polls (Application.create_task would warn: not running yet).
    state.prepare_corpus_facts()  # programme, name, topics, off the loop: ready when asked for
    state.set_commands_task = asyncio.create_task(
        register_when_named(application.bot, state), name="set-my-commands"
    )
    if isinstance(state.index, Index):  # SEMANTIC: the model loads in a thread, not here
        # Chinese questions glossed, BM25 alone included; started now, not while the corpus
        # loads: its parsing would delay the first getUpdates.
        state.index.queries.start_glossary()
        state.semantic_task = asyncio.create_task(
            serve_semantic(application, state.index), name="semantic"
        )
    start_reminders(application)
    logger.info("Bot @%s is up with %d papers", application.bot.username, len(state.served_index()))
    admin.watch_sighup(application)


async def post_stop(application: Application) -> None:
    """Stop the reminder job while the bot can still send (before shutdown closes it)."""
    await stop_reminders(application)


async def post_shutdown(application: Application) -> None:
    """Stop the embedding and the search thread and close the store, after the last update."""
    state: BotState = application.bot_data
    await stop_reminders(application)  # stopped already unless the bot never ran
    await end_embedding(state)
    executor, state.search_executor = state.search_executor, None
    if executor is not None:
        executor.shutdown(wait=False, cancel_futures=True)
    store, state.store = state.store, None
    if store is not None:
        await store.close()


def build_application(
    settings: Settings,
    index: Retriever,
    *,
    tls_context: ssl.SSLContext | None = None,
    skipped: int = 0,
    sources: int | None = None,
) -> Application:
    """An Application serving `index`; `skipped` and `sources` are the load's figures for /stats."""
    if not settings.token:
        raise ConfigError("TELEGRAM_BOT_TOKEN", "is not set")
    api_request, updates_request = transport.bot_api_requests(tls_context)
    builder = (
        ApplicationBuilder()
        .token(settings.token)
        .context_types(CONTEXT_TYPES)
        .rate_limiter(AIORateLimiter(max_retries=RATE_LIMIT_RETRIES))
        .concurrent_updates(CONCURRENT_UPDATES)
        .request(api_request)
        .get_updates_request(updates_request)
        .post_init(post_init)
        .post_stop(post_stop)
        .post_shutdown(post_shutdown)
    )
    if settings.api_base_url:
        builder = builder.base_url(settings.api_base_url)
    application = builder.build()
    state: BotState = application.bot_data
    state.index, state.skipped, state.sources = index, skipped, sources
    state.loaded_at = datetime.now(UTC)
    state.settings = settings
    _add_handlers(application)
    application.add_error_handler(error_handler)
    return application


Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]
ButtonHandler = Callable[
    [CallbackQuery, Message, Context, Any, Translator], Coroutine[Any, Any, None]
]
"""What a tap on one kind of button does: `(query, message, context, action, t)`."""

COMMAND_HANDLERS: dict[str, Handler] = {
    "start": about.start,
    "help": about.help_command,
    "search": questions.search,
    "paper": papers.paper,
    "similar": papers.similar,
    "author": papers.author,
    "random": papers.random_paper,
    "session": sessions.session,
    "stats": about.stats,
    "lang": about.lang,
    "saved": reading_list.saved,
    "recommend": recommend.recommend,
    "export": reading_list.export_command,
    "schedule": week.schedule,
    "now": week.now,
    "remind": week.remind,
    "timezone": week.timezone,
    "follow": reading_list.follow,
    "following": reading_list.following,
    "forget": reading_list.forget,
}

BUTTON_HANDLERS: dict[type, ButtonHandler] = {
    render.TurnPage: questions.turn_page,
    render.OpenPaper: papers.open_from_button,
    render.SetLanguage: about.set_language,
    render.ToggleSave: reading_list.toggle_save,
    render.SavedPage: reading_list.saved_button,
    render.ExportAs: reading_list.export_button,
    render.SchedulePage: week.schedule_button,
    render.Unfollow: reading_list.unfollow_button,
    render.Forget: reading_list.forget_button,
    render.Recommend: recommend.recommend_button,
    render.SessionPage: sessions.session_button,
}

# Buttons of a user's own lists and /forget are sent only in private chats: one on a group
# message is forged (it would post the tapper's list there).
PRIVATE_ACTIONS = (
    render.SavedPage,
    render.ExportAs,
    render.SchedulePage,
    render.Unfollow,
    render.Forget,
)


async def button_tap(update: Update, context: Context) -> None:
    """A button tap, run by its action's handler; a stale or malformed button gets a notice."""
    query = update.callback_query
    if query is None:
        return
    action = render.parse_callback(query.data)
    message = query.message
    accessible = message if message is not None and message.is_accessible else None
    t = await user_translator(update, context)
    forged = isinstance(action, PRIVATE_ACTIONS) and (
        accessible is None or accessible.chat.type != ChatType.PRIVATE
    )
    if action is None or accessible is None or forged:
        await toast(query, t.gettext("error.expired_button"))
        return
    try:
        await BUTTON_HANDLERS[type(action)](query, accessible, context, action, t)
    except StoreUnavailable:
        await sorry(update, t)


def _add_handlers(application: Application) -> None:
    """The whole handler table, in the order PTB tries them."""
    messages = filters.UpdateType.MESSAGES  # new and edited; never channel posts
    private = filters.ChatType.PRIVATE
    groups = filters.ChatType.GROUPS
    text = filters.TEXT & ~filters.COMMAND

    # Before everything: the chat gate, then the admin commands (kept out of /help and the
    # menu, so a MessageHandler and not a CommandHandler)
    application.add_handler(TypeHandler(Update, admin.access_gate), group=admin.ACCESS_GROUP)
    application.add_handler(
        MessageHandler(messages & filters.COMMAND & admin.ADMIN_COMMAND, admin.reload_command),
        group=admin.ADMIN_GROUP,
    )

    # Commands, from the one registry, in menu order (each ignores `/cmd@otherbot`), then
    # the tappable /paper_<id>
    application.add_handlers([CommandHandler(c.name, COMMAND_HANDLERS[c.name]) for c in COMMANDS])
    application.add_handler(MessageHandler(messages & papers.PAPER_SHORTCUT, papers.paper_shortcut))

    # Questions: any text in private; in groups only what mentions or replies to the bot
    application.add_handler(MessageHandler(messages & private & text, questions.private_text))
    application.add_handler(
        MessageHandler(messages & groups & text & questions.ADDRESSED_TO_BOT, questions.group_text)
    )
    application.add_handler(
        MessageHandler(messages & private & filters.COMMAND, about.unknown_command)
    )
    application.add_handler(
        MessageHandler(
            filters.UpdateType.MESSAGE & private & ~filters.TEXT & ~filters.StatusUpdate.ALL,
            questions.not_text,
        )
    )

    # Buttons (one table, above) and inline mode
    application.add_handler(CallbackQueryHandler(button_tap))
    application.add_handler(InlineQueryHandler(inline.inline_query))


async def error_handler(update: object, context: Context) -> None:
    """Handle expected Telegram refusals quietly; log anything else, then tell the user."""
    error = context.error
    update_id = update.update_id if isinstance(update, Update) else None
    if isinstance(error, BadRequest) and any(
        fragment in error.message.lower() for fragment in QUIET_BAD_REQUESTS
    ):
        logger.debug("Update %s: Telegram said %s; nothing to do", update_id, error)
        return
    if isinstance(error, Forbidden):
        # Blocked, kicked or deactivated: telling the user would fail the same way.
        chat = update.effective_chat if isinstance(update, Update) else None
        logger.info(
            "Update %s: chat %s refuses messages (%s); not answered",
            update_id,
            chat.id if chat else "?",
            error.message,
        )
        return
    logger.error("Error while handling update %s", update_id, exc_info=error)
    if not isinstance(update, Update):
        return  # polling/network errors arrive with update=None
    try:
        sorry = (await user_translator(update, context)).gettext("error.something_went_wrong")
        if update.callback_query is not None:
            await toast(update.callback_query, sorry)
        elif update.effective_message is not None and update.effective_chat is not None:
            await update.effective_message.reply_text(sorry)
    except TelegramError as exc:
        logger.warning("Could not tell the user about the error in update %s: %s", update_id, exc)
