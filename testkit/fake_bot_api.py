"""A fake Telegram Bot API server of ours: real HTTP on 127.0.0.1, answers like Telegram.

Point PTB at it with `base_url=f"{api.base_url}"` (`http://127.0.0.1:PORT/bot`); the
token and `/method` are appended as with api.telegram.org. It keeps a queue of updates
for `getUpdates` (long polling with `timeout`, `offset` confirms), records every call,
validates what the bot sends the way Telegram does (HTML entities, lengths, callback
data, inline results) and can be told to fail the next calls of a method (e.g. 429 with
`retry_after`). Tests wait on its condition variable, never sleep.
"""

from __future__ import annotations

import email.policy
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from testkit._methods import ApiError, BotApiMethods, UploadedFile, bad_request
from testkit.telegram_html import (
    DEFAULT_TOKEN,
    MAX_CALLBACK_DATA_BYTES,
    MAX_MESSAGE_CHARS,
    HtmlError,
    parse_html,
    utf16_len,
)
from testkit.updates import Updates

MAX_INLINE_QUERY_CHARS = 256  # Bot API: InlineQuery.query, what switch_inline_query may type

__all__ = [
    "DEFAULT_TOKEN",
    "MAX_MESSAGE_CHARS",
    "ApiCall",
    "ApiError",
    "FakeBotApi",
    "Hold",
    "HtmlError",
    "Updates",
    "UploadedFile",
    "assert_telegram_would_accept",
    "bad_request",
    "parse_html",
    "utf16_len",
]

_JSON_PARAMS = frozenset(
    {
        "reply_markup",
        "results",
        "commands",
        "link_preview_options",
        "reply_parameters",
        "entities",
        "allowed_updates",
        "scope",
        "button",
    }
)
_INT_PARAMS = frozenset(
    {"chat_id", "message_id", "offset", "limit", "timeout", "cache_time", "reply_to_message_id"}
)


@dataclass
class ApiCall:
    """One recorded request."""

    method: str
    params: dict[str, Any]
    ok: bool = True
    error: str = ""
    result: Any = None
    at: float = field(default_factory=time.monotonic)


def assert_telegram_would_accept(call: ApiCall) -> None:
    """The sent message was accepted, has visible text within the limit, and short buttons."""
    assert call.ok, call.error
    plain = parse_html(call.params["text"])
    assert 0 < utf16_len(plain) <= MAX_MESSAGE_CHARS
    for row in call.params.get("reply_markup", {}).get("inline_keyboard", []):
        for button in row:
            if "switch_inline_query" in button:  # a Share button: the query it types
                assert 0 < len(button["switch_inline_query"]) <= MAX_INLINE_QUERY_CHARS
            else:
                assert len(button["callback_data"].encode()) <= MAX_CALLBACK_DATA_BYTES


@dataclass
class Hold:
    """A call the server keeps waiting (no answer) until `release` is set."""

    arrived: threading.Event = field(default_factory=threading.Event)
    """Set when the held call reached the server."""
    release: threading.Event = field(default_factory=threading.Event)


HOLD_LIMIT = 60.0  # seconds a held call waits at most, so a forgotten hold cannot hang a test


@dataclass
class _Failure:
    remaining: int
    code: int
    description: str
    retry_after: int | None


