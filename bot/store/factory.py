"""`open_store`: the one place that turns DATABASE_URL / DATA_DIR into a `Store`."""

from __future__ import annotations

from pathlib import Path

from bot.store._sql_store import Store
from bot.store.model import Limits, StoreOpenError

SQLITE_FILE = "bot.sqlite3"  # under DATA_DIR
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
DEFAULT_TIMEOUT = 5.0  # seconds; a handler answers "try again" rather than hang longer


async def open_store(
    database_url: str | None,
    data_dir: Path,
    *,
    limits: Limits = Limits(),  # noqa: B008 -- frozen, so one shared default is safe
    timeout: float = DEFAULT_TIMEOUT,
) -> Store:
    """The migrated store: PostgreSQL for a postgresql:// URL, else SQLite in `data_dir`."""
    if database_url:
        if not database_url.startswith(POSTGRES_SCHEMES):
            scheme = database_url.partition(":")[0][:20]
            raise StoreOpenError(
                "DATABASE_URL",
                f"unsupported scheme {scheme!r}: use postgresql://…, or unset it for SQLite",
            )
        from bot.store.postgres import PostgresStore  # psycopg loads only when configured

        return await PostgresStore.open(database_url, limits=limits, timeout=timeout)
    from bot.store.sqlite import SqliteStore

    return await SqliteStore.open(data_dir / SQLITE_FILE, limits=limits, timeout=timeout)
