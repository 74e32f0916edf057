"""Whether the SQLite file at DATA_DIR is still the one a connection opened, and the rescue
when it is not (deleted by `git clean`, `rm`, or replaced by `mv` under a running bot).

A connection keeps writing to its open file after the path is unlinked: every save is then
acknowledged and lost at the next start. So the store compares the path's (device, inode)
with the one it opened before and after each call. On a mismatch it copies the open
connection's whole database (SQLite's online backup, which reads the WAL too) to a file next
to the path. Deleted: the copy is moved into place, so no row is lost. Replaced: the new file
is what someone put there on purpose, so it is served and ours is kept beside it, named in
the log, for the operator to merge.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

FileIdentity = tuple[int, int]
"""(st_dev, st_ino) of a database file."""
SIDE_FILES = ("-wal", "-shm")  # SQLite's WAL-mode companions of `<name>`


def side_path(path: Path, suffix: str) -> Path:
    """`bot.sqlite3-wal` for `bot.sqlite3` and "-wal"."""
    return path.with_name(path.name + suffix)


def identity(path: Path) -> FileIdentity | None:
    """The file's (device, inode); None when nothing is at `path`."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    return status.st_dev, status.st_ino


def still_ours(path: Path, opened: FileIdentity) -> bool:
    """Whether `path` is still the file whose identity was `opened`.

    A stat that fails for another reason (permissions, I/O) proves nothing: the call goes
    ahead and fails or succeeds on its own.
    """
    try:
        return identity(path) == opened
    except OSError:
        return True


def rescue_copy(connection: sqlite3.Connection, path: Path) -> Path:
    """A consistent copy of `connection`'s database next to `path`, named with the time."""
    path.parent.mkdir(parents=True, exist_ok=True)  # `git clean -xdf` removes the folder too
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    copy = path.with_name(f"{path.name}.rescued-{stamp}")
    target = sqlite3.connect(copy)
    try:
        connection.backup(target)
    finally:
        target.close()
    _fsync(copy)
    return copy


def side_identities(path: Path) -> dict[str, FileIdentity | None]:
    """The identity of each WAL companion of `path` (what a connection holds open)."""
    return {suffix: identity(side_path(path, suffix)) for suffix in SIDE_FILES}


def drop_stale_side_files(path: Path, ours: dict[str, FileIdentity | None]) -> None:
    """Delete the WAL companions the old connection held, if still at the path.

    Called after it closed (SQLite leaves them when its file was unlinked): opened with
    another database, a stale WAL would be replayed onto it, overwriting its pages. Those of
    the database now at the path (other identities) are kept.
    """
    for suffix, opened in ours.items():
        side = side_path(path, suffix)
        if opened is not None and identity(side) == opened:
            side.unlink(missing_ok=True)


def put_in_place(copy: Path, path: Path) -> None:
    """Make `copy` the database at `path`, where no database is (any WAL files there are
    orphans of the deleted one, already copied, and go first)."""
    for suffix in SIDE_FILES:
        side_path(path, suffix).unlink(missing_ok=True)
    os.replace(copy, path)
    _fsync(path.parent)


def _fsync(path: Path) -> None:
    """Flush a file, or a folder's entries, to disk (best effort: not every FS allows it)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