class FakeBotApi(BotApiMethods):
    """The server plus its state; use as a context manager or call start()/stop()."""

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        bot_id: int | None = None,
        username: str = "icml_papers_bot",
    ) -> None:
        self.token = token
        self.bot = {
            "id": bot_id if bot_id is not None else int(token.split(":", 1)[0]),
            "is_bot": True,
            "first_name": "ICML Papers",
            "username": username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": True,
        }
        self.calls: list[ApiCall] = []
        self.commands: list[dict[str, Any]] = []
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}
        self.chats: dict[int, dict[str, Any]] = {}
        self._updates: list[dict[str, Any]] = []
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(10_000)
        self._answered_queries: set[str] = set()
        self._failures: dict[str, _Failure] = {}
        self._holds: dict[str, list[Hold]] = {}
        self._every_hold: list[Hold] = []
        self.webhook: dict[str, Any] = {}
        self.blocked: set[int] = set()
        """Chats whose user blocked the bot: sending there is 403 Forbidden."""
        self._condition = threading.Condition()
        self._stopping = False
        self.first_get_updates = threading.Event()
        self.delivered_at: dict[int, float] = {}
        """update_id -> time.monotonic() when getUpdates first handed it out."""
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self) -> FakeBotApi:
        """Bind to 127.0.0.1 on a free port and serve in a daemon thread."""
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes: with Nagle on, the body waits for the
            # client's delayed ACK (~40 ms on Linux), which would be timed as bot latency.
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                api._handle(self)

            do_GET = do_POST

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: tests read `api.calls`

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # serve_forever checks for shutdown() every poll_interval (0.5 s by default): that
        # was half a second of teardown for every test with a fake server.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release long polls and close the socket."""
        with self._condition:
            self._stopping = True
            self._condition.notify_all()
            for hold in self._every_hold:
                hold.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeBotApi:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port."""
        assert self._server is not None
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """What to give PTB as `base_url` (token and method are appended)."""
        return f"http://127.0.0.1:{self.port}/bot"

    # ------------------------------------------------------------ test controls

    def push_update(self, update: dict[str, Any]) -> dict[str, Any]:
        """Queue an update for getUpdates (an update_id is assigned when missing)."""
        with self._condition:
            update.setdefault("update_id", next(self._update_ids))
            for key in ("message", "edited_message"):
                chat = update[key].get("chat") if isinstance(update.get(key), dict) else None
                if isinstance(chat, dict) and "id" in chat:  # tests also push broken updates
                    self.chats[chat["id"]] = chat
            self._updates.append(update)
            self._condition.notify_all()
        return update

    def push_updates(self, updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Queue several updates at once, so one getUpdates hands them all out together."""
        with self._condition:  # re-entrant: push_update takes it again
            return [self.push_update(update) for update in updates]

    def wait_delivered(self, update_ids: list[int], timeout: float = 15.0) -> dict[int, float]:
        """Block until getUpdates handed out every one of `update_ids`; their delivery times."""
        with self._condition:
            ok = self._condition.wait_for(
                lambda: all(u in self.delivered_at for u in update_ids), timeout=timeout
            )
            if not ok:
                raise AssertionError(f"updates {update_ids} were not all delivered")
            return {u: self.delivered_at[u] for u in update_ids}

    def fail_next(
        self,
        method: str,
        times: int = 1,
        *,
        code: int = 429,
        description: str | None = None,
        retry_after: int | None = 1,
    ) -> None:
        """Make the next `times` calls of `method` fail like Telegram would."""
        if description is None:
            description = (
                f"Too Many Requests: retry after {retry_after}" if code == 429 else "Bad Request"
            )
        with self._condition:
            self._failures[method] = _Failure(
                times, code, description, retry_after if code == 429 else None
            )

    def hold_next(self, method: str) -> Hold:
        """Keep the next call of `method` unanswered until the returned hold is released."""
        hold = Hold()
        with self._condition:
            self._holds.setdefault(method, []).append(hold)
            self._every_hold.append(hold)
        return hold

    def wait_for(
        self,
        method: str,
        *,
        count: int = 1,
        predicate: Callable[[ApiCall], bool] | None = None,
        timeout: float = 15.0,
        include_failed: bool = False,
    ) -> list[ApiCall]:
        """Block until `count` matching calls were recorded; raise AssertionError on timeout."""

        def matching() -> list[ApiCall]:
            return [
                call
                for call in self.calls
                if call.method == method
                and (call.ok or include_failed)
                and (predicate is None or predicate(call))
            ]

        with self._condition:
            ok = self._condition.wait_for(lambda: len(matching()) >= count, timeout=timeout)
            found = matching()
        if not ok:
            methods = [c.method for c in self.calls]
            raise AssertionError(
                f"timed out waiting for {count} {method} call(s); got {len(found)}; "
                f"calls so far: {methods}"
            )
        return found

    def wait_until_consumed(self, timeout: float = 15.0) -> None:
        """Block until the bot has confirmed (offset past) every queued update."""
        with self._condition:
            ok = self._condition.wait_for(lambda: not self._updates, timeout=timeout)
        if not ok:
            raise AssertionError("the bot did not confirm all updates")

    def pending_update_ids(self) -> list[int]:
        """The queued updates the bot has not confirmed yet (Telegram would hand them out)."""
        with self._condition:
            return [u["update_id"] for u in self._updates]

    def calls_of(self, method: str, *, include_failed: bool = False) -> list[ApiCall]:
        """Recorded calls of `method` (successful ones unless asked)."""
        with self._condition:
            return [c for c in self.calls if c.method == method and (c.ok or include_failed)]

    def message_json(self, chat_id: int, message_id: int) -> dict[str, Any]:
        """A message the bot sent, as Telegram would embed it in a callback query."""
        with self._condition:
            return json.loads(json.dumps(self.messages[(chat_id, message_id)]["json"]))

    # ------------------------------------------------------------ HTTP

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(request.path)
        match = re.match(r"^/bot([^/]*)/([A-Za-z]+)$", parts.path)
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else b""
        if not match:
            self._send(request, 404, {"ok": False, "error_code": 404, "description": "Not Found"})
            return
        token, method = match.groups()
        try:
            params = self._params(request.headers.get("Content-Type", ""), body, parts.query)
        except ValueError as exc:
            self._send(request, 400, bad_request(str(exc)).envelope())
            return
        call = ApiCall(method, params)
        try:
            if token != self.token:
                raise ApiError(401, "Unauthorized")
            with self._condition:
                waiting = self._holds.get(method)
                hold = waiting.pop(0) if waiting else None
            if hold is not None:
                hold.arrived.set()
                hold.release.wait(HOLD_LIMIT)
            self._maybe_fail(method)
            call.result = self._dispatch(method, params)
            status, envelope = 200, {"ok": True, "result": call.result}
        except ApiError as exc:
            call.ok, call.error = False, exc.description
            status, envelope = exc.code, exc.envelope()
        with self._condition:
            self.calls.append(call)
            self._condition.notify_all()
        self._send(request, status, envelope)

    @staticmethod
    def _send(request: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            request.send_response(status)
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(data)))
            request.end_headers()
            request.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. a cancelled long poll at shutdown)

    @staticmethod
    def _params(content_type: str, body: bytes, query: str) -> dict[str, Any]:
        raw: dict[str, Any] = {k: v[-1] for k, v in parse_qs(query).items()}
        if body:
            if content_type.startswith("application/json"):
                raw.update(json.loads(body))
            elif content_type.startswith("multipart/form-data"):
                raw.update(_multipart(content_type, body))
            elif content_type.startswith("application/x-www-form-urlencoded"):
                text = body.decode("utf-8")
                raw.update({k: v[-1] for k, v in parse_qs(text, keep_blank_values=True).items()})
            else:
                raise ValueError(f"unsupported content type {content_type!r}")
        params: dict[str, Any] = {}
        for key, value in raw.items():
            if isinstance(value, str) and key in _JSON_PARAMS:
                value = json.loads(value)
            elif isinstance(value, str) and key in _INT_PARAMS and re.match(r"^-?\d+$", value):
                value = int(value)
            params[key] = value
        return params

    def _maybe_fail(self, method: str) -> None:
        with self._condition:
            failure = self._failures.get(method)
            if failure is None or failure.remaining <= 0:
                return
            failure.remaining -= 1
        raise ApiError(failure.code, failure.description, failure.retry_after)


def _multipart(content_type: str, body: bytes) -> dict[str, Any]:
    """Fields of a multipart/form-data body: text as str, file parts as UploadedFile."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not message.is_multipart():
        raise ValueError("malformed multipart/form-data body")
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            raise ValueError("a multipart part without a name")
        payload = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is not None:
            fields[name] = UploadedFile(filename, part.get_content_type(), payload)
        else:
            fields[name] = payload.decode(part.get_content_charset() or "utf-8")
    return fields
