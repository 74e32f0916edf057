"""The index cache's file format: one file holding a state of arrays and plain values.

Layout:

    MAGIC | header length (8 bytes, little-endian) | JSON header | np.savez archive

The header carries the format version, the analyzer version, the key, the archive's length
and sha256, and the state's small values; the archive holds the arrays (loaded with
`allow_pickle=False`). Files are written to a temporary name and `os.replace`d, so a reader
never sees half a file. Anything unexpected on reading raises `CacheMiss`.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "FORMAT_VERSION",
    "KEEP_FILES",
    "MAGIC",
    "CacheMiss",
    "cache_path",
    "prune",
    "read_state",
    "write_state",
]

logger = logging.getLogger(__name__)

FORMAT_VERSION = 3
"""Bump when the file layout, the cached papers' fields or the index's arrays change (2: keys
from explicit versions, papers stored per `Paper` field; 3: papers carry authors, keywords,
venue, year and labelled links)."""
KEEP_FILES = 3
"""Cache files kept per directory; older ones (other corpora or versions) are removed."""

MAGIC = b"ICMLIDX\n"
_PREFIX = "index-"
_SUFFIX = ".idx"
_MAX_HEADER_BYTES = 1 << 24
_INLINE_CHARS = 1024  # longer strings go in the archive, not the JSON header


class CacheMiss(Exception):
    """A cache file that cannot be used; the message says why."""


def cache_path(cache_dir: str | Path, key: str) -> Path:
    """Where the cache for `key` is stored."""
    return Path(cache_dir) / f"{_PREFIX}{key[:32]}{_SUFFIX}"


def write_state(path: str | Path, *, key: str, analyzer: str, state: dict[str, Any]) -> None:
    """Store `state` at `path` atomically (temporary file, then `os.replace`)."""
    path = Path(path)
    arrays, values, texts, string_lists = _split_state(state)
    archive = io.BytesIO()
    np.savez(archive, **arrays)
    payload = archive.getbuffer()
    header = {
        "format": FORMAT_VERSION,
        "analyzer": analyzer,
        "key": key,
        "archive_bytes": payload.nbytes,
        "archive_sha256": hashlib.sha256(payload).hexdigest(),
        "values": values,
        "texts": texts,
        "string_lists": string_lists,
    }
    header_bytes = json.dumps(header, sort_keys=True).encode()
    if len(header_bytes) >= _MAX_HEADER_BYTES:
        raise ValueError("index cache header too large")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC)
            out.write(len(header_bytes).to_bytes(8, "little"))
            out.write(header_bytes)
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    logger.info("index cache written: %s (%.1f MB)", path, path.stat().st_size / 1e6)


def read_state(path: str | Path, *, key: str, analyzer: str) -> dict[str, Any]:
    """The state stored at `path` under `key`; raises `CacheMiss` if it is not usable."""
    try:
        with open(path, "rb") as data:
            if data.read(len(MAGIC)) != MAGIC:
                raise CacheMiss("not an index cache file")
            size = int.from_bytes(data.read(8), "little")
            if not 0 < size < _MAX_HEADER_BYTES:
                raise CacheMiss("bad header length")
            header = json.loads(data.read(size))
            _check_header(header, key=key, analyzer=analyzer)
            payload = data.read(header["archive_bytes"] + 1)
    except OSError as error:
        raise CacheMiss(f"cannot read: {error}") from error
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise CacheMiss(f"bad header: {error!r}") from error
    if len(payload) != header["archive_bytes"]:
        raise CacheMiss("truncated" if len(payload) < header["archive_bytes"] else "trailing bytes")
    if hashlib.sha256(payload).hexdigest() != header["archive_sha256"]:
        raise CacheMiss("checksum mismatch")
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        return _join_state(arrays, header["values"], header["texts"], header["string_lists"])
    except Exception as error:  # numpy/zipfile raise many types on a malformed archive
        raise CacheMiss(f"bad archive: {error!r}") from error


def _check_header(header: Any, *, key: str, analyzer: str) -> None:
    """Raise `CacheMiss` unless the header belongs to this key, analyzer and format."""
    if not isinstance(header, dict):
        raise CacheMiss("header is not an object")
    if header.get("format") != FORMAT_VERSION:
        raise CacheMiss(f"cache format {header.get('format')!r}, want {FORMAT_VERSION}")
    if header.get("analyzer") != analyzer:
        raise CacheMiss(f"analyzer {header.get('analyzer')!r}, want {analyzer}")
    if header.get("key") != key:
        raise CacheMiss("built from other corpus files or versions")
    size = header.get("archive_bytes")
    if not isinstance(size, int) or size < 0:
        raise CacheMiss("bad archive length")


def _split_state(
    state: dict[str, Any],
) -> tuple[dict[str, np.ndarray], dict[str, Any], list[str], list[str]]:
    """Arrays for the archive, JSON values for the header, and which arrays hold strings.

    Long strings become UTF-8 byte arrays; lists of strings become one UTF-8 array plus
    character offsets (`<name>:offsets`), far smaller than numpy's fixed-width unicode.
    """
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
            joined = "".join(value)
            arrays[name] = np.frombuffer(joined.encode("utf-8", "surrogatepass"), dtype=np.uint8)
            offsets = np.zeros(len(value) + 1, dtype=np.int64)
            np.cumsum([len(v) for v in value], out=offsets[1:])
            arrays[name + ":offsets"] = offsets
            string_lists.append(name)
        else:
            values[name] = value
    return arrays, json.loads(json.dumps(values)), texts, string_lists


def _join_state(
    arrays: dict[str, np.ndarray], values: dict[str, Any], texts: list[str], string_lists: list[str]
) -> dict[str, Any]:
    """The inverse of `_split_state`."""
    state: dict[str, Any] = dict(values)
    for name in texts:
        state[name] = arrays.pop(name).tobytes().decode("utf-8", "surrogatepass")
    for name in string_lists:
        joined = arrays.pop(name).tobytes().decode("utf-8", "surrogatepass")
        offsets = arrays.pop(name + ":offsets").tolist()
        if not offsets or offsets[0] != 0 or offsets[-1] != len(joined):
            raise ValueError(f"bad offsets for {name!r}")
        state[name] = [joined[a:b] for a, b in pairwise(offsets)]
    state.update(arrays)
    return state


def prune(directory: Path, *, keep: Path) -> None:
    """Remove all but the newest `KEEP_FILES` cache files (always keeping `keep`)."""
    try:
        files = sorted(
            (p for p in directory.glob(f"{_PREFIX}*{_SUFFIX}") if p != keep),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        for old in files[KEEP_FILES - 1 :]:
            old.unlink(missing_ok=True)
        for tmp in directory.glob(f"{_PREFIX}*{_SUFFIX}.*.tmp"):
            if time.time() - tmp.stat().st_mtime > 3600:  # left by a killed writer
                tmp.unlink(missing_ok=True)
    except OSError as error:
        logger.debug("index cache: pruning %s failed: %s", directory, error)
