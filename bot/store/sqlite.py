"""`Store` on one SQLite file in WAL mode; each transaction runs whole on the store's thread."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from bot.store import _queries as q
from bot.store._migrations import CREATE_VERSION_TABLE, load_migrations, pending
from bot.store.model import (
    FollowOutcome,
    Limits,
    SavedPaper,
    SaveOutcome,
    StoreOpenError,
    StoreUnavailable,
    check_language,
    check_page,
    check_topic,
    clean_paper,
    clean_text,
    normalize_topic,
    topic_key,
)

T = TypeVar("T")
DEFAULT_TIMEOUT = 5.0  # seconds a write waits for another process's lock before giving up
WAL_RETRY_SECONDS = 0.01  # ours: between attempts to switch a new file to WAL
MIN_SQLITE = (3, 35)  # INSERT … RETURNING (claim_alerts); Python 3.11's builds ship newer


class SqliteStore:
    """The default store: a file under DATA_DIR, no set-up; several processes may share it."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        executor: ThreadPoolExecutor,
        limits: Limits,
    ) -> None:
        """Use `SqliteStore.open`."""
        self._connection = connection
        self._executor = executor
        self.limits = limits

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        limits: Limits = Limits(),  # noqa: B008 -- frozen, so one shared default is safe
        timeout: float = DEFAULT_TIMEOUT,
        setting: str = "DATA_DIR",
    ) -> SqliteStore:
        """Open (creating if needed) and migrate `path`; StoreOpenError names `setting`."""
        # One thread per store: a whole transaction is one call on it, so two tasks'
        # transactions can never interleave on the shared connection.
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store-sqlite")
        loop = asyncio.get_running_loop()
        try:
            connection = await loop.run_in_executor(executor, _connect, path, timeout, setting)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(connection, executor, limits)

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on the store's thread; a database that does not answer is StoreUnavailable."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, work, self._connection)
        except sqlite3.OperationalError as exc:
            raise StoreUnavailable(f"SQLite: {exc}") from exc

    async def save(self, user_id: int, paper: SavedPaper) -> SaveOutcome:
        """Save a paper snapshot; saving it again keeps one row (and its first snapshot)."""
        paper = clean_paper(paper)
        params = q.save_params(user_id, paper, self.limits.max_saved)

        def work(db: sqlite3.Connection) -> SaveOutcome:
            db.execute(q.ADD_USER, (user_id,))
            if db.execute(q.SAVE_UNDER_CAP, params).rowcount == 1:
                return SaveOutcome.SAVED
            if db.execute(q.IS_SAVED, (user_id, paper.paper_id)).fetchone():
                return SaveOutcome.ALREADY_SAVED
            return SaveOutcome.LIMIT_REACHED

        return await self._run(_write(work))

    async def remove(self, user_id: int, paper_id: str) -> bool:
        """Remove a saved paper; False when it was not saved."""
        paper_id = clean_text(paper_id)
        params = (user_id, paper_id)
        return await self._run(_write(lambda db: db.execute(q.REMOVE, params).rowcount > 0))

    async def list_saved(
        self, user_id: int, *, offset: int = 0, limit: int = 10
    ) -> tuple[SavedPaper, ...]:
        """Saved papers, newest first, `limit` of them from `offset`."""
        check_page(offset, limit)
        rows = await self._run(
            lambda db: db.execute(q.LIST_SAVED, (user_id, limit, offset)).fetchall()
        )
        return tuple(q.paper_from_row(row) for row in rows)

    async def count_saved(self, user_id: int) -> int:
        """How many papers the user has saved."""
        return await self._run(lambda db: db.execute(q.COUNT_SAVED, (user_id,)).fetchone()[0])

    async def is_saved(self, user_id: int, paper_id: str) -> bool:
        """Whether the user has saved this paper."""
        paper_id = clean_text(paper_id)
        row = await self._run(lambda db: db.execute(q.IS_SAVED, (user_id, paper_id)).fetchone())
        return row is not None

    async def saved_among(self, user_id: int, paper_ids: Iterable[str]) -> frozenset[str]:
        """Which of `paper_ids` the user has saved (one query for a page of buttons)."""
        wanted = frozenset(paper_ids)
        if not wanted:
            return frozenset()
        rows = await self._run(lambda db: db.execute(q.SAVED_IDS, (user_id,)).fetchall())
        stored = {row[0] for row in rows}
        return frozenset(pid for pid in wanted if clean_text(pid) in stored)  # as save stored it

    async def export_rows(self, user_id: int) -> tuple[SavedPaper, ...]:
        """Every saved paper, newest first, for `bot.store.export`."""
        rows = await self._run(lambda db: db.execute(q.EXPORT, (user_id,)).fetchall())
        return tuple(q.paper_from_row(row) for row in rows)

    async def follow(self, user_id: int, topic: str) -> FollowOutcome:
        """Follow a topic (whitespace collapsed; case-insensitively unique per user)."""
        rejected = check_topic(topic, self.limits)
        if rejected:
            return rejected
        text, key = normalize_topic(topic), topic_key(topic)

        def work(db: sqlite3.Connection) -> FollowOutcome:
            db.execute(q.ADD_USER, (user_id,))
            params = (user_id, text, key, user_id, self.limits.max_topics)
            if db.execute(q.FOLLOW_UNDER_CAP, params).rowcount == 1:
                return FollowOutcome.FOLLOWED
            if db.execute(q.IS_FOLLOWED, (user_id, key)).fetchone():
                return FollowOutcome.ALREADY_FOLLOWING
            return FollowOutcome.LIMIT_REACHED

        return await self._run(_write(work))

    async def unfollow(self, user_id: int, topic: str) -> bool:
        """Stop following a topic (matched case-insensitively); False when not followed."""
        params = (user_id, topic_key(topic))
        return await self._run(_write(lambda db: db.execute(q.UNFOLLOW, params).rowcount > 0))

    async def topics(self, user_id: int) -> tuple[str, ...]:
        """The user's topics in the order they were followed."""
        rows = await self._run(lambda db: db.execute(q.TOPICS, (user_id,)).fetchall())
        return tuple(row[0] for row in rows)

    async def followers(self) -> Mapping[int, tuple[str, ...]]:
        """Every user with topics, mapped to them (for alerts after a corpus reload)."""
        return q.group_followers(await self._run(lambda db: db.execute(q.FOLLOWERS).fetchall()))

    async def claim_alerts(self, user_id: int, paper_ids: Iterable[str]) -> frozenset[str]:
        """Record alerts about `paper_ids` as sent to the user; returns the ids newly claimed."""
        wanted = sorted(set(paper_ids))

        def work(db: sqlite3.Connection) -> frozenset[str]:
            # RETURNING needs SQLite 3.35+; executemany cannot return rows, so one per id.
            rows = (db.execute(q.CLAIM_ALERT, (user_id, pid)).fetchone() for pid in wanted)
            return frozenset(row[0] for row in rows if row is not None)

        return await self._run(_write(work)) if wanted else frozenset()

    async def release_alerts(self, user_id: int, paper_ids: Iterable[str]) -> None:
        """Forget claims whose alert could not be sent, so a later reload may send it."""
        params = [(user_id, pid) for pid in sorted(set(paper_ids))]
        if params:
            await self._run(_write(lambda db: db.executemany(q.RELEASE_ALERT, params)))

    async def get_language(self, user_id: int) -> str | None:
        """The user's language preference; None when never set."""
        row = await self._run(lambda db: db.execute(q.GET_LANGUAGE, (user_id,)).fetchone())
        return row[0] if row else None

    async def set_language(self, user_id: int, language: str) -> None:
        """Store the user's language preference (a short tag such as "en")."""
        tag = check_language(language)
        await self._run(_write(lambda db: db.execute(q.SET_LANGUAGE, (user_id, tag))))

    async def forget_user(self, user_id: int) -> None:
        """Delete everything stored about the user."""

        def work(db: sqlite3.Connection) -> None:
            for statement in q.FORGET:
                db.execute(statement, (user_id,))

        await self._run(_write(work))

    async def close(self) -> None:
        """Close the connection and stop the store's thread."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._connection.close)
        self._executor.shutdown(wait=True)


def _write(work: Callable[[sqlite3.Connection], T]) -> Callable[[sqlite3.Connection], T]:
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


def _connect(path: Path, timeout: float, setting: str) -> sqlite3.Connection:
    """Open `path` in WAL mode and apply pending migrations in one transaction."""
    if sqlite3.sqlite_version_info < MIN_SQLITE:
        wanted = ".".join(map(str, MIN_SQLITE))
        raise StoreOpenError(setting, f"SQLite {sqlite3.sqlite_version} is older than {wanted}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreOpenError(setting, f"cannot create {path.parent}: {exc.strerror}") from exc
    try:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves (see _write).
        db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise StoreOpenError(setting, f"cannot open {path}: {exc}") from exc
    try:
        _enable_wal(db, timeout)
        # FULL: an acknowledged save survives power loss too, not only a killed process.
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        _migrate(db, setting)
    except sqlite3.Error as exc:
        db.close()
        raise StoreOpenError(setting, f"cannot use {path}: {exc}") from exc
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


def _migrate(db: sqlite3.Connection, setting: str) -> None:
    """Apply the migrations this file lacks, all or none."""

    def work(db: sqlite3.Connection) -> None:
        db.execute(CREATE_VERSION_TABLE)
        current = db.execute(q.SCHEMA_VERSION).fetchone()[0]
        for migration in pending(load_migrations("sqlite"), current, setting):
            for statement in migration.statements:
                db.execute(statement)
            db.execute(q.RECORD_VERSION, (migration.version,))

    _write(work)(db)
