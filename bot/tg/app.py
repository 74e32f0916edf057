"""The PTB Application: builder chain, handler table, and the `run` entry point."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import ssl
import sys
import time
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from types import FrameType
from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.error import InvalidToken, NetworkError
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
from bot.commands import COMMAND_NAMES, COMMANDS
from bot.config import ConfigError, Settings, load_settings
from bot.corpus import CorpusError
from bot.i18n import COMMAND_MENUS, translator
from bot.loading import EmptyCorpusError, load_index
from bot.logs import configure_logging, filter_ptb_records, redact
from bot.search import Index, Retriever
from bot.store import StoreOpenError, open_store
from bot.tg import admin, errors, transport
from bot.tg.handlers import about, buttons, inline, papers, reading_list, recommend, search
from bot.tg.handlers.buttons import ButtonHandler
from bot.tg.menu import menu
from bot.tg.semantic import serve_semantic, stop_embedding
from bot.tg.state import CONTEXT_TYPES, BotState, Context

if TYPE_CHECKING:
    from bot.tg.webhook import WebhookConfig

logger = logging.getLogger(__name__)

RATE_LIMIT_RETRIES = 3  # ours: RetryAfter (429) retries before a send gives up
CONCURRENT_UPDATES = 32  # ours: updates handled at once; handlers share only bot_data
ALLOWED_UPDATES = (
    Update.MESSAGE,
    Update.EDITED_MESSAGE,
    Update.CALLBACK_QUERY,
    Update.INLINE_QUERY,
)
"""The update types the handlers below use; Telegram need not send others."""

_OPERATOR = translator("en")
"""Messages to whoever starts the bot (a terminal, not a Telegram user)."""
NO_TOKEN_MESSAGE = _OPERATOR.gettext("app.no_token")


async def set_commands(application: Application) -> None:
    """Register the command menu once per language; a failure is logged, the bot keeps serving."""
    for language_code, lang in COMMAND_MENUS:
        try:
            await application.bot.set_my_commands(
                menu(translator(lang)), language_code=language_code or None
            )
        except Exception:
            logger.exception("Could not register the command menu (setMyCommands, %s)", lang)


async def post_init(application: Application) -> None:
    """Open the store, register the command menu and the SIGHUP reload once initialised."""
    state: BotState = application.bot_data
    if state.store is None:  # StoreOpenError propagates: run() names the setting, exits 2
        state.store = await open_store(state.settings.database_url, state.settings.data_dir)
    # The menu is sent alongside the first getUpdates rather than before it: one round
    # trip less before the bot polls (Application.create_task would warn: not running yet).
    state.set_commands_task = asyncio.create_task(set_commands(application), name="set-my-commands")
    if isinstance(state.index, Index):  # SEMANTIC: the model loads in a thread, not here
        # Chinese questions glossed, BM25 alone included; started now, not while the corpus
        # loaded: its ~1 s of parsing slowed the start to the first getUpdates.
        state.index.queries.start_glossary()
        state.semantic_task = asyncio.create_task(
            serve_semantic(application, state.index), name="semantic"
        )
    logger.info("Bot @%s is up with %d papers", application.bot.username, len(state.served_index()))
    admin.watch_sighup(application)


async def post_shutdown(application: Application) -> None:
    """Stop the search thread and close the store; PTB has finished every update by now."""
    state: BotState = application.bot_data
    stop_embedding(state)
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
    """An Application for `settings` serving `index`; call `run_polling` or use `async with`.

    A BM25 `Index` is wrapped in the hybrid after start-up when `settings.semantic` is on.

    tls_context: for the Bot API connections; None makes httpx's default one.
    skipped: records the corpus load skipped, for /stats.
    sources: files the corpus load read, for /stats (None: the files `index`'s papers name).
    """
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
    application.add_error_handler(errors.error_handler)
    return application


Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]

COMMAND_HANDLERS: dict[str, Handler] = {
    "start": about.start,
    "help": about.help_command,
    "search": search.search,
    "paper": papers.paper,
    "similar": papers.similar,
    "author": papers.author,
    "random": papers.random_paper,
    "stats": about.stats,
    "lang": about.lang,
    "saved": reading_list.saved,
    "recommend": recommend.recommend,
    "export": reading_list.export_command,
    "follow": reading_list.follow,
    "following": reading_list.following,
    "forget": reading_list.forget,
}
"""Command name -> handler; must cover exactly `bot.commands.COMMANDS`."""

BUTTON_HANDLERS: dict[type, ButtonHandler] = {
    render.TurnPage: search.turn_page,
    render.OpenPaper: papers.open_from_button,
    render.ShowSimilar: papers.open_from_button,
    render.SetLanguage: about.set_language,
    render.ToggleSave: reading_list.toggle_save,
    render.SavedPage: reading_list.saved_button,
    render.RemoveSaved: reading_list.saved_button,
    render.ExportAs: reading_list.export_button,
    render.Unfollow: reading_list.unfollow_button,
    render.Forget: reading_list.forget_button,
    render.Recommend: recommend.recommend_button,
    render.Dismiss: recommend.recommend_button,
}
"""Button action (`bot.render.callbacks`) -> handler; must cover every action of the codec."""

if set(COMMAND_HANDLERS) != COMMAND_NAMES:  # real checks at import, not asserts
    raise RuntimeError(f"Telegram handlers {sorted(COMMAND_HANDLERS)} != {sorted(COMMAND_NAMES)}")
if set(BUTTON_HANDLERS) != set(render.CALLBACK_ACTIONS):
    raise RuntimeError("a button action has no handler, or a handler no action")


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
    application.add_handler(MessageHandler(messages & private & text, search.private_text))
    application.add_handler(
        MessageHandler(messages & groups & text & search.ADDRESSED_TO_BOT, search.group_text)
    )
    application.add_handler(
        MessageHandler(messages & private & filters.COMMAND, about.unknown_command)
    )
    application.add_handler(
        MessageHandler(
            filters.UpdateType.MESSAGE & private & ~filters.TEXT & ~filters.StatusUpdate.ALL,
            search.not_text,
        )
    )

    # Buttons (one table, above) and inline mode
    application.add_handler(CallbackQueryHandler(buttons.dispatcher(BUTTON_HANDLERS)))
    application.add_handler(InlineQueryHandler(inline.inline_query))


ALREADY_STOPPING = "Already stopping: finishing the updates in hand"


class _StopOnce:
    """SIGINT/SIGTERM while polling: the first stops the bot as PTB's own handler would.

    PTB's handler stays installed while the bot stops, so a second Ctrl-C (or SIGTERM) raised
    SystemExit in the middle of the shutdown: updates already confirmed to Telegram (PTB's
    last getUpdates) and still queued were never answered, and the store was not closed.
    Later signals only say the bot is stopping; SIGKILL still stops it at once.
    """

    def __init__(self) -> None:
        self.received = False

    def __call__(self) -> None:
        if self.received:
            logger.warning("%s (SIGKILL stops at once, dropping them)", ALREADY_STOPPING)
            return
        self.received = True
        raise SystemExit  # as PTB's handler: ends start-up or serving, then PTB shuts down


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _configure(webhook: bool) -> tuple[Settings, WebhookConfig | None] | int:
    """Settings, logging and the webhook config; an exit code after explaining a problem."""
    try:
        settings = load_settings()
    except ConfigError as exc:
        # A mistyped TELEGRAM_API_BASE_URL is echoed, and may hold a pasted token.
        print(_OPERATOR.gettext("app.config_error", error=redact(str(exc))), file=sys.stderr)
        return 2
    if not settings.token:
        print(NO_TOKEN_MESSAGE, file=sys.stderr)
        return 2
    configure_logging(settings.log_level, secrets=[settings.token, settings.webhook_secret or ""])
    filter_ptb_records((InvalidToken, NetworkError), tracebacks=settings.log_level == "DEBUG")
    if not (webhook or settings.webhook_url):
        return settings, None
    from bot.tg import webhook as webhook_mode  # lazy: tornado is for webhook mode only

    try:
        return settings, webhook_mode.webhook_config(settings)
    except ConfigError as exc:
        print(_OPERATOR.gettext("app.config_error", error=exc), file=sys.stderr)
        return 2


def _serve(settings: Settings, webhook_config: WebhookConfig | None) -> None:
    """Load the corpus, build the Application and serve until stopped."""
    tls_context = transport.tls_context_in_background()
    started = time.perf_counter()
    report, index = load_index(
        settings.corpus,
        settings.index_cache_dir,
        strict=settings.corpus_strict,
        corpus_filter=settings.corpus_filter,
    )
    for line in report.skipped:
        logger.warning("Skipped %s", line)
    logger.info("Corpus ready: %s, in %.2f s", report.summary(), time.perf_counter() - started)
    application = build_application(
        settings,
        index,
        tls_context=tls_context.result(),
        skipped=len(report.skipped),
        sources=len(report.sources),
    )
    if webhook_config is not None:
        from bot.tg import webhook as webhook_mode

        webhook_mode.run_webhook(application, webhook_config, allowed_updates=ALLOWED_UPDATES)
    else:
        _poll(application)


def _poll(application: Application) -> None:
    """`run_polling` until SIGINT/SIGTERM; a second signal does not cut the shutdown short."""
    # PTB runs on the current loop (asyncio.get_event_loop()), with our handlers, not its own.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    stop = _StopOnce()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # none on Windows: Ctrl-C still works
            loop.add_signal_handler(sig, stop)
    application.run_polling(allowed_updates=ALLOWED_UPDATES, stop_signals=None)


def run(*, webhook: bool = False) -> int:
    """Start the bot (polling, or webhook mode); returns the process exit code."""
    configured = _configure(webhook)
    if isinstance(configured, int):
        return configured
    settings, webhook_config = configured
    # Until PTB installs its own handlers, SIGTERM stops start-up as cleanly as Ctrl-C.
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        _serve(settings, webhook_config)
    except KeyboardInterrupt:
        return 0
    except EmptyCorpusError:
        paths = ", ".join(map(str, settings.corpus))
        print(_OPERATOR.gettext("app.no_papers", paths=paths), file=sys.stderr)
        return 2
    except CorpusError as exc:
        print(_OPERATOR.gettext("app.corpus_error", error=exc), file=sys.stderr)
        return 2
    except (StoreOpenError, ConfigError) as exc:  # ConfigError: a busy WEBHOOK_PORT
        print(_OPERATOR.gettext("app.config_error", error=redact(str(exc))), file=sys.stderr)
        return 2
    except InvalidToken:
        print(_OPERATOR.gettext("app.invalid_token"), file=sys.stderr)
        return 2
    except NetworkError as exc:  # no connection to the Bot API at start-up (TimedOut too)
        secrets = [settings.token or "", settings.webhook_secret or ""]
        error = redact(exc.message, secrets)
        print(_OPERATOR.gettext("app.network_error", error=error), file=sys.stderr)
        logger.debug("Could not reach the Bot API", exc_info=True)
        return 1
    except Exception as exc:  # last resort: one redacted line, not a traceback with the token
        secrets = [settings.token or "", settings.webhook_secret or ""]
        print(_OPERATOR.gettext("app.stopped", error=redact(repr(exc), secrets)), file=sys.stderr)
        logger.debug("Stopped by", exc_info=True)
        return 1
    # Said every time: updates Telegram handed out as the bot stopped were not confirmed.
    logger.info("Stopped; updates that arrived while stopping wait for the next start")
    return 0
