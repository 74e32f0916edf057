"""The SQLite file: opened (WAL mode, durable writes, migrations), the write transaction, and
the rescue when the file at DATA_DIR is no longer the one opened (saves would go to an unlinked
file): a copy of the open database, moved into place if the file was deleted, else kept."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from bot.fetch import fsync
from bot.store import _queries as q
from bot.store.model import StoreOpenError

T = TypeVar("T")
SETTING = "DATA_DIR"  # what an error opening the file names: the file lives under it
WAL_RETRY_SECONDS = 0.01  # between attempts to switch a new file to WAL
MIN_SQLITE = (3, 35)  # INSERT … RETURNING (claim_alerts); Python 3.11's builds ship newer
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
    """Whether `path` is still the file `opened` (a failing stat proves nothing: True)."""
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


def drop_stale_side_files(path: Path, held: dict[str, FileIdentity | None]) -> None:
    """Delete the WAL companions the closed connection held, if still at the path: a stale
    WAL would be replayed onto the next database opened there."""
    for suffix, opened in held.items():
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


class Opened:
    """Where the store's file is and which file the connection opened."""

    def __init__(self, path: Path, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self.identity: FileIdentity | None = None
        self.sides: dict[str, FileIdentity | None] = {}

    def connect(self) -> sqlite3.Connection:
        """Open (creating, migrating) the file at the path and remember what it opened."""
        connection = open_database(self.path, self.timeout)
        # After the migration's write, so the -wal and -shm it keeps open exist.
        self.identity = identity(self.path)
        self.sides = side_identities(self.path)
        return connection

    def still_ours(self) -> bool:
        return self.identity is None or still_ours(self.path, self.identity)


def write(work: Callable[[sqlite3.Connection], T]) -> Callable[[sqlite3.Connection], T]:
    """`work` inside BEGIN IMMEDIATE … COMMIT: one writer at a time across processes."""

    def transaction(db: sqlite3.Connection) -> T:
        # IMMEDIATE takes the write lock up front, so the cap's count cannot go stale
        # between reading it and inserting (another process waits on busy_timeout).
        db.execute("BEGIN IMMEDIATE")
        try:
            result = work(db)
            db.execute("COMMIT")
        except BaseException:
            # A failed COMMIT can leave the transaction open; the next BEGIN would then fail.
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        return result

    return transaction


def open_database(path: Path, timeout: float) -> sqlite3.Connection:
    """Open `path` in WAL mode and apply pending migrations in one transaction."""
    if sqlite3.sqlite_version_info < MIN_SQLITE:
        wanted = ".".join(map(str, MIN_SQLITE))
        raise StoreOpenError(SETTING, f"SQLite {sqlite3.sqlite_version} is older than {wanted}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreOpenError(SETTING, f"cannot create {path.parent}: {exc.strerror}") from exc
    try:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves (see write).
        db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise StoreOpenError(SETTING, f"cannot open {path}: {exc}") from exc
    try:
        _enable_wal(db, timeout)
        # FULL: an acknowledged save survives power loss too, not only a killed process.
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        _migrate(db)
    except sqlite3.Error as exc:
        db.close()
        raise StoreOpenError(SETTING, f"cannot use {path}: {exc}") from exc
    except BaseException:
        db.close()
        raise
    return db


def _enable_wal(db: sqlite3.Connection, timeout: float) -> None:
    """Switch the file to WAL (persistent), retrying while another process holds it."""
    # Switching needs the file to itself and SQLite skips the busy handler for it, so two
    # processes opening a brand-new file at once would otherwise fail with "locked".
    deadline = time.monotonic() + timeout
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(WAL_RETRY_SECONDS)


def _migrate(db: sqlite3.Connection) -> None:
    """Apply the migrations this file lacks, all or none."""

    def work(db: sqlite3.Connection) -> None:
        db.execute(q.CREATE_VERSION_TABLE)
        current = db.execute(q.SCHEMA_VERSION).fetchone()[0]
        for migration in q.pending(q.load_migrations("sqlite"), current, SETTING):
            for statement in migration.statements:
                db.execute(statement)
            db.execute(q.RECORD_VERSION, (migration.version,))

    write(work)(db)
