"""Webhook mode: our tornado server in front of PTB, which answers malformed JSON with 500 and has
no health check. POSTs need the secret token; `GET /healthz` says if an index is loaded."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import json
import logging
import signal
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import tornado.netutil
import tornado.web
from telegram import Update
from telegram.ext import Application
from tornado.httpserver import HTTPServer

from bot.config import ConfigError, Settings
from bot.tg.state import LruCache
from bot.tg.transport import clean_update

logger = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # Bot API: setWebhook secret_token
HEALTH_PATH = "/healthz"
MAX_UPDATE_BYTES = 1 << 20  # an update is a few KB; larger bodies are refused (413)
MAX_DRAIN_BYTES = 16 << 20  # an authenticated oversized body is read (not kept) to its 413
MAX_JSON_DEPTH = 64  # real updates nest under 10 deep; deeper is refused (400)
RECENT_UPDATE_IDS = 10_000  # redeliveries come within minutes; a bounded memory
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
        """The URL path updates come to (the reverse proxy forwards it unchanged)."""
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


def json_depth(value: Any) -> int:
    """How deep lists and objects nest in a parsed JSON value (a scalar is 0); iterative."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in item)
    return deepest


def parse_update(body: bytes) -> dict[str, Any] | str:
    """The update object in `body`, or why it is refused (the 400 error text)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        # RecursionError: nesting deeper than the interpreter's stack, e.g. 100k "[".
        return "malformed JSON"
    if json_depth(data) > MAX_JSON_DEPTH:
        return "malformed JSON"
    if not isinstance(data, dict) or type(data.get("update_id")) is not int:
        return "not an update"
    return data


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


@tornado.web.stream_request_body  # so an oversized body can be counted, not kept, for a 413
class UpdateHandler(_JsonHandler):
    """Receives Telegram's POSTs."""

    SUPPORTED_METHODS = ("POST",)  # type: ignore[assignment]

    def initialize(self, bot_app: Application, secret: str, recent: LruCache[int, None]) -> None:
        self.bot_app = bot_app
        self.secret = secret.encode("utf-8")
        self.recent = recent
        self.chunks: list[bytes] = []
        self.size = 0

    def prepare(self) -> None:
        """Before the body: only the secret's holder may send an oversized one to get its 413."""
        given = self.request.headers.get(SECRET_HEADER)
        self.given = given
        self.authorized = given is not None and hmac.compare_digest(
            given.encode("utf-8", "replace"), self.secret
        )
        if self.authorized:
            # Others keep the server's limit: over it, tornado cuts them off with a bare 400.
            self.request.connection.set_max_body_size(MAX_DRAIN_BYTES)  # type: ignore[union-attr]

    def data_received(self, chunk: bytes) -> None:
        """Keep the body up to MAX_UPDATE_BYTES; beyond it, only count."""
        self.size += len(chunk)
        if self.size <= MAX_UPDATE_BYTES:
            self.chunks.append(chunk)
        else:
            self.chunks.clear()

    async def post(self) -> None:
        """Check the secret, size and shape, queue; Telegram only needs the status."""
        if not self.authorized:
            # The header value is not logged: a near miss could leak most of the secret.
            logger.info(
                "Rejected a webhook request from %s: %s secret token",
                self.request.remote_ip,
                "no" if self.given is None else "wrong",
            )
            self.reply(403, ok=False, error="forbidden")
            return
        if self.size > MAX_UPDATE_BYTES:
            logger.info("Rejected a webhook request: %d bytes, over the limit", self.size)
            self.reply(413, ok=False, error="update too large")
            return
        data = parse_update(b"".join(self.chunks))
        if isinstance(data, str):
            logger.info("Rejected a webhook request: %s", data)
            self.reply(400, ok=False, error=data)
            return
        if not self.bot_app.running:
            self.reply(503, ok=False, error="shutting down")  # Telegram retries later
            return
        if data["update_id"] in self.recent:  # a redelivery whose 200 was lost
            logger.info("Dropped update %s: already taken (a redelivery)", data["update_id"])
            self.reply(200, ok=True, duplicate=True)
            return
        self.recent.put(data["update_id"], None)
        try:
            cleaned = clean_update(data)
            if cleaned is None:
                raise TypeError("a text that is not a string")  # forged: skipped like the rest
            update = Update.de_json(cleaned, self.bot_app.bot)
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
                {
                    "bot_app": application,
                    "secret": config.secret,
                    "recent": LruCache(RECENT_UPDATE_IDS),
                },
            ),
        ]
    )


async def serve(
    application: Application,
    config: WebhookConfig,
    *,
    allowed_updates: Iterable[str],
) -> None:
    """Run `application` behind our webhook server until a stop signal."""
    # Bound before the Application starts: a failure here must not surface as PTB's
    # "This Application is still running!" from the shutdown that follows.
    sockets = listen_sockets(config)
    server = HTTPServer(make_web_app(application, config), max_body_size=MAX_UPDATE_BYTES)
    server.add_sockets(sockets)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        # Not possible off the main thread (tests) or without signals (Windows).
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    async with application:  # initialize ... shutdown
        if application.post_init is not None:
            await application.post_init(application)
        await application.start()
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


def listen_sockets(config: WebhookConfig) -> list[Any]:
    """Sockets bound to WEBHOOK_LISTEN:WEBHOOK_PORT; ConfigError naming the port when busy."""
    try:
        return tornado.netutil.bind_sockets(config.port, address=config.listen)
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
        hint = " (another process listens there: stop it or choose another WEBHOOK_PORT)"
        raise ConfigError(
            "WEBHOOK_PORT",
            f"cannot listen on {config.listen}:{config.port}: {reason}"
            + (hint if exc.errno == errno.EADDRINUSE else ""),
        ) from exc


def run_webhook(
    application: Application, config: WebhookConfig, *, allowed_updates: Iterable[str]
) -> None:
    """Serve webhooks until SIGINT/SIGTERM (blocking, like `run_polling`)."""
    asyncio.run(serve(application, config, allowed_updates=allowed_updates))
