"""A fake Telegram Bot API server of ours: real HTTP on 127.0.0.1, answers like Telegram.

Point PTB at it with `base_url=f"{api.base_url}"` (`http://127.0.0.1:PORT/bot`); the
token and `/method` are appended as with api.telegram.org. It keeps a queue of updates
for `getUpdates` (long polling with `timeout`, `offset` confirms), records every call,
validates what the bot sends the way Telegram does (HTML entities, lengths, callback
data, inline results) and can be told to fail the next calls of a method (e.g. 429 with
`retry_after`). Tests wait on its condition variable, never sleep.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

DEFAULT_TOKEN = "123456:TEST-secret-token-do-not-log-0123456789"
MAX_MESSAGE_CHARS = 4096
MAX_CALLBACK_DATA_BYTES = 64
MAX_INLINE_RESULTS = 50
MAX_BUTTONS = 100
MAX_BUTTONS_PER_ROW = 8
MAX_CALLBACK_ANSWER_CHARS = 200

# Tag -> attributes Telegram reads (https://core.telegram.org/bots/api#html-style).
ALLOWED_TAGS: dict[str, frozenset[str]] = {
    "b": frozenset(),
    "strong": frozenset(),
    "i": frozenset(),
    "em": frozenset(),
    "u": frozenset(),
    "ins": frozenset(),
    "s": frozenset(),
    "strike": frozenset(),
    "del": frozenset(),
    "a": frozenset({"href"}),
    "code": frozenset({"class"}),
    "pre": frozenset(),
    "blockquote": frozenset({"expandable"}),
    "tg-spoiler": frozenset(),
    "span": frozenset({"class"}),
    "tg-emoji": frozenset({"emoji-id"}),
}
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_ATTRIBUTE = re.compile(r"""\s*([A-Za-z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
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


class HtmlError(ValueError):
    """Text that Telegram would refuse with `can't parse entities`."""


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def _decode_entities(text: str, start: int, source: str) -> str:
    """Decode `&...;` in `text`; a bare `&` is an error (Telegram's rule)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "&":
            match = _ENTITY.match(text, i)
            if not match:
                raise HtmlError(
                    f'Unsupported HTML entity or unescaped "&" at byte offset '
                    f"{_byte_offset(source, start + i)}"
                )
            if match.group(1):
                out.append(_NAMED_ENTITIES[match.group(1)])
            else:
                code = int(match.group(2)) if match.group(2) else int(match.group(3), 16)
                if not 0 < code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                    raise HtmlError(f"Invalid numeric entity at byte offset {start + i}")
                out.append(chr(code))
            i = match.end()
        elif ch in "<>":
            raise HtmlError(f'Unexpected "{ch}" at byte offset {_byte_offset(source, start + i)}')
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def parse_html(text: str) -> str:
    """The plain text of Telegram HTML `text`; raises HtmlError like Telegram would."""
    plain: list[str] = []
    stack: list[str] = []
    i = 0
    while i < len(text):
        lt = text.find("<", i)
        chunk_end = len(text) if lt == -1 else lt
        plain.append(_decode_entities(text[i:chunk_end], i, text))
        if lt == -1:
            break
        gt = text.find(">", lt)
        if gt == -1:
            raise HtmlError(f"Unclosed start tag at byte offset {_byte_offset(text, lt)}")
        inside = text[lt + 1 : gt]
        if inside.startswith("/"):
            name = inside[1:].strip().lower()
            if not stack:
                raise HtmlError(f"Unexpected end tag at byte offset {_byte_offset(text, lt)}")
            if stack[-1] != name:
                raise HtmlError(
                    f"Unmatched end tag at byte offset {_byte_offset(text, lt)}, expected "
                    f'"</{stack[-1]}>", found "</{name}>"'
                )
            stack.pop()
        else:
            match = _TAG_NAME.match(inside)
            name = match.group(0).lower() if match else ""
            if name not in ALLOWED_TAGS:
                raise HtmlError(
                    f'Unsupported start tag "{name}" at byte offset {_byte_offset(text, lt)}'
                )
            if (
                stack
                and stack[-1] in ("code", "pre")
                and not (stack[-1] == "pre" and name == "code")
            ):
                raise HtmlError(f'Tag "{name}" is not allowed inside "{stack[-1]}"')
            attributes = _parse_attributes(inside[len(name) :], lt + 1 + len(name), text)
            if name == "span" and attributes.get("class") != "tg-spoiler":
                raise HtmlError('Tag "span" must have class "tg-spoiler"')
            if name == "a" and "href" in attributes:
                href = attributes["href"]
                # Telegram (tdlib) reads the scheme case-insensitively: HTTP:// is a link too.
                scheme = re.match(r"^(https?|tg|mailto)://|^(tg|mailto):", href, re.IGNORECASE)
                if not scheme or re.search(r"\s", href):
                    raise HtmlError(f'Wrong URL in tag "a": "{href}"')
            stack.append(name)
        i = gt + 1
    if stack:
        raise HtmlError(f'Can\'t find end tag corresponding to start tag "{stack[-1]}"')
    return "".join(plain)


def _parse_attributes(text: str, start: int, source: str) -> dict[str, str]:
    attributes: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _ATTRIBUTE.match(text, pos)
        if not match or match.end() == pos:
            raise HtmlError(f"Bad attribute at byte offset {_byte_offset(source, start + pos)}")
        raw = next((g for g in match.group(2, 3, 4) if g is not None), "")
        attributes[match.group(1).lower()] = _decode_entities(raw, start + match.start(), source)
        pos = match.end()
    return attributes


def utf16_len(text: str) -> int:
    """Telegram counts message length in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


class ApiError(Exception):
    """An error answer: HTTP status = error_code, Telegram's envelope."""

    def __init__(self, code: int, description: str, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.retry_after = retry_after

    def envelope(self) -> dict[str, Any]:
        """The JSON body Telegram sends for this error."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.code,
            "description": self.description,
        }
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


def bad_request(detail: str) -> ApiError:
    """A 400 like Telegram's."""
    return ApiError(400, f"Bad Request: {detail}")


@dataclass
class ApiCall:
    """One recorded request."""

    method: str
    params: dict[str, Any]
    ok: bool = True
    error: str = ""
    result: Any = None
    at: float = field(default_factory=time.monotonic)


@dataclass
class Hold:
    """A call the server keeps waiting (no answer) until `release` is set."""

    arrived: threading.Event = field(default_factory=threading.Event)
    """Set when the held call reached the server."""
    release: threading.Event = field(default_factory=threading.Event)


HOLD_LIMIT = 60.0  # seconds a held call waits at most, so a forgotten hold cannot hang a test
_WEBHOOK_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


@dataclass
class _Failure:
    remaining: int
    code: int
    description: str
    retry_after: int | None


class FakeBotApi:
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
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
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

    # ------------------------------------------------------------ methods

    def _dispatch(self, method: str, params: dict[str, Any]) -> Any:
        handler = getattr(self, f"_m_{method.lower()}", None)
        if handler is None:
            raise ApiError(404, "Not Found: method not found")
        return handler(params)

    def _m_getme(self, params: dict[str, Any]) -> Any:
        return self.bot

    def _m_setwebhook(self, params: dict[str, Any]) -> Any:
        url = str(params.get("url") or "")
        if url and not url.startswith("https://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not _WEBHOOK_SECRET.match(str(secret)):
            raise bad_request("secret token contains unallowed characters")
        allowed = params.get("allowed_updates")
        if allowed is not None and not isinstance(allowed, list):
            raise bad_request("allowed_updates must be an Array")
        with self._condition:
            self.webhook = {"url": url, "secret_token": secret, "allowed_updates": allowed}
            if not url:
                self.webhook = {}
        return True

    def _m_deletewebhook(self, params: dict[str, Any]) -> Any:
        with self._condition:
            self.webhook = {}
            if str(params.get("drop_pending_updates")).lower() == "true":
                self._updates.clear()
        return True

    def _m_getwebhookinfo(self, params: dict[str, Any]) -> Any:
        with self._condition:
            url = self.webhook.get("url", "")
            pending = len(self._updates)
        return {"url": url, "has_custom_certificate": False, "pending_update_count": pending}

    def _m_close(self, params: dict[str, Any]) -> Any:
        return True

    def _m_logout(self, params: dict[str, Any]) -> Any:
        return True

    def _m_setmycommands(self, params: dict[str, Any]) -> Any:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("commands must be a list of at most 100 BotCommand")
        for command in commands:
            name = command.get("command", "")
            description = command.get("description", "")
            if not re.match(r"^[a-z0-9_]{1,32}$", name):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(description) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        self.commands = commands
        return True

    def _m_getmycommands(self, params: dict[str, Any]) -> Any:
        return self.commands

    def _m_getupdates(self, params: dict[str, Any]) -> Any:
        if self.webhook:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        self.first_get_updates.set()
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        deadline = time.monotonic() + timeout
        with self._condition:
            if offset:
                # Telegram forgets every update below `offset`: they are confirmed.
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
                self._condition.notify_all()
            while not self._updates and not self._stopping:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._condition.wait(remaining)
            batch = [json.loads(json.dumps(u)) for u in self._updates[:limit]]
            now = time.monotonic()
            for update in batch:
                self.delivered_at.setdefault(update["update_id"], now)
            self._condition.notify_all()
            return batch

    def _chat(self, chat_id: Any) -> dict[str, Any]:
        if not isinstance(chat_id, int):
            raise bad_request("chat not found")
        return self.chats.get(chat_id, {"id": chat_id, "type": "private", "first_name": "User"})

    def _checked_text(self, params: dict[str, Any], key: str = "text") -> tuple[str, str]:
        text = params.get(key)
        if not isinstance(text, str) or not text:
            raise bad_request("message text is empty")
        mode = str(params.get("parse_mode") or "").lower()
        if mode == "html":
            try:
                plain = parse_html(text)
            except HtmlError as exc:
                raise bad_request(f"can't parse entities: {exc}") from None
        elif mode:
            raise bad_request(f"unsupported parse_mode {mode!r} in this fake")
        else:
            plain = text
        if not plain.strip():
            raise bad_request("message text is empty")
        if utf16_len(plain) > MAX_MESSAGE_CHARS:
            raise bad_request("message is too long")
        return text, plain

    @staticmethod
    def _check_markup(markup: Any) -> None:
        if markup is None:
            return
        rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
        if not isinstance(rows, list):
            raise bad_request(
                'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array'
            )
        if sum(len(row) for row in rows) > MAX_BUTTONS:
            raise bad_request("too many buttons")
        for row in rows:
            if len(row) > MAX_BUTTONS_PER_ROW:
                raise bad_request("too many buttons in a row")
            for button in row:
                if not button.get("text"):
                    raise bad_request("button text is empty")
                data = button.get("callback_data")
                if data is not None and not 1 <= len(data.encode("utf-8")) <= 64:
                    raise bad_request("BUTTON_DATA_INVALID")
                kinds = [k for k in button if k != "text"]
                if len(kinds) != 1:
                    raise bad_request("button must have exactly one optional field")

    def _message_json(
        self, chat: dict[str, Any], message_id: int, plain: str, markup: Any
    ) -> dict[str, Any]:
        message: dict[str, Any] = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": chat,
            "from": self.bot,
            "text": plain,
        }
        if markup:
            message["reply_markup"] = markup
        return message

    def _m_sendmessage(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params.get("chat_id"))
        text, plain = self._checked_text(params)
        markup = params.get("reply_markup")
        self._check_markup(markup)
        message_id = next(self._message_ids)
        message = self._message_json(chat, message_id, plain, markup)
        with self._condition:
            self.messages[(chat["id"], message_id)] = {"html": text, "json": message}
        return message

    def _m_editmessagetext(self, params: dict[str, Any]) -> Any:
        if params.get("inline_message_id"):
            self._checked_text(params)
            return True
        chat = self._chat(params.get("chat_id"))
        key = (chat["id"], params.get("message_id"))
        with self._condition:
            stored = self.messages.get(key)  # type: ignore[arg-type]
        if stored is None:
            raise bad_request("message to edit not found")
        text, plain = self._checked_text(params)
        markup = params.get("reply_markup")
        self._check_markup(markup)
        if stored["html"] == text and stored["json"].get("reply_markup") == markup:
            raise bad_request(
                "message is not modified: specified new message content and reply markup "
                "are exactly the same as a current content and reply markup of the message"
            )
        message = self._message_json(chat, key[1], plain, markup)  # type: ignore[arg-type]
        message["edit_date"] = int(time.time())
        with self._condition:
            self.messages[key] = {"html": text, "json": message}  # type: ignore[index]
        return message

    def _m_answercallbackquery(self, params: dict[str, Any]) -> Any:
        query_id = str(params.get("callback_query_id") or "")
        if not query_id or query_id in self._answered_queries:
            raise bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        if len(str(params.get("text") or "")) > MAX_CALLBACK_ANSWER_CHARS:
            raise bad_request("MESSAGE_TOO_LONG")
        self._answered_queries.add(query_id)
        return True

    def _m_answerinlinequery(self, params: dict[str, Any]) -> Any:
        query_id = str(params.get("inline_query_id") or "")
        if not query_id or query_id in self._answered_queries:
            raise bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        results = params.get("results")
        if not isinstance(results, list):
            raise bad_request("results must be an Array")
        if len(results) > MAX_INLINE_RESULTS:
            raise bad_request("RESULTS_TOO_MUCH")
        ids = [str(r.get("id", "")) for r in results]
        if len(set(ids)) != len(ids):
            raise bad_request("RESULT_ID_DUPLICATE")
        for result in results:
            if not 1 <= len(str(result.get("id", "")).encode("utf-8")) <= 64:
                raise bad_request("RESULT_ID_INVALID")
            if result.get("type") == "article":
                if not result.get("title"):
                    raise bad_request("RESULT_TITLE_EMPTY")
                content = result.get("input_message_content") or {}
                self._checked_text(content, "message_text")
            self._check_markup(result.get("reply_markup"))
        self._answered_queries.add(query_id)
        return True


class Updates:
    """Builds update dicts like Telegram's (users, chats, entities with UTF-16 offsets)."""

    def __init__(self, bot_username: str = "icml_papers_bot", bot_id: int = 123456) -> None:
        self.bot_username = bot_username
        self.bot_id = bot_id
        self._message_ids = itertools.count(1)
        self._query_ids = itertools.count(1)

    @staticmethod
    def user(user_id: int = 1001, *, is_bot: bool = False, name: str = "Ada") -> dict[str, Any]:
        """A user."""
        return {"id": user_id, "is_bot": is_bot, "first_name": name, "username": f"u{user_id}"}

    @staticmethod
    def chat(chat_id: int, chat_type: str = "private") -> dict[str, Any]:
        """A chat; groups get a title."""
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
        if chat_type == "private":
            chat["first_name"] = "Ada"
        else:
            chat["title"] = "ML reading group"
        return chat

    @staticmethod
    def entities(text: str) -> list[dict[str, Any]]:
        """bot_command at the start, and @mentions, as Telegram detects them."""
        found = []

        def add(kind: str, start: int, end: int) -> None:
            offset = utf16_len(text[:start])
            found.append({"type": kind, "offset": offset, "length": utf16_len(text[start:end])})

        command = re.match(r"/[A-Za-z0-9_]{1,64}(@[A-Za-z0-9_]{3,32})?", text)
        if command:
            add("bot_command", 0, command.end())
        for mention in re.finditer(r"(?<![\w@])@[A-Za-z0-9_]{5,32}", text):
            add("mention", mention.start(), mention.end())
        return found

    def message(
        self,
        text: str,
        *,
        chat_id: int = 1001,
        chat_type: str = "private",
        user_id: int | None = None,
        from_bot: bool = False,
        reply_to: dict[str, Any] | None = None,
        edited: bool = False,
        message_id: int | None = None,
    ) -> dict[str, Any]:
        """A `message` (or `edited_message`) update carrying `text`."""
        message: dict[str, Any] = {
            "message_id": message_id if message_id is not None else next(self._message_ids),
            "date": int(time.time()),
            "chat": self.chat(chat_id, chat_type),
            "from": self.user(user_id if user_id is not None else abs(chat_id), is_bot=from_bot),
            "text": text,
        }
        entities = self.entities(text)
        if entities:
            message["entities"] = entities
        if reply_to is not None:
            message["reply_to_message"] = reply_to
        if edited:
            message["edit_date"] = int(time.time())
        return {"edited_message" if edited else "message": message}

    def sticker(self, *, chat_id: int = 1001) -> dict[str, Any]:
        """A private sticker message (no text)."""
        return {
            "message": {
                "message_id": next(self._message_ids),
                "date": int(time.time()),
                "chat": self.chat(chat_id),
                "from": self.user(chat_id),
                "sticker": {
                    "file_id": "CAAC",
                    "file_unique_id": "AgAD",
                    "type": "regular",
                    "width": 512,
                    "height": 512,
                    "is_animated": False,
                    "is_video": False,
                },
            }
        }

    def callback(
        self, data: str, *, message: dict[str, Any] | None, user_id: int = 1001
    ) -> dict[str, Any]:
        """A `callback_query` update for a button on `message` (None: an inaccessible one)."""
        query: dict[str, Any] = {
            "id": f"cq{next(self._query_ids)}",
            "from": self.user(user_id),
            "chat_instance": "ci-1",
            "data": data,
        }
        if message is not None:
            query["message"] = message
        return {"callback_query": query}

    def inline(self, query: str, *, user_id: int = 1001) -> dict[str, Any]:
        """An `inline_query` update."""
        return {
            "inline_query": {
                "id": f"iq{next(self._query_ids)}",
                "from": self.user(user_id),
                "query": query,
                "offset": "",
            }
        }
