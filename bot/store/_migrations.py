"""Versioned schema: numbered SQL files per dialect, applied in order at start."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.store.model import StoreOpenError

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
CREATE_VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY)"


@dataclass(frozen=True, slots=True)
class Migration:
    """One `NNNN_name.sql` file, split into statements."""

    version: int
    statements: tuple[str, ...]


def split_statements(sql: str) -> tuple[str, ...]:
    """Statements of a migration file: `--` comment lines dropped, split on `;`."""
    # Our migration files keep `;` out of string literals, so a plain split is exact.
    code = "\n".join(line for line in sql.splitlines() if not line.lstrip().startswith("--"))
    return tuple(part.strip() for part in code.split(";") if part.strip())


def load_migrations(dialect: str) -> tuple[Migration, ...]:
    """The dialect's migrations ("sqlite" or "postgres"), oldest first."""
    found = []
    for path in sorted((MIGRATIONS_DIR / dialect).glob("*.sql")):
        number = int(path.stem.partition("_")[0])
        found.append(Migration(number, split_statements(path.read_text("utf-8"))))
    return tuple(found)


def pending(migrations: tuple[Migration, ...], current: int, setting: str) -> tuple[Migration, ...]:
    """Migrations newer than `current`; StoreOpenError when the database is newer than us."""
    latest = migrations[-1].version if migrations else 0
    if current > latest:
        raise StoreOpenError(
            setting, f"the database schema is version {current}, newer than this bot ({latest})"
        )
    return tuple(m for m in migrations if m.version > current)
