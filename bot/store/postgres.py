"""`Store` on PostgreSQL (psycopg 3 async + a connection pool): replicas share one state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool

from bot.store import _queries as q
from bot.store._sql_store import ADDED, FULL, PRESENT, Params, Store
from bot.store.model import Limits, StoreOpenError, StoreUnavailable

SETTING = "DATABASE_URL"  # what an error opening the database names
POOL_MAX_SIZE = 4  # per replica; handlers hold a connection for one short transaction
MIGRATION_LOCK = 0x1C3D_2026  # pg_advisory_xact_lock key so replicas migrate one at a time
# Upserting the user's row locks it until commit: every write of one user runs one at a
# time across replicas, so a cap's count cannot go stale, and a concurrent forget_user
# either runs wholly before (the row is re-created) or wholly after.
LOCK_USER = (
    "INSERT INTO users (user_id) VALUES (%s) "
    "ON CONFLICT (user_id) DO UPDATE SET user_id = excluded.user_id"
)
# What a database that stopped answering raises (PoolTimeout is an OperationalError).
_UNAVAILABLE = (psycopg.OperationalError, psycopg.InterfaceError)


_MARK_SERVED = (
    "INSERT INTO seen_papers (paper_id) SELECT unnest(%s::text[]) ON CONFLICT (paper_id) DO NOTHING"
)
_SERVED_AMONG = "SELECT paper_id FROM seen_papers WHERE paper_id = ANY(%s::text[])"


def _pg(sql: str) -> str:
    """A shared qmark query in psycopg's `%s` style."""
    return sql.replace("?", "%s")


class PostgresStore(Store):
    """The shared store: DATABASE_URL=postgresql://…, for several replicas behind a webhook."""

    def __init__(self, pool: AsyncConnectionPool, limits: Limits) -> None:
        self._pool = pool
        self.limits = limits

    @classmethod
    async def open(cls, url: str, *, limits: Limits, timeout: float) -> PostgresStore:
        """Connect, apply pending migrations, open the pool; StoreOpenError names DATABASE_URL."""
        where = _where(url)
        connect_timeout = max(2, round(timeout))  # libpq's minimum is 2 seconds
        try:
            async with await psycopg.AsyncConnection.connect(
                url, connect_timeout=connect_timeout
            ) as connection:
                await _migrate(connection)
        except psycopg.ProgrammingError as exc:
            # libpq's parse errors may quote the URL, password included: never echo them.
            raise StoreOpenError(SETTING, "not a valid postgresql:// URL") from exc
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreOpenError(SETTING, f"cannot use PostgreSQL at {where}: {reason}") from exc
        pool = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=POOL_MAX_SIZE,
            open=False,
            timeout=timeout,
            # Checked on checkout: a connection broken by a restart is replaced, not used.
            check=AsyncConnectionPool.check_connection,
            kwargs={"connect_timeout": connect_timeout},
            # The pool's reconnect backoff doubles until this deadline: a short one lets the
            # first request after an outage connect afresh instead of waiting it out.
            reconnect_timeout=timeout,
            name="store",
        )
        try:
            await pool.open(wait=True, timeout=timeout)
        except psycopg.Error as exc:
            await pool.close()
            raise StoreOpenError(SETTING, f"cannot use PostgreSQL at {where}: {exc}") from exc
        return cls(pool, limits)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A pooled connection in a transaction committed on exit; outages are StoreUnavailable."""
        try:
            async with self._pool.connection() as connection:
                yield connection
        except _UNAVAILABLE as exc:
            raise StoreUnavailable(f"PostgreSQL: {type(exc).__name__}") from exc

    async def _rows(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        async with self._transaction() as db:
            cursor = await db.execute(_pg(sql), params)
            return await cursor.fetchall()

    async def _change(self, sql: str, params: Params) -> int:
        async with self._transaction() as db:
            return (await db.execute(_pg(sql), params)).rowcount

    async def _add_under_cap(
        self, user_id: int, insert: str, params: Params, exists: str, key: Params
    ) -> int:
        async with self._transaction() as db:
            await db.execute(LOCK_USER, (user_id,))
            if (await db.execute(_pg(insert), params)).rowcount == 1:
                return ADDED
            return PRESENT if await (await db.execute(_pg(exists), key)).fetchone() else FULL

    async def _claim_each(self, user_id: int, sql: str, rows: list[Params]) -> list[Any]:
        returned = []
        async with self._transaction() as db:
            # The user's lock first, as every write takes it: a forget_user racing the claim
            # runs wholly before it (nothing is claimed) or wholly after (the rows go too).
            await db.execute(LOCK_USER, (user_id,))
            for params in rows:
                row = await (await db.execute(_pg(sql), params)).fetchone()
                if row is not None:
                    returned.append(row)
        return returned

    async def _change_each(self, sql: str, rows: list[Params]) -> None:
        async with self._transaction() as db, db.cursor() as cursor:
            await cursor.executemany(_pg(sql), rows)

    async def never_served(
        self, served: Iterable[str], candidates: Iterable[str]
    ) -> frozenset[str]:
        wanted = sorted(set(candidates))
        # Sorted, so replicas inserting overlapping ids lock them in one order (no deadlock);
        # off the loop: a large corpus's ids take a while to sort.
        ordered = await asyncio.to_thread(sorted, served)
        async with self._transaction() as db:
            # One statement a set (not a row an id): a whole index's ids are one round trip.
            await db.execute(_MARK_SERVED, (ordered,))
            cursor = await db.execute(_SERVED_AMONG, (wanted,))
            seen = {row[0] for row in await cursor.fetchall()}
        return frozenset(wanted) - seen

    async def forget_user(self, user_id: int) -> None:
        async with self._transaction() as db:
            # Lock first: a save racing on another replica finishes before we delete.
            await db.execute(LOCK_USER, (user_id,))
            for statement in q.FORGET:
                await db.execute(_pg(statement), (user_id,))

    async def close(self) -> None:
        await self._pool.close()


async def _migrate(db: psycopg.AsyncConnection[Any]) -> None:
    """Apply the migrations the database lacks, all or none, one replica at a time."""
    async with db.transaction():
        await db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await db.execute(q.CREATE_VERSION_TABLE)
        current = (await (await db.execute(q.SCHEMA_VERSION)).fetchone())[0]
        for migration in q.pending(q.load_migrations("postgres"), current, SETTING):
            for statement in migration.statements:
                await db.execute(statement)
            await db.execute(_pg(q.RECORD_VERSION), (migration.version,))


def _where(url: str) -> str:
    """host:port/dbname of a URL for messages (never the user or password)."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error:
        return "the configured address"
    host = parts.get("host") or "localhost"
    return f"{host}:{parts.get('port') or 5432}/{parts.get('dbname') or ''}"
