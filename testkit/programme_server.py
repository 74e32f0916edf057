"""A stand-in for the sites `python -m bot fetch` downloads from: real HTTP on 127.0.0.1 in a
thread, like the fake Bot API. It serves

- virtual-site feeds at `/static/virtual/data/<conf>-<year>-orals-posters.json`, in pages
  (`?page=N`, absolute `next` links) when asked, with their abstracts sidecar beside them;
- OpenReview API v2 at the server's root: `GET /notes?content.venueid=…&limit=&offset=&count=`
  (pages of at most `notes_page_cap`, as the API caps `limit`), `POST /login`; guests can be
  refused with 403;

and, on demand, each fault the sources are known for (`Fault`): 429 and 5xx with Retry-After,
an HTML challenge page with status 200, 403, a feed that stops short of its count, a transfer
cut short of its Content-Length, truncated JSON, a connection dropped without an answer; and
the hostile ones: a gzip body that inflates a thousandfold, a chunked body that never ends
(also behind a redirect), a drip of one byte every few seconds, and (`add_feed(count=,
endless=True)`) a feed whose `count` is huge and whose `next` always leads on. Everything
asked is recorded in `requests`.
"""

from __future__ import annotations

import functools
import gzip
import json
import secrets
import struct
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

__all__ = ["CHALLENGE_PAGE", "FEED_FOLDER", "Fault", "ProgrammeServer", "Seen"]

FEED_FOLDER = "/static/virtual/data/"
CHALLENGE_PAGE = (
    b'<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head>'
    b"<body><noscript>Enable JavaScript and cookies to continue</noscript></body></html>"
)
_NOT_FOUND_PAGE = b"<html><head><title>404 Not Found</title></head><body>Not Found</body></html>"


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour (see the constructors)."""

    kind: str
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    keep: float = 0.5
    size: int = 0
    every: float = 0.0

    @classmethod
    def answer(
        cls,
        status: int,
        body: bytes = b'{"detail": "error"}',
        *,
        content_type: str = "application/json",
        retry_after: str | None = None,
        date: str | None = None,
    ) -> Fault:
        """This status and body instead of the resource (429, 503, 403…); Retry-After and
        Date headers when given."""
        headers = [("Retry-After", retry_after)] if retry_after is not None else []
        if date is not None:
            headers.append(("Date", date))
        return cls("answer", status, body, content_type, tuple(headers))

    @classmethod
    def challenge(cls, status: int = 200) -> Fault:
        """An HTML challenge page, with status 200 by default."""
        return cls.answer(status, CHALLENGE_PAGE, content_type="text/html; charset=UTF-8")

    @classmethod
    def cut(cls, keep: float = 0.5) -> Fault:
        """The real answer's Content-Length, but only `keep` of its body, then the
        connection closes."""
        return cls("cut", keep=keep)

    @classmethod
    def truncated(cls, keep: float = 0.5) -> Fault:
        """`keep` of the real body, with a Content-Length that matches it: JSON cut short."""
        return cls("truncated", keep=keep)

    @classmethod
    def drop(cls) -> Fault:
        """The connection closes without an answer."""
        return cls("drop")

    @classmethod
    def no_next(cls) -> Fault:
        """The real page without its `next` link: the feed stops short of its count."""
        return cls("no_next")

    @classmethod
    def bomb(cls, inflated: int) -> Fault:
        """A gzip body (`Content-Encoding: gzip`, about a thousandth of the size) that inflates
        to `inflated` bytes: the start of a feed, then spaces."""
        return cls("bomb", size=inflated)

    @classmethod
    def endless(cls) -> Fault:
        """A chunked body that never ends: the start of a feed, then events as fast as the
        connection takes them, until the client hangs up or the server stops."""
        return cls("endless")

    @classmethod
    def redirect(cls, location: str) -> Fault:
        """302 to `location`, with a body that never ends (a client that reads a redirect's
        body never gets there)."""
        return cls("redirect", 302, headers=(("Location", location),))

    @classmethod
    def drip(cls, every: float) -> Fault:
        """A chunked body of one byte every `every` seconds, until the client hangs up or
        the server stops."""
        return cls("drip", every=every)


@dataclass
class Seen:
    """One request as the server got it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]


@dataclass
class _Scripted:
    fault: Fault
    path: str
    query: dict[str, str]
    times: int


@dataclass
class _Feed:
    events: list[dict[str, Any]]
    page_size: int | None
    count: int | None = None  # what the pages claim, when not len(events)
    endless: bool = False  # `next` always leads on (the events again)
    extra: dict[str, Any] = field(default_factory=dict)


