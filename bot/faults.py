"""Telegram faults the bot survives quietly: unusable updates, stale edits, blocked users.

- `TolerantUpdatesRequest` is the `getUpdates` transport. PTB parses a whole batch at
  once; one update it cannot parse (a field missing, a wrong type) fails the batch before
  the offset moves, so PTB would fetch the same batch forever and answer nobody. We parse
  each update on its own first and replace an unusable one by a bare `{"update_id": N}`:
  no handler matches it, and the offset moves past it.
- `error_handler` wraps the generic one: "message is not modified", "message to edit
  not found" and expired callback queries are logged at DEBUG/INFO, a user who blocked the
  bot is logged once at INFO and never answered (an answer would fail the same way).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from telegram import Update
from telegram.error import BadRequest, Forbidden
from telegram.ext import ContextTypes
from telegram.request import HTTPXRequest, RequestData

from bot import handlers

logger = logging.getLogger(__name__)

GET_UPDATES_POOL_SIZE = 1  # PTB's default: one long poll at a time
QUIET_BAD_REQUESTS = (
    "message is not modified",  # a double tap asked for the page already shown
    "message to edit not found",  # the message was deleted meanwhile
    "query is too old",  # a button pressed long ago, or answered twice
)
"""Lower-case fragments of Bad Request descriptions that need no reaction."""


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
        if _usable(update):
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


def is_quiet(error: BaseException | None) -> bool:
    """True for Bad Requests that only say the user's view is already what we wanted."""
    if not isinstance(error, BadRequest):
        return False
    text = error.message.lower()
    return any(fragment in text for fragment in QUIET_BAD_REQUESTS)


async def error_handler(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Handle expected Telegram refusals quietly; hand anything else to the generic handler."""
    error = context.error
    update_id = update.update_id if isinstance(update, Update) else None
    if is_quiet(error):
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
    await handlers.error_handler(update, context)
