"""PTB's HTTP side: getUpdates skipping updates PTB cannot parse, sendable text, one TLS context."""

from __future__ import annotations

import json
import logging
import ssl
import threading
from concurrent.futures import Future
from typing import Any

import httpx
from telegram import Update
from telegram.request import HTTPXRequest, RequestData

from bot.textutil import sendable

logger = logging.getLogger(__name__)

API_POOL_SIZE = 256  # PTB's default connection pool for API calls (ApplicationBuilder)
GET_UPDATES_POOL_SIZE = 1  # PTB's default: one long poll at a time


USER_TEXT_FIELDS = (
    ("message", "text"),
    ("message", "caption"),
    ("edited_message", "text"),
    ("edited_message", "caption"),
    ("callback_query", "data"),
    ("inline_query", "query"),
    ("chosen_inline_result", "query"),
)


def clean_update(update: Any) -> Any | None:
    """`update` with its user texts made sendable; None when one is not a string (forged)."""
    if not isinstance(update, dict):
        return update  # not an update at all: `_usable` judges it
    for kind, field in USER_TEXT_FIELDS:
        part = update.get(kind)
        if not isinstance(part, dict) or part.get(field) is None:
            continue
        value = part[field]
        if not isinstance(value, str):
            return None
        cleaned = sendable(value)
        if cleaned != value:
            update = {**update, kind: {**part, field: cleaned}}
    return update


def _usable(update: Any) -> bool:
    try:
        Update.de_json(update, None)
    except Exception:
        return False
    return True


def sanitize_updates(payload: bytes) -> bytes:
    """A getUpdates answer with every update PTB cannot parse replaced by its bare id."""
    try:
        envelope = json.loads(payload)
    except ValueError:
        return payload  # not ours to judge: PTB reports a broken answer itself
    updates = envelope.get("result") if isinstance(envelope, dict) else None
    if not isinstance(updates, list):
        return payload
    changed = False
    for position, update in enumerate(updates):
        cleaned = clean_update(update)
        if cleaned is not None and _usable(cleaned):
            if cleaned is not update:
                updates[position], changed = cleaned, True
            continue
        update_id = update.get("update_id") if isinstance(update, dict) else None
        if not isinstance(update_id, int):
            continue  # without an id there is nothing to confirm; PTB will complain
        kinds = sorted(k for k in update if k != "update_id")
        logger.warning("Skipped update %d: its %s could not be parsed", update_id, kinds)
        updates[position] = {"update_id": update_id}
        changed = True
    return json.dumps(envelope).encode("utf-8") if changed else payload


class TolerantUpdatesRequest(HTTPXRequest):
    """The `getUpdates` transport: unusable updates are skipped instead of blocking polling."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("connection_pool_size", GET_UPDATES_POOL_SIZE)
        super().__init__(**kwargs)

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> tuple[int, bytes]:
        """Send the request; clean the payload of a successful getUpdates."""
        status, payload = await super().do_request(url, method, request_data, *args, **kwargs)
        if status == 200 and url.rstrip("/").endswith("/getUpdates"):
            payload = sanitize_updates(payload)
        return status, payload


def tls_context_in_background() -> Future[ssl.SSLContext]:
    """httpx's default TLS context, made in a thread while the corpus loads."""
    future: Future[ssl.SSLContext] = Future()

    def make() -> None:
        try:
            future.set_result(httpx.create_ssl_context())
        except BaseException as exc:  # re-raised by future.result() in the caller
            future.set_exception(exc)

    threading.Thread(target=make, name="tls-context", daemon=True).start()
    return future


def bot_api_requests(
    tls_context: ssl.SSLContext | None,
) -> tuple[HTTPXRequest, TolerantUpdatesRequest]:
    """PTB's two HTTP clients (API calls, getUpdates) sharing one TLS context."""
    tls = {"verify": tls_context if tls_context is not None else httpx.create_ssl_context()}
    return (
        HTTPXRequest(connection_pool_size=API_POOL_SIZE, httpx_kwargs=tls),
        TolerantUpdatesRequest(httpx_kwargs=tls),
    )