class ProgrammeServer:
    """The server and what it serves; use as a context manager."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self.notes: list[dict[str, Any]] = []
        self.notes_page_cap = 1000
        self.guests_allowed = True
        self.gzip = False  # answers gzipped (Content-Encoding) when the client accepts it
        self.accounts: dict[str, str] = {}
        self._feeds: dict[str, _Feed] = {}
        self._files: dict[str, bytes] = {}
        self._tokens: set[str] = set()
        self._script: list[_Scripted] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    # ------------------------------------------------------------ what it serves

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def feed_path(self, conf: str = "icml", year: int = 2026) -> str:
        return f"{FEED_FOLDER}{conf}-{year}-orals-posters.json"

    def sidecar_path(self, conf: str = "icml", year: int = 2026) -> str:
        return f"{FEED_FOLDER}{conf}-{year}-abstracts.json"

    def add_feed(
        self,
        events: list[dict[str, Any]],
        *,
        conf: str = "icml",
        year: int = 2026,
        page_size: int | None = None,
        sidecar: object = None,
        count: int | None = None,
        endless: bool = False,
    ) -> str:
        """Serve `events` as `conf`'s feed (in pages of `page_size`), with `sidecar` (JSON)
        beside it unless None (then the sidecar is 404); the feed's URL. `count` is what the
        pages claim instead of the number of events; `endless` pages on for ever, the events
        again and again."""
        self._feeds[self.feed_path(conf, year)] = _Feed(events, page_size, count, endless)
        if sidecar is not None:
            self._files[self.sidecar_path(conf, year)] = json.dumps(sidecar).encode()
        return self.base_url + self.feed_path(conf, year)

    def fail(self, path: str, *faults: Fault, times: int = 1, **query: str) -> None:
        """The next requests for `path` (whose query has `query`'s items) get `faults`, in
        order, each `times` times; then the resource again."""
        with self._lock:
            self._script.extend(_Scripted(fault, path, query, times) for fault in faults)

    def seen(self, path: str) -> list[Seen]:
        with self._lock:
            return [request for request in self.requests if request.path == path]

    # ------------------------------------------------------------ lifecycle

    def __enter__(self) -> ProgrammeServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server._handle(self)

            do_POST = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: tests read `requests`

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()  # endless and dripping answers end
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # ------------------------------------------------------------ handling

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        query = dict(parse_qsl(parts.query))
        length = int(handler.headers.get("Content-Length") or 0)
        payload = handler.rfile.read(length) if length else b""
        headers = {key.lower(): value for key, value in handler.headers.items()}
        with self._lock:
            self.requests.append(Seen(handler.command, parts.path, query, headers))
            fault = self._next_fault(parts.path, query)
        if fault is not None and fault.kind == "drop":
            handler.close_connection = True
            return
        if fault is not None and fault.kind == "answer":
            _send(handler, fault.status, fault.body, fault.content_type, fault.headers)
            return
        if fault is not None and fault.kind in _HOSTILE:
            handler.close_connection = True
            _HOSTILE[fault.kind](handler, fault, self._stopping)
            return
        status, body = self._resource(parts.path, query, payload, headers, fault)
        content_type = "application/json" if status != 404 else "text/html"
        if fault is not None and fault.kind == "truncated":
            body = body[: int(len(body) * fault.keep)]
        if fault is not None and fault.kind == "cut":
            _send(handler, status, body[: int(len(body) * fault.keep)], content_type,
                  length=len(body))  # fmt: skip
            handler.close_connection = True
            return
        if self.gzip and "gzip" in headers.get("accept-encoding", ""):
            _send(handler, status, gzip.compress(body), content_type, _GZIP)
            return
        _send(handler, status, body, content_type)

    def _next_fault(self, path: str, query: dict[str, str]) -> Fault | None:
        for scripted in self._script:
            if scripted.path == path and query.items() >= scripted.query.items():
                scripted.times -= 1
                if scripted.times <= 0:
                    self._script.remove(scripted)
                return scripted.fault
        return None

    def _resource(
        self,
        path: str,
        query: dict[str, str],
        payload: bytes,
        headers: dict[str, str],
        fault: Fault | None,
    ) -> tuple[int, bytes]:
        if path in self._feeds:
            page = self._feed_page(path, self._feeds[path], query)
            if fault is not None and fault.kind == "no_next":
                page["next"] = None
            return 200, json.dumps(page).encode()
        if path in self._files:
            return 200, self._files[path]
        if path == "/login":
            return self._login(payload)
        if path == "/notes":
            return self._notes(query, headers)
        return 404, _NOT_FOUND_PAGE

    def _feed_page(self, path: str, feed: _Feed, query: dict[str, str]) -> dict[str, Any]:
        size = feed.page_size or max(1, len(feed.events))
        page = int(query.get("page", "1"))
        start = (page - 1) * size % max(1, len(feed.events)) if feed.endless else (page - 1) * size
        events = feed.events[start : start + size]
        more = feed.endless or page * size < len(feed.events)
        link = f"{self.base_url}{path}?page="
        return {
            "count": len(feed.events) if feed.count is None else feed.count,
            "next": f"{link}{page + 1}" if more else None,
            "previous": f"{link}{page - 1}" if page > 1 else None,
            "results": events,
        }

    def _login(self, payload: bytes) -> tuple[int, bytes]:
        asked = json.loads(payload or b"{}")
        if self.accounts.get(asked.get("id")) != asked.get("password"):
            error = {"name": "Error", "message": "Invalid username or password", "status": 400}
            return 400, json.dumps(error).encode()
        token = secrets.token_hex(16)
        self._tokens.add(token)
        user = {"id": asked["id"], "profile": {"id": "~Test_User1"}}
        return 200, json.dumps({"token": token, "user": user}).encode()

    def _notes(self, query: dict[str, str], headers: dict[str, str]) -> tuple[int, bytes]:
        token = headers.get("authorization", "").removeprefix("Bearer ")
        if not self.guests_allowed and token not in self._tokens:
            error = {"name": "ForbiddenError", "message": "Forbidden", "status": 403}
            return 403, json.dumps(error).encode()
        venue = query.get("content.venueid")
        notes = [n for n in self.notes if venue is None or _venueid(n) == venue]
        offset = int(query.get("offset", "0"))
        limit = min(int(query.get("limit", "1000")), self.notes_page_cap)
        answer: dict[str, Any] = {"notes": notes[offset : offset + limit]}
        if query.get("count") == "true":
            answer["count"] = len(notes)
        return 200, json.dumps(answer).encode()


def _venueid(note: dict[str, Any]) -> object:
    return note.get("content", {}).get("venueid", {}).get("value")


def _send(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    content_type: str,
    headers: tuple[tuple[str, str], ...] = (),
    *,
    length: int | None = None,
) -> None:
    """An answer with Server and Date headers (Date overridable), and a Content-Length
    (`length` when it should not match the body)."""
    handler.send_response_only(status)
    names = {name.lower() for name, _value in headers}
    handler.send_header("Server", "stand-in")
    if "date" not in names:
        handler.send_header("Date", formatdate(usegmt=True))
    for name, value in headers:
        handler.send_header(name, value)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body) if length is None else length))
    handler.end_headers()
    handler.wfile.write(body)
    handler.wfile.flush()


_GZIP = (("Content-Encoding", "gzip"),)
_FEED_START = b'{"count": 1, "next": null, "previous": null, "results": ['
_EVENT = b'{"id": 1, "name": "Endless", "eventtype": "Poster", "abstract": "' + b"x" * 400 + b'"},'


@functools.lru_cache(maxsize=4)
def gzip_bomb(inflated: int) -> bytes:
    """A gzip member inflating to `inflated` bytes (the feed's start, then spaces), built in a
    second or two: after a full flush each megabyte of spaces compresses to the same bytes,
    so one compressed megabyte is repeated."""
    block, head = b" " * (1 << 20), _FEED_START
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    start = deflate.compress(head) + deflate.flush(zlib.Z_FULL_FLUSH)
    repeated = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    blocks, rest = divmod(max(0, inflated - len(head)), len(block))
    end = deflate.compress(block[:rest]) + deflate.flush()
    crc = zlib.crc32(head)
    for _ in range(blocks):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(block[:rest], crc)
    trailer = struct.pack(
        "<II", crc & 0xFFFFFFFF, (len(head) + blocks * len(block) + rest) & 0xFFFFFFFF
    )
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + start + repeated * blocks + end + trailer


def _bomb(handler: BaseHTTPRequestHandler, fault: Fault, stopping: threading.Event) -> None:
    body = gzip_bomb(fault.size)
    _send(handler, 200, body, "application/json", _GZIP)


def _endless(handler: BaseHTTPRequestHandler, fault: Fault, stopping: threading.Event) -> None:
    chunk = _EVENT * (65_536 // len(_EVENT))
    _chunks(handler, [_FEED_START], lambda: None if stopping.is_set() else chunk, fault)


def _drip(handler: BaseHTTPRequestHandler, fault: Fault, stopping: threading.Event) -> None:
    _chunks(handler, [], lambda: None if stopping.wait(fault.every) else b" ")


def _chunks(
    handler: BaseHTTPRequestHandler,
    first: list[bytes],
    more: Callable[[], bytes | None],
    fault: Fault | None = None,
) -> None:
    """A chunked answer (`fault`'s status and headers, else 200): `first`, then `more()`
    until it gives None or the client hangs up (the answer is never finished: no last
    chunk)."""
    handler.send_response_only(fault.status if fault else 200)
    for name, value in fault.headers if fault else ():
        handler.send_header(name, value)
    handler.send_header("Server", "stand-in")
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    try:
        for data in first:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        while (data := more()) is not None:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            handler.wfile.flush()
    except OSError:
        pass  # the client hung up: what a refusal looks like from here


_HOSTILE: dict[str, Callable[[BaseHTTPRequestHandler, Fault, threading.Event], None]] = {
    "bomb": _bomb,
    "endless": _endless,
    "redirect": _endless,
    "drip": _drip,
}
