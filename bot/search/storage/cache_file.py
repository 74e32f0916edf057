"""The cache's file format: one file of numpy arrays and plain values, memory-mapped.

    MAGIC | header length (8 bytes, little-endian) | JSON header | zero padding to 64 bytes
    | payload: the arrays' raw bytes, each at a 64-byte aligned offset | trailer

The trailer is two little-endian CRC-32s, of header and payload. Anything unexpected on
reading raises `CacheMiss`.
"""

from __future__ import annotations

import errno
import json
import logging
import mmap
import os
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO

import numpy as np

from bot.search.storage.columns import CacheMiss, TextColumn

logger = logging.getLogger(__name__)

LAYOUT_VERSION = 1
"""The container every cache file shares: bump when `write_state`/`read_state` change. Kept
apart from `FORMAT_VERSION`, so a new index format keeps other caches (the papers' vectors)."""

FORMAT_VERSION = 13
"""What the index cache holds: bump when the cached papers' fields or the index's arrays change."""

MAGIC = b"ICMLIDX\n"
_MAX_HEADER_BYTES = 1 << 24
_INLINE_CHARS = 1024  # longer strings go in the payload, not the JSON header
_ALIGN = 64
_TRAILER = 8
_CHUNK = 1 << 20
# Plain numeric dtypes only: no objects, nothing that needs pickle.
_DTYPES = frozenset(
    np.dtype(t).str for t in ("u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8", "f4", "f8", "?")
)


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def write_state(
    path: str | Path,
    *,
    key: str,
    analyzer: str,
    state: dict[str, Any],
    version: int = FORMAT_VERSION,
) -> None:
    """Store `state` at `path` atomically; `version` is in its owner's numbering."""
    path = Path(path)
    arrays, values, texts, string_lists = _split_state(state)
    layout, end = _layout(arrays)
    header = {
        "layout": LAYOUT_VERSION,
        "format": version,
        "analyzer": analyzer,
        "key": key,
        "payload_bytes": end,
        "arrays": layout,
        "values": values,
        "texts": texts,
        "string_lists": string_lists,
    }
    header_bytes = json.dumps(header, sort_keys=True).encode()
    if len(header_bytes) >= _MAX_HEADER_BYTES:
        raise ValueError("index cache header too large")
    path.parent.mkdir(parents=True, exist_ok=True)
    with replaced(path, "wb") as out:
        start = len(MAGIC) + 8 + len(header_bytes)
        out.write(MAGIC)
        out.write(len(header_bytes).to_bytes(8, "little"))
        out.write(header_bytes)
        out.write(bytes(_aligned(start) - start))
        crc = _write_payload(out, arrays, layout)
        out.write(zlib.crc32(header_bytes).to_bytes(4, "little"))
        out.write(crc.to_bytes(4, "little"))
        out.flush()
        os.fsync(out.fileno())
    logger.info("index cache written: %s (%.1f MB)", path, path.stat().st_size / 1e6)


def _layout(arrays: dict[str, np.ndarray]) -> tuple[dict[str, list[Any]], int]:
    """Each array's [dtype, shape, offset] in the payload (64-byte aligned), and its length."""
    layout: dict[str, list[Any]] = {}
    end = 0
    for name, array in arrays.items():
        end = _aligned(end)
        layout[name] = [array.dtype.str, list(array.shape), end]
        end += array.nbytes
    return layout, end


def _write_payload(out: BinaryIO, arrays: dict[str, np.ndarray], layout: dict[str, Any]) -> int:
    """Write each array at its `layout` offset (zero padding between); the payload's crc32."""
    crc, written = 0, 0
    for name, array in arrays.items():
        pad = bytes(layout[name][2] - written)
        data = memoryview(np.ascontiguousarray(array)).cast("B")
        for chunk in (pad, data):
            out.write(chunk)
            crc = zlib.crc32(chunk, crc)
            written += len(chunk)
    return crc


