"""The PTB Application: builder chain, handler table, and the `run` entry point."""

from __future__ import annotations

import asyncio
import logging
import signal
import ssl
import sys
import threading
import time
from concurrent.futures import Future
from types import FrameType

import httpx
from telegram import BotCommand, Update
from telegram.error import InvalidToken
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    filters,
)
from telegram.request import HTTPXRequest

from bot import admin, faults, handlers, limits, render
from bot.config import ConfigError, Settings, load_settings
from bot.corpus import CorpusError
from bot.logs import configure_logging, redact
from bot.search import Index, load_corpus_and_index

logger = logging.getLogger(__name__)

RATE_LIMIT_RETRIES = 3  # ours: RetryAfter (429) retries before a send gives up
CONCURRENT_UPDATES = 32  # ours: updates handled at once; handlers share only bot_data
API_POOL_SIZE = 256  # PTB's default connection pool for API calls (ApplicationBuilder)
ALLOWED_UPDATES = (
    Update.MESSAGE,
    Update.EDITED_MESSAGE,
    Update.CALLBACK_QUERY,
    Update.INLINE_QUERY,
)
"""The update types the handlers below use; Telegram need not send others."""

NO_TOKEN_MESSAGE = """\
No Telegram bot token: TELEGRAM_BOT_TOKEN is not set.

  1. In Telegram, open @BotFather, send /newbot and follow the steps; it replies with
     a token like 123456789:AAH... .
  2. Put it in a file named .env in this folder:
         TELEGRAM_BOT_TOKEN=123456789:AAH...
     (see .env.example for the other settings), or export it in your shell.
  3. Run `uv run python -m bot` again.

To try the bot without a token, chat with it in the terminal:
  uv run python -m bot console
"""


SET_COMMANDS_TASK = "set_commands_task"  # bot_data key: keeps the task referenced until done


async def set_commands(application: Application) -> None:
    """Register the command menu; a failure is logged, the bot keeps serving."""
    try:
        await application.bot.set_my_commands(
            [BotCommand(command, description) for command, description in render.COMMANDS]
        )
    except Exception:
        logger.exception("Could not register the command menu (setMyCommands)")


async def post_init(application: Application) -> None:
    """Register the command menu and the SIGHUP reload once the bot is initialised."""
    # The menu is sent alongside the first getUpdates rather than before it: one round
    # trip less before the bot polls (Application.create_task would warn: not running yet).
    application.bot_data[SET_COMMANDS_TASK] = asyncio.create_task(
        set_commands(application), name="set-my-commands"
    )
    index: Index = application.bot_data[handlers.INDEX]
    logger.info("Bot @%s is up with %d papers", application.bot.username, len(index))
    admin.watch_sighup(application)


async def post_shutdown(application: Application) -> None:
    """Stop the search thread; PTB has finished every update by now."""
    executor = application.bot_data.pop(handlers.SEARCH_EXECUTOR, None)
    if executor is not None:
        executor.shutdown(wait=False, cancel_futures=True)


def tls_context_in_background() -> Future[ssl.SSLContext]:
    """httpx's default TLS context (certifi; SSL_CERT_FILE/SSL_CERT_DIR honoured), made in a thread.

    Loading the CA bundle (~25 ms) releases the GIL, so it overlaps the corpus load.
    """
    future: Future[ssl.SSLContext] = Future()

    def make() -> None:
        try:
            future.set_result(httpx.create_ssl_context())
        except BaseException as exc:  # re-raised by future.result() in the caller
            future.set_exception(exc)

    threading.Thread(target=make, name="tls-context", daemon=True).start()
    return future


def _requests(
    tls_context: ssl.SSLContext | None,
) -> tuple[HTTPXRequest, faults.TolerantUpdatesRequest]:
    """PTB's two HTTP clients (API calls, getUpdates) sharing one TLS context."""
    # httpx would load the CA bundle once per client (~25 ms each); one context is shared.
    tls = {"verify": tls_context if tls_context is not None else httpx.create_ssl_context()}
    return (
        HTTPXRequest(connection_pool_size=API_POOL_SIZE, httpx_kwargs=tls),
        faults.TolerantUpdatesRequest(httpx_kwargs=tls),
    )


