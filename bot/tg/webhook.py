"""Webhook mode: a small tornado server of ours in front of PTB's Application.

PTB's own webhook server answers malformed JSON with 500 and has no health endpoint, so
(as PTB's `customwebhookbot` example does) we run the Application without its Updater and
serve two routes ourselves:

- `POST <path of WEBHOOK_URL>`: the `X-Telegram-Bot-Api-Secret-Token` header must equal
  WEBHOOK_SECRET (else 403, nothing read); the body must be a JSON object with an integer
  `update_id` (else 400); an update PTB cannot parse is logged and acknowledged (200), so
  Telegram does not redeliver it forever. A good update is queued for the Application.
- `GET /healthz`: `{"ok": ..., "index_loaded": ..., "papers": ...}`, 503 while no index.

SIGINT/SIGTERM stop accepting requests, let the queued and running updates finish, then
return. The webhook stays registered, so Telegram keeps new updates until we are back.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import signal
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import tornado.web
from telegram import Update
from telegram.ext import Application
from tornado.httpserver import HTTPServer

from bot.config import ConfigError, Settings

logger = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # Bot API: setWebhook secret_token
HEALTH_PATH = "/healthz"
MAX_UPDATE_BYTES = 1 << 20  # ours: an update is a few KB; larger bodies are refused (413)
MAX_CONNECTIONS = 40  # Bot API default for setWebhook max_connections


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    """Where Telegram posts and where we listen."""

    url: str
    listen: str
    port: int
    secret: str = field(repr=False)

    @property
    def path(self) -> str:
        """The URL path we serve updates on (the reverse proxy forwards it unchanged)."""
        return urlsplit(self.url).path.rstrip("/") or "/"


def webhook_config(settings: Settings) -> WebhookConfig:
    """The webhook settings, checked; raises ConfigError naming the missing one."""
    if not settings.webhook_url:
        raise ConfigError(
            "WEBHOOK_URL",
            "is required in webhook mode: the public https:// URL that forwards to "
            f"{settings.webhook_listen}:{settings.webhook_port}",
        )
    if not settings.webhook_secret:
        raise ConfigError(
            "WEBHOOK_SECRET",
            "is required in webhook mode: 1 to 256 characters of A-Z, a-z, 0-9, _ and - "
            "(for example the output of `openssl rand -hex 32`)",
        )
    if urlsplit(settings.webhook_url).path.rstrip("/") == HEALTH_PATH:
        raise ConfigError("WEBHOOK_URL", f"its path must not be {HEALTH_PATH}")
    return WebhookConfig(
        url=settings.webhook_url,
        listen=settings.webhook_listen,
        port=settings.webhook_port,
        secret=settings.webhook_secret,
    )


class _JsonHandler(tornado.web.RequestHandler):
    def set_default_headers(self) -> None:
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("Cache-Control", "no-store")

    def reply(self, status: int, **payload: Any) -> None:
        self.set_status(status)
        self.finish(json.dumps(payload))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors as JSON, never a traceback page."""
        self.finish(json.dumps({"ok": False, "error": self._reason}))