def read_state(
    path: str | Path, *, key: str, analyzer: str, version: int = FORMAT_VERSION
) -> dict[str, Any]:
    """The state at `path` under `key`, arrays read-only over a private copy; else `CacheMiss`."""
    try:
        with open_private(Path(path)) as data:
            if data.read(len(MAGIC)) != MAGIC:
                raise CacheMiss("not an index cache file")
            size = int.from_bytes(data.read(8), "little")
            if not 0 < size < _MAX_HEADER_BYTES:
                raise CacheMiss("bad header length")
            header_bytes = data.read(size)
            header = json.loads(header_bytes)
            _check_header(header, key=key, analyzer=analyzer, version=version)
            start = _aligned(len(MAGIC) + 8 + size)
            payload = header["payload_bytes"]
            actual = os.fstat(data.fileno()).st_size
            if actual != start + payload + _TRAILER:
                raise CacheMiss(
                    "truncated" if actual < start + payload + _TRAILER else "trailing bytes"
                )
            data.seek(start + payload)
            trailer = data.read(_TRAILER)
            if int.from_bytes(trailer[:4], "little") != zlib.crc32(header_bytes):
                raise CacheMiss("header checksum mismatch")
            data.seek(start)
            if int.from_bytes(trailer[4:], "little") != _crc32(data, payload):
                raise CacheMiss("checksum mismatch")
            mapped = mmap.mmap(data.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as error:
        raise CacheMiss(f"cannot read: {error}") from error
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise CacheMiss(f"bad header: {error!r}") from error
    try:
        arrays = _arrays(mapped, start, payload, header["arrays"])
        return _join_state(arrays, header["values"], header["texts"], header["string_lists"])
    except Exception as error:  # any malformed layout or state is a miss
        raise CacheMiss(f"bad arrays: {error!r}") from error


def _crc32(data: Any, size: int) -> int:
    """CRC-32 of the next `size` bytes of the open file `data`, read in chunks."""
    crc, left = 0, size
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    while left > 0:
        n = data.readinto(view[: min(_CHUNK, left)])
        if not n:
            break
        crc = zlib.crc32(view[:n], crc)
        left -= n
    return crc


def _arrays(
    mapped: mmap.mmap, start: int, payload: int, layout: dict[str, Any]
) -> dict[str, np.ndarray]:
    """Read-only arrays over `mapped` as `layout` places them; `ValueError` if one does not fit."""
    arrays = {}
    for name, (dtype, shape, offset) in layout.items():
        if dtype not in _DTYPES or not all(isinstance(n, int) and n >= 0 for n in shape):
            raise ValueError(f"array {name!r}: bad dtype or shape")
        kind = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        if not isinstance(offset, int) or offset < 0 or offset + count * kind.itemsize > payload:
            raise ValueError(f"array {name!r} outside the payload")
        array = np.frombuffer(mapped, dtype=kind, count=count, offset=start + offset)
        arrays[name] = array.reshape(shape)
    return arrays


def _check_header(header: Any, *, key: str, analyzer: str, version: int) -> None:
    """Raise `CacheMiss` unless the header belongs to this layout, key, analyzer and format."""
    if not isinstance(header, dict):
        raise CacheMiss("header is not an object")
    if header.get("layout") != LAYOUT_VERSION:
        raise CacheMiss(f"cache layout {header.get('layout')!r}, want {LAYOUT_VERSION}")
    if header.get("format") != version:
        raise CacheMiss(f"cache format {header.get('format')!r}, want {version}")
    if header.get("analyzer") != analyzer:
        raise CacheMiss(f"analyzer {header.get('analyzer')!r}, want {analyzer}")
    if header.get("key") != key:
        raise CacheMiss("built from other corpus files or versions")
    size = header.get("payload_bytes")
    if not isinstance(size, int) or size < 0:
        raise CacheMiss("bad payload length")


def _split_state(
    state: dict[str, Any],
) -> tuple[dict[str, np.ndarray], dict[str, Any], list[str], list[str]]:
    """Arrays for the payload, JSON values for the header, and which arrays hold strings."""
    arrays: dict[str, np.ndarray] = {}
    values: dict[str, Any] = {}
    texts: list[str] = []
    string_lists: list[str] = []
    for name, value in state.items():
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise TypeError(f"state {name!r}: object arrays would need pickle")
            arrays[name] = value
        elif isinstance(value, str) and len(value) > _INLINE_CHARS:
            arrays[name] = np.frombuffer(value.encode("utf-8", "surrogatepass"), dtype=np.uint8)
            texts.append(name)
        elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            encoded = [v.encode("utf-8", "surrogatepass") for v in value]
            arrays[name] = np.frombuffer(b"".join(encoded), dtype=np.uint8)
            offsets = np.zeros(len(value) + 1, dtype=np.int64)
            np.cumsum([len(v) for v in encoded], out=offsets[1:])
            arrays[name + ":offsets"] = offsets
            string_lists.append(name)
        else:
            values[name] = value
    return arrays, json.loads(json.dumps(values)), texts, string_lists


def _join_state(
    arrays: dict[str, np.ndarray], values: dict[str, Any], texts: list[str], string_lists: list[str]
) -> dict[str, Any]:
    """The inverse of `_split_state`, but lists of strings come back as lazy `TextColumn`s."""
    state: dict[str, Any] = dict(values)
    for name in texts:
        state[name] = arrays.pop(name).tobytes().decode("utf-8", "surrogatepass")
    for name in string_lists:
        state[name] = TextColumn(arrays.pop(name), arrays.pop(name + ":offsets"))
    state.update(arrays)
    return state


_NOT_SUPPORTED = frozenset({errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EBADF})
"""copy_file_range's "not between these files": copy through user space instead."""


def open_private(path: Path) -> BinaryIO:
    """A copy of the file at `path` that no other process can reach, open at its start.

    Mapping the cache itself let `cp` over it truncate mapped pages (SIGBUS), so the map is of an
    unlinked copy. OSError when `path` cannot be read.
    """
    with open(path, "rb") as source:
        size = os.fstat(source.fileno()).st_size
        try:
            copy = _unlinked(path.parent)
            _copy(source, copy, size)
        except OSError as error:  # no room or no write access beside the cache: memory
            logger.info("index cache: copying %s into memory (%s)", path, error)
            source.seek(0)
            copy = _in_memory()
            _copy(source, copy, size)
    copy.seek(0)
    return copy


def _unlinked(directory: Path) -> BinaryIO:
    """A new file in `directory` with no name (nobody can open, truncate or rewrite it)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if flag:
        try:
            return os.fdopen(os.open(directory, flag | os.O_RDWR, 0o600), "w+b")
        except OSError:
            pass  # a file system without O_TMPFILE: the portable way below
    fd, name = tempfile.mkstemp(prefix=".private-", dir=directory)
    os.unlink(name)
    return os.fdopen(fd, "w+b")


def _in_memory() -> BinaryIO:
    """An anonymous file in memory."""
    if hasattr(os, "memfd_create"):
        return os.fdopen(os.memfd_create("index-cache"), "w+b")
    return tempfile.TemporaryFile()  # closed by the caller


def _copy(source: BinaryIO, copy: BinaryIO, size: int) -> None:
    """Copy `size` bytes from the start of `source` (in the kernel where it can)."""
    offset = 0
    try:
        while offset < size:
            copied = os.copy_file_range(
                source.fileno(), copy.fileno(), size - offset, offset, offset
            )
            if not copied:
                break  # the file was cut meanwhile: the caller's length check says so
            offset += copied
        return
    except (AttributeError, OSError) as error:  # no copy_file_range, or not between these
        if isinstance(error, OSError) and error.errno not in _NOT_SUPPORTED:
            raise
    source.seek(offset)
    copy.seek(offset)
    shutil.copyfileobj(source, copy)
    copy.flush()


SHARED_MODE = 0o644


@contextmanager
def replaced(path: Path, mode: str = "w") -> Iterator[IO[Any]]:
    """A temporary file beside `path`, moved onto it after the block (removed if it raises)."""
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, SHARED_MODE)  # mkstemp's 0600 would hide it from replicas run as others
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as out:
            yield out
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
