"""Whether the SQLite file at DATA_DIR is still the one a connection opened (else every save
would go to an unlinked file), and the rescue: a copy of the open database beside the path,
moved into place if the file was deleted, kept for the operator if it was replaced."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from bot.fetch import fsync

FileIdentity = tuple[int, int]  # (st_dev, st_ino)
SIDE_FILES = ("-wal", "-shm")  # SQLite's WAL-mode companions of `<name>`


def side_path(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def identity(path: Path) -> FileIdentity | None:
    """The file's (device, inode); None when nothing is at `path`."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    return status.st_dev, status.st_ino


def still_ours(path: Path, opened: FileIdentity) -> bool:
    """Whether `path` is still the file whose identity was `opened` (a stat failing for
    another reason proves nothing: True)."""
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
    fsync(copy)
    return copy


def side_identities(path: Path) -> dict[str, FileIdentity | None]:
    """The identity of each WAL companion of `path` (what a connection holds open)."""
    return {suffix: identity(side_path(path, suffix)) for suffix in SIDE_FILES}


def drop_stale_side_files(path: Path, ours: dict[str, FileIdentity | None]) -> None:
    """Delete the WAL companions the closed connection held, if still at the path: a stale
    WAL would be replayed onto the next database opened there."""
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
    fsync(path.parent)
