"""Corpus files' hashes, reused while a file's stat stamp is unchanged (git's index rule).

An unchanged corpus is then not read again at every start; any write changes the
file's ctime, which no user can set back, so an edit is never missed.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path
from typing import Any

from bot.search.storage.files import write_json

__all__ = ["STAMPS_FILE", "file_digest", "write_stamps"]

logger = logging.getLogger(__name__)

_CHUNK = 1 << 20
_RACY_NS = 2_000_000_000
STAMPS_FILE = "corpus-stamps.json"
"""In the cache directory: each corpus file's sha256 with the stat stamp it was taken at."""


def file_digest(path: Path, stamps: dict[str, list[Any]] | None = None) -> bytes:
    """sha256 of a file's bytes, read in chunks; reused from `stamps` while the file is unchanged.

    A stamp is (device, inode, size, mtime, ctime), git's index rule: any write changes the
    ctime, which no user can set back. A file changed within `_RACY_NS` of being hashed gets no
    stamp (its next change could share the timestamp), so it is hashed again next time.
    """
    info = path.stat()
    stamp = [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]
    name = str(path.resolve())
    known = stamps.get(name) if stamps is not None else None
    if isinstance(known, list) and known[:-1] == stamp and isinstance(known[-1], str):
        return bytes.fromhex(known[-1])
    digest = hashlib.sha256()
    with path.open("rb") as data:
        while chunk := data.read(_CHUNK):
            digest.update(chunk)
    if stamps is not None:
        if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > _RACY_NS:
            stamps[name] = [*stamp, digest.hexdigest()]
        else:
            stamps.pop(name, None)
    return digest.digest()


def write_stamps(path: Path, stamps: dict[str, list[Any]]) -> None:
    """Replace the stamps file atomically; a failure only costs a re-hash next time.

    Only into an existing cache directory (one that holds or held a cache: a small corpus,
    never cached, leaves no file behind); entries of files that are gone are dropped.
    """
    if not path.parent.is_dir():
        return
    stamps = {name: stamp for name, stamp in stamps.items() if os.path.exists(name)}
    try:
        write_json(path, stamps)
    except OSError as error:
        logger.debug("index cache: cannot write %s (%s)", path, error)
