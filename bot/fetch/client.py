"""The feed's HTTP client: streams each body to a file within `Limits`, inflating gzip itself a
slice at a time (so the inflated size is counted as it arrives), every network wait cut to the
idle limit and to what is left of the fetch's deadline."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

import httpcore
import httpx

from bot.fetch.http import (
    USER_AGENT,
    Answer,
    Deadline,
    FetchError,
    Limits,
    RetryPolicy,
    Say,
    check,
    transfer_failed,
)

HEAD = 20_000  # the start of a body kept to describe it (an HTML page's title)
MAX_REDIRECTS = 10
SLICE = 1 << 20  # at most this much inflated at a time
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class Budget:
    """The decoded bytes one download (a feed's pages together) may hold, as they arrive."""

    def __init__(self, ceiling: int, what: str = "") -> None:
        self.ceiling, self.what = ceiling, what
        self.read = self.wire = self._mark = 0

    def start(self) -> None:
        """A new answer begins here (`rewind` forgets it, as a retry does)."""
        self._mark = self.read

    def rewind(self) -> None:
        self.read = self._mark

    @property
    def this(self) -> int:
        """Decoded bytes of the current answer."""
        return self.read - self._mark

    def add(self, decoded: int) -> None:
        """Count `decoded` bytes; FetchError naming the ceiling once past it."""
        self.read += decoded
        if self.read > self.ceiling:
            raise FetchError(
                f"over the {self.ceiling / 1e6:,.0f} MB ceiling of one download (--max-bytes "
                f"{self.ceiling}){self.what}: {self.stopped(self.read)}{self._inflated()}"
            )

    def stopped(self, count: int | None = None) -> str:
        """`stopped after 1,234 bytes` (the current answer's, unless `count`)."""
        count = self.this if count is None else count
        return f"stopped after {count:,} byte{'' if count == 1 else 's'}"

    def _inflated(self) -> str:
        return f", inflated from {self.wire:,} bytes sent" if self.wire < self.read // 2 else ""


class _Decoder:
    """A body's Content-Encoding undone a slice at a time: identity, gzip or deflate."""

    def __init__(self, encoding: str) -> None:
        name = encoding.strip().lower()
        self.name = name
        if name not in ("", "identity", *_WBITS):
            raise FetchError(f"the body is encoded as {encoding!r}, which fetch does not read")
        self._inflate = zlib.decompressobj(_WBITS[name]) if name in _WBITS else None

    def decode(self, data: bytes) -> Iterator[bytes]:
        inflate = self._inflate
        if inflate is None:
            yield data
            return
        try:
            out = inflate.decompress(data, SLICE)
            while True:
                yield out
                if not inflate.unconsumed_tail and len(out) < SLICE:
                    return  # a full slice may leave more inside zlib: ask again
                out = inflate.decompress(inflate.unconsumed_tail, SLICE)
        except zlib.error as exc:
            raise FetchError(f"the {self.name} body does not inflate ({exc})") from None


def decoded(
    raws: Iterable[bytes], encoding: str, budget: Budget, deadline: Deadline
) -> Iterator[bytes]:
    """A body as sent (`raws`, in `encoding`), decoded a slice at a time, each counted in
    `budget`; FetchError past its ceiling, or past `deadline` after a read."""
    decoder = _Decoder(encoding)
    for raw in raws:
        budget.wire += len(raw)
        for chunk in decoder.decode(raw):
            budget.add(len(chunk))
            yield chunk
        deadline.check(budget.stopped())


def timed_out(deadline: Deadline, idle: float, budget: Budget, exc: Exception) -> FetchError:
    """A wait for data that ended: past the whole fetch's deadline, else the idle limit."""
    if deadline.left() <= 0:
        return deadline.refusal(budget.stopped())
    return FetchError(
        f"no data for {idle:g} s, the idle limit of each read: {budget.stopped()} "
        f"({type(exc).__name__})"
    )


class Http:
    """The feed's client: retries per `policy`, within `limits` (its deadline starts now)."""

    def __init__(self, policy: RetryPolicy, say: Say, limits: Limits | None = None) -> None:
        self.policy, self.say = policy, say
        self.limits = limits = limits or Limits()
        self.deadline = Deadline(limits.timeout, limits.clock)
        self._client = httpx.Client(
            headers={"User-Agent": USER_AGENT, "Accept": "application/json",
                     "Accept-Encoding": "gzip, deflate"},
            timeout=httpx.Timeout(limits.idle, connect=min(15.0, limits.idle)),
        )  # fmt: skip
        _bound_waits(self._client, self.deadline)

    def download(self, url: str, sink: BinaryIO, budget: Budget) -> Answer:
        """The checked answer at `url` (see `check`), after retries, its body written to
        `sink` (from where it stands) and counted in `budget`; the answer keeps its start."""
        start = sink.tell()

        def attempt() -> Answer:
            sink.seek(start)
            sink.truncate()
            budget.rewind()
            return self._download_once(url, sink, budget)

        return self.policy.run(attempt, self.say, self.deadline)

    def _download_once(self, url: str, sink: BinaryIO, budget: Budget) -> Answer:
        self.deadline.check("nothing more was asked")
        budget.start()
        try:
            answer = self._follow(url, sink, budget)
        except httpx.TimeoutException as exc:
            raise timed_out(self.deadline, self.limits.idle, budget, exc) from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise transfer_failed(exc) from exc
        check(answer)
        return answer

    def _follow(self, url: str, sink: BinaryIO, budget: Budget) -> Answer:
        """The answer at `url` after its redirects, whose bodies are never read (httpx's own
        following reads each whole, in memory, however long)."""
        request = self._client.build_request("GET", url)
        for _redirect in range(MAX_REDIRECTS + 1):
            response = self._client.send(request, stream=True)
            try:
                if response.next_request is None:
                    return self._read(response, sink, budget)
                request = response.next_request
            finally:
                response.close()
        raise FetchError(f"more than {MAX_REDIRECTS} redirects from {url}")

    def _read(self, response: httpx.Response, sink: BinaryIO, budget: Budget) -> Answer:
        """The body into `sink` (an error's only counted), decoded, within the limits."""
        keep = 200 <= response.status_code <= 299
        encoding = response.headers.get("content-encoding", "")
        head = bytearray()
        for chunk in decoded(response.iter_raw(), encoding, budget, self.deadline):
            if len(head) < HEAD:
                head += chunk[: HEAD - len(head)]
            if keep:
                sink.write(chunk)
        return Answer(
            str(response.url), response.status_code, response.headers, bytes(head), budget.this
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Http:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _BoundedStream(httpcore.NetworkStream):
    """A connection whose every wait ends by the deadline."""

    def __init__(self, stream: httpcore.NetworkStream, deadline: Deadline) -> None:
        self._stream, self._deadline = stream, deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._deadline.bound(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._deadline.bound(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:  # fmt: skip
        tls = self._stream.start_tls(ssl_context, server_hostname, self._deadline.bound(timeout))
        return _BoundedStream(tls, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _BoundedBackend(httpcore.NetworkBackend):
    """Connections (TCP or a Unix socket) that are `_BoundedStream`s."""

    def __init__(self, backend: httpcore.NetworkBackend, deadline: Deadline) -> None:
        self._backend, self._deadline = backend, deadline

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None,
                    ) -> httpcore.NetworkStream:  # fmt: skip
        stream = self._backend.connect_tcp(
            host, port, self._deadline.bound(timeout), local_address, socket_options
        )
        return _BoundedStream(stream, self._deadline)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore.NetworkStream:  # fmt: skip
        stream = self._backend.connect_unix_socket(
            path, self._deadline.bound(timeout), socket_options
        )
        return _BoundedStream(stream, self._deadline)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _bound_waits(client: httpx.Client, deadline: Deadline) -> None:
    """Cut every network wait of `client` (and its proxies') to what is left of `deadline`. httpx's
    per-request read timeout never trips on a server dripping a byte at a time, so the cut goes into
    httpcore's network backend (not public API: an httpcore change fails here, not silently)."""
    transports = [client._transport, *client._mounts.values()]
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, httpcore.NetworkBackend):
            pool._network_backend = _BoundedBackend(backend, deadline)  # type: ignore[union-attr]
        elif transport is client._transport:
            raise RuntimeError("httpcore's pool has no _network_backend: bound waits elsewhere")
