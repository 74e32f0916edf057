"""A private copy of a cache file, so nothing done to the file can reach a running reader.

A memory map shares the file's pages: `cp` over a mapped cache truncates it in place, and
the next touch of a cut page killed the bot with SIGBUS; bytes changed in place changed
answers after their checksum was checked. So a reader maps a copy no other process can name:
an unlinked file beside the cache (Linux `O_TMPFILE`, else a temporary file unlinked at
once), filled in the kernel (`copy_file_range`). Its pages are file-backed like the
original's, so memory is as before; the start pays one copy, made in the kernel. Where no
file can be made there (read-only or full directory), the copy is in memory (`memfd`, or an
anonymous temporary file), costing its size in RAM instead.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO

__all__ = ["open_private"]

logger = logging.getLogger(__name__)

_NOT_SUPPORTED = frozenset({errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EBADF})
"""copy_file_range's "not between these files": copy through user space instead."""


def open_private(path: Path) -> BinaryIO:
    """A copy of the file at `path`, open for reading at its start, that only we can reach.

    Raises OSError when `path` cannot be read; a file cut or replaced while it is copied
    gives a copy whose length or checksum the caller finds wrong.
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
