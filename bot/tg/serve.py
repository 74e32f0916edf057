"""The bot as a process: settings, the corpus load, polling or webhook, signals, exit codes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from types import FrameType
from typing import TYPE_CHECKING

from telegram.error import InvalidToken, NetworkError
from telegram.ext import Application

from bot.answers import serving
from bot.config import ConfigError, Settings, load_settings
from bot.corpus import CorpusError
from bot.i18n import translator
from bot.loading import EmptyCorpusError, model_in_background
from bot.logs import configure_logging, filter_ptb_records, redact
from bot.store import StoreOpenError
from bot.tg import transport
from bot.tg.admin import load_corpus
from bot.tg.app import ALLOWED_UPDATES, build_application

if TYPE_CHECKING:
    from bot.tg.webhook import WebhookConfig

logger = logging.getLogger(__name__)

_OPERATOR = translator("en")
"""Messages to whoever starts the bot (a terminal, not a Telegram user)."""
NO_TOKEN_MESSAGE = _OPERATOR.gettext("app.no_token")

ALREADY_STOPPING = "Already stopping: finishing the updates in hand"


class _StopOnce:
    """SIGINT/SIGTERM: the first stops the bot, later ones only say so (a shutdown is never cut)."""

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
    model = model_in_background(settings)  # SEMANTIC on: loaded before answers, beside the corpus
    started = time.perf_counter()
    report, index = load_corpus(settings)
    logger.info("Corpus ready: %s, in %.2f s", report.summary(), time.perf_counter() - started)
    logger.info("Serving %s", serving(settings.corpus, index.papers, settings.corpus_name))
    application = build_application(
        settings,
        index,
        tls_context=tls_context.result(),
        skipped=report.not_loaded,
        sources=len(report.sources),
    )
    if model is not None:
        model.join()
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
