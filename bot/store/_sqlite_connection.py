"""Opening the SQLite file (WAL mode, durable writes, migrations), which file was opened, and
the write transaction every change runs in."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bot.store import _queries as q
from bot.store import _sqlite_file as files
from bot.store._migrations import CREATE_VERSION_TABLE, load_migrations, pending
from bot.store.model import StoreOpenError

T = TypeVar("T")
SETTING = "DATA_DIR"  # what an error opening the file names: the file lives under it
WAL_RETRY_SECONDS = 0.01  # ours: between attempts to switch a new file to WAL
MIN_SQLITE = (3, 35)  # INSERT … RETURNING (claim_alerts); Python 3.11's builds ship newer


class Opened:
    """Where the store's file is and which file the connection opened."""

    def __init__(self, path: Path, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self.identity: files.FileIdentity | None = None
        self.sides: dict[str, files.FileIdentity | None] = {}

    def connect(self) -> sqlite3.Connection:
        """Open (creating, migrating) the file at the path and remember what it opened."""
        connection = open_database(self.path, self.timeout)
        # After the migration's write, so the -wal and -shm it keeps open exist.
        self.identity = files.identity(self.path)
        self.sides = files.side_identities(self.path)
        return connection

    def still_ours(self) -> bool:
        return self.identity is None or files.still_ours(self.path, self.identity)


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
        db.execute(CREATE_VERSION_TABLE)
        current = db.execute(q.SCHEMA_VERSION).fetchone()[0]
        for migration in pending(load_migrations("sqlite"), current, SETTING):
            for statement in migration.statements:
                db.execute(statement)
            db.execute(q.RECORD_VERSION, (migration.version,))

    write(work)(db)