class UpdateHandler(_JsonHandler):
    """Receives Telegram's POSTs."""

    SUPPORTED_METHODS = ("POST",)  # type: ignore[assignment]

    def initialize(self, bot_app: Application, secret: str) -> None:
        """Per request: what to feed and what to expect."""
        self.bot_app = bot_app
        self.secret = secret.encode("utf-8")

    async def post(self) -> None:
        """Check the secret, parse, queue; Telegram only needs the status."""
        given = self.request.headers.get(SECRET_HEADER)
        if given is None or not hmac.compare_digest(given.encode("utf-8", "replace"), self.secret):
            # The header value is not logged: a near miss could leak most of the secret.
            logger.info(
                "Rejected a webhook request from %s: %s secret token",
                self.request.remote_ip,
                "no" if given is None else "wrong",
            )
            self.reply(403, ok=False, error="forbidden")
            return
        try:
            data = json.loads(self.request.body)
        except (ValueError, UnicodeDecodeError):
            logger.info("Rejected a webhook request: body is not JSON")
            self.reply(400, ok=False, error="malformed JSON")
            return
        if not isinstance(data, dict) or type(data.get("update_id")) is not int:
            logger.info("Rejected a webhook request: not an update object")
            self.reply(400, ok=False, error="not an update")
            return
        if not self.bot_app.running:
            self.reply(503, ok=False, error="shutting down")  # Telegram retries later
            return
        try:
            update = Update.de_json(data, self.bot_app.bot)
        except Exception as exc:
            kinds = sorted(k for k in data if k != "update_id")
            logger.warning(
                "Skipped update %s: its %s could not be parsed (%s)",
                data["update_id"],
                kinds,
                type(exc).__name__,
            )
            self.reply(200, ok=True, skipped=True)
            return
        self.bot_app.bot.insert_callback_data(update)
        await self.bot_app.update_queue.put(update)
        self.reply(200, ok=True)


class HealthHandler(_JsonHandler):
    """Says whether an index is loaded."""

    SUPPORTED_METHODS = ("GET", "HEAD")  # type: ignore[assignment]

    def initialize(self, bot_app: Application) -> None:
        """Per request: whose index to report."""
        self.bot_app = bot_app

    def get(self) -> None:
        """200 with the paper count when an index is loaded, else 503."""
        index = self.bot_app.bot_data.index
        loaded = index is not None
        self.reply(
            200 if loaded else 503,
            ok=loaded,
            index_loaded=loaded,
            papers=len(index) if loaded else 0,
            running=self.bot_app.running,
        )

    head = get


class _WebApp(tornado.web.Application):
    def log_request(self, handler: tornado.web.RequestHandler) -> None:
        """One DEBUG line per request (tornado's access log would go to INFO)."""
        logger.debug("%s %s %d", handler.request.method, handler.request.path, handler.get_status())


def make_web_app(application: Application, config: WebhookConfig) -> tornado.web.Application:
    """The tornado app: the update route and /healthz."""
    update_path = config.path if config.path != "/" else ""
    return _WebApp(
        [
            (HEALTH_PATH, HealthHandler, {"bot_app": application}),
            (
                rf"{update_path}/?",
                UpdateHandler,
                {"bot_app": application, "secret": config.secret},
            ),
        ]
    )


async def serve(
    application: Application,
    config: WebhookConfig,
    *,
    allowed_updates: Iterable[str],
    stop: asyncio.Event | None = None,
) -> None:
    """Run `application` behind our webhook server until `stop` is set (or a stop signal)."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        # Not possible off the main thread (tests) or without signals (Windows).
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    server = HTTPServer(make_web_app(application, config), max_body_size=MAX_UPDATE_BYTES)
    async with application:  # initialize ... shutdown
        if application.post_init is not None:
            await application.post_init(application)
        await application.start()
        server.listen(config.port, address=config.listen)
        logger.info("Webhook server listening on %s:%d%s", config.listen, config.port, config.path)
        try:
            # After listening: Telegram may post the moment the webhook is set.
            await application.bot.set_webhook(
                url=config.url,
                secret_token=config.secret,
                allowed_updates=list(allowed_updates),
                max_connections=MAX_CONNECTIONS,
            )
            logger.info("Webhook registered for %s", config.url)
            await stop.wait()
            logger.info("Stopping: finishing the updates in hand")
        finally:
            server.stop()  # no new requests; the queue and running handlers finish below
            if application.running:
                await application.stop()
            await server.close_all_connections()
            if application.post_stop is not None:
                await application.post_stop(application)
    if application.post_shutdown is not None:
        await application.post_shutdown(application)
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(sig)


def run_webhook(
    application: Application, config: WebhookConfig, *, allowed_updates: Iterable[str]
) -> None:
    """Serve webhooks until SIGINT/SIGTERM (blocking, like `run_polling`)."""
    asyncio.run(serve(application, config, allowed_updates=allowed_updates))