def build_application(
    settings: Settings, index: Index, *, tls_context: ssl.SSLContext | None = None
) -> Application:
    """An Application for `settings` serving `index`; call `run_polling` or use `async with`.

    tls_context: for the Bot API connections; None makes httpx's default one.
    """
    if not settings.token:
        raise ConfigError("TELEGRAM_BOT_TOKEN", "is not set")
    builder = (
        ApplicationBuilder()
        .token(settings.token)
        .rate_limiter(AIORateLimiter(max_retries=RATE_LIMIT_RETRIES))
        .concurrent_updates(CONCURRENT_UPDATES)
        .post_init(post_init)
        .post_shutdown(post_shutdown)
    )
    api_request, updates_request = _requests(tls_context)
    builder = builder.request(api_request).get_updates_request(updates_request)
    if settings.api_base_url:
        builder = builder.base_url(settings.api_base_url)
    application = builder.build()
    application.bot_data[handlers.INDEX] = index
    application.bot_data[handlers.RESULTS_PER_PAGE] = settings.results_per_page
    application.bot_data[limits.QUESTIONS_PER_MINUTE] = settings.questions_per_minute
    admin.install(application, settings)  # chat gate and /reload run before the handlers below

    messages = filters.UpdateType.MESSAGES  # new and edited; never channel posts
    private = filters.ChatType.PRIVATE
    groups = filters.ChatType.GROUPS

    # Commands (CommandHandler ignores `/cmd@otherbot`)
    application.add_handler(CommandHandler("start", handlers.start))
    application.add_handler(CommandHandler("help", handlers.help_command))
    application.add_handler(CommandHandler("search", handlers.search))
    application.add_handler(CommandHandler("paper", handlers.paper))
    application.add_handler(CommandHandler("similar", handlers.similar))
    application.add_handler(CommandHandler("random", handlers.random_paper))
    application.add_handler(CommandHandler("stats", handlers.stats))
    application.add_handler(
        MessageHandler(messages & handlers.PAPER_COMMAND, handlers.paper_shortcut)
    )

    # Questions: any text in private; in groups only what mentions or replies to the bot
    application.add_handler(
        MessageHandler(messages & private & filters.TEXT & ~filters.COMMAND, handlers.private_text)
    )
    application.add_handler(
        MessageHandler(
            messages & groups & filters.TEXT & ~filters.COMMAND & handlers.ADDRESSED_TO_BOT,
            handlers.group_text,
        )
    )
    application.add_handler(
        MessageHandler(messages & private & filters.COMMAND, handlers.unknown_command)
    )
    application.add_handler(
        MessageHandler(
            filters.UpdateType.MESSAGE & private & ~filters.TEXT & ~filters.StatusUpdate.ALL,
            handlers.not_text,
        )
    )

    # Buttons and inline mode
    application.add_handler(CallbackQueryHandler(handlers.button))
    application.add_handler(InlineQueryHandler(handlers.inline_query))

    application.add_error_handler(faults.error_handler)
    return application


def _without_invalid_token_traceback(record: logging.LogRecord) -> bool:
    """PTB logs a rejected token with a traceback; `run` explains it in one line instead."""
    if record.exc_info and isinstance(record.exc_info[1], InvalidToken):
        record.exc_info = None
        record.exc_text = None
    return True


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run(*, webhook: bool = False) -> int:
    """Start the bot (polling, or webhook mode); returns the process exit code."""
    try:
        settings = load_settings()
    except ConfigError as exc:
        # A mistyped TELEGRAM_API_BASE_URL is echoed, and may hold a pasted token.
        print(f"Configuration error: {redact(str(exc))}", file=sys.stderr)
        return 2
    if not settings.token:
        print(NO_TOKEN_MESSAGE, file=sys.stderr)
        return 2
    configure_logging(settings.log_level, secrets=[settings.token, settings.webhook_secret or ""])
    if settings.log_level != "DEBUG":
        for handler in logging.getLogger().handlers:
            handler.addFilter(_without_invalid_token_traceback)
    webhook_config = None
    if webhook or settings.webhook_url:
        from bot import webhook as webhook_mode  # lazy: tornado is for webhook mode only

        try:
            webhook_config = webhook_mode.webhook_config(settings)
        except ConfigError as exc:
            print(f"Configuration error: {exc}", file=sys.stderr)
            return 2

    # Until PTB installs its own handlers, SIGTERM stops start-up as cleanly as Ctrl-C.
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    tls_context = tls_context_in_background()
    try:
        started = time.perf_counter()
        report, index = load_corpus_and_index(settings.corpus, settings.index_cache_dir)
        if not report.papers:
            print(
                f"Configuration error: CORPUS: no papers found in "
                f"{', '.join(map(str, settings.corpus))}",
                file=sys.stderr,
            )
            return 2
        for line in report.skipped:
            logger.warning("Skipped %s", line)
        logger.info(
            "Corpus ready: %d papers from %d files in %.2f s",
            len(report.papers),
            len(report.sources),
            time.perf_counter() - started,
        )
        application = build_application(settings, index, tls_context=tls_context.result())
        if webhook_config is not None:
            webhook_mode.run_webhook(application, webhook_config, allowed_updates=ALLOWED_UPDATES)
        else:
            application.run_polling(
                allowed_updates=ALLOWED_UPDATES,
                stop_signals=(signal.SIGINT, signal.SIGTERM),
            )
    except KeyboardInterrupt:
        return 0
    except CorpusError as exc:
        print(f"Corpus error: {exc}", file=sys.stderr)
        return 2
    except InvalidToken:
        print(
            "Telegram rejected TELEGRAM_BOT_TOKEN. Check it with @BotFather (/token shows it "
            "again, /revoke makes a new one) and update .env.",
            file=sys.stderr,
        )
        return 2
    except Exception as exc:  # last resort: one redacted line, not a traceback with the token
        secrets = [settings.token, settings.webhook_secret or ""]
        print(f"The bot stopped: {redact(repr(exc), secrets)}", file=sys.stderr)
        logger.debug("Stopped by", exc_info=True)
        return 1
    logger.info("Stopped")
    return 0
