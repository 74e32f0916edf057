"""`Store` on one SQLite file in WAL mode; each transaction runs whole on the store's thread."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from bot.store import _queries as q
from bot.store import _sqlite_file as files
from bot.store._sql_store import ADDED, FULL, PRESENT, Params, Store
from bot.store._sqlite_file import Opened, write
from bot.store.model import Limits, StoreOpenError, StoreUnavailable

T = TypeVar("T")
logger = logging.getLogger(__name__)


class SqliteStore(Store):
    """The default store: a file under DATA_DIR, no set-up; several processes may share it."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        executor: ThreadPoolExecutor,
        limits: Limits,
        opened: Opened,
    ) -> None:
        self._connection: sqlite3.Connection | None = connection
        """None between closing a swapped file and opening the one at the path."""
        self._executor = executor
        self.limits = limits
        self._opened = opened

    @classmethod
    async def open(cls, path: Path, *, limits: Limits, timeout: float) -> SqliteStore:
        """Open (creating if needed) and migrate `path`; StoreOpenError names DATA_DIR."""
        # One thread per store: a whole transaction is one call on it, so two tasks'
        # transactions can never interleave on the shared connection.
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store-sqlite")
        loop = asyncio.get_running_loop()
        opened = Opened(path, timeout)
        try:
            connection = await loop.run_in_executor(executor, opened.connect)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(connection, executor, limits, opened)

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on the store's thread; a database that does not answer is StoreUnavailable."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, self._call, work)
        except sqlite3.OperationalError as exc:
            raise StoreUnavailable(f"SQLite: {exc}") from exc

    def _call(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` on the file at the path, checked before and after (on the store's thread)."""
        if self._connection is None:  # the last reopen failed half-way: try again
            self._connection = self._connect_again()
        elif not self._opened.still_ours():
            self._reopen()
            # Refused, not retried: the user is told to try again and nothing is acknowledged
            # that the check did not see land in the file now at the path.
            raise StoreUnavailable("SQLite: the database file was deleted or replaced; reopened")
        result = work(self._connection)
        if not self._opened.still_ours():
            # Swapped while `work` ran: what it committed went to the old file; the rescue
            # copies it over before the caller acknowledges anything.
            self._reopen()
        return result

    def _reopen(self) -> None:
        """Rescue the open file's rows, then serve the file at the path (see `_sqlite_file`)."""
        path = self._opened.path
        logger.error(
            "The database file %s was deleted or replaced while the bot was running; "
            "copying the rows this process still holds and reopening it",
            path,
        )
        assert self._connection is not None
        try:
            copy = files.rescue_copy(self._connection, path)
        except (sqlite3.Error, OSError) as exc:
            # The old handle still holds every row: keep it and try again on the next call.
            logger.error("Could not copy the rows out (%s); will retry at the next save", exc)
            raise StoreUnavailable(f"SQLite: rescue failed: {exc}") from exc
        self._connection.close()
        self._connection = None
        files.drop_stale_side_files(path, self._opened.sides)
        if files.identity(path) is None:  # deleted: the copy becomes the database
            try:
                files.put_in_place(copy, path)
            except OSError as exc:
                logger.error("Could not move %s to %s (%s); do it by hand", copy, path, exc)
                raise StoreUnavailable(f"SQLite: cannot restore: {exc}") from exc
            logger.error("Recreated %s from the rows still open; nothing was lost", path)
        else:
            logger.error(
                "Serving the new file at %s; the rows of the one it replaced are in %s",
                path,
                copy,
            )
        self._connection = self._connect_again()

    def _connect_again(self) -> sqlite3.Connection:
        """Open the file at the path (creating and migrating it); StoreUnavailable if not."""
        try:
            return self._opened.connect()
        except (StoreOpenError, OSError, sqlite3.Error) as exc:
            logger.error("Could not open %s again (%s); will retry", self._opened.path, exc)
            raise StoreUnavailable(f"SQLite: cannot reopen: {exc}") from exc

    async def _rows(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        return await self._run(lambda db: db.execute(sql, params).fetchall())

    async def _change(self, sql: str, params: Params) -> int:
        return await self._run(write(lambda db: db.execute(sql, params).rowcount))

    async def _add_under_cap(
        self, user_id: int, insert: str, params: Params, exists: str, key: Params
    ) -> int:
        def work(db: sqlite3.Connection) -> int:
            db.execute(q.ADD_USER, (user_id,))
            if db.execute(insert, params).rowcount == 1:
                return ADDED
            return PRESENT if db.execute(exists, key).fetchone() else FULL

        return await self._run(write(work))

    async def _claim_each(self, user_id: int, sql: str, rows: list[Params]) -> list[Any]:
        def work(db: sqlite3.Connection) -> list[Any]:
            # RETURNING needs SQLite 3.35+; executemany cannot return rows, so one per row.
            returned = (db.execute(sql, params).fetchone() for params in rows)
            return [row for row in returned if row is not None]

        return await self._run(write(work))  # BEGIN IMMEDIATE: every writer waits its turn

    async def _change_each(self, sql: str, rows: list[Params]) -> None:
        await self._run(write(lambda db: db.executemany(sql, rows)))

    async def never_served(
        self, served: Iterable[str], candidates: Iterable[str]
    ) -> frozenset[str]:
        wanted = frozenset(candidates)

        def work(db: sqlite3.Connection) -> frozenset[str]:
            db.executemany(q.MARK_SERVED, ((pid,) for pid in served))  # in the store's thread
            return wanted - {row[0] for row in db.execute(q.SERVED_IDS)}

        return await self._run(write(work))

    async def forget_user(self, user_id: int) -> None:
        def work(db: sqlite3.Connection) -> None:
            for statement in q.FORGET:
                db.execute(statement, (user_id,))

        await self._run(write(work))

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        if self._connection is not None:
            await loop.run_in_executor(self._executor, self._connection.close)
        self._executor.shutdown(wait=True)
