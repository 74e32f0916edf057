"""SQL both backends run (qmark style; `postgres.py` converts to `%s`), row conversion, and the
versioned schema: numbered SQL files per dialect, applied in order at start."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.corpus import Presentation
from bot.store.model import SavedPaper, StoreOpenError

PAPER_COLUMNS = (
    "paper_id, title, authors, year, venue, url, doi, saved_at, title_derived, status, "
    "presentations, institutions"
)

ADD_USER = "INSERT INTO users (user_id) VALUES (?) ON CONFLICT (user_id) DO NOTHING"
# The count is only race-free because the caller holds the user's write lock (see backends).
SAVE_UNDER_CAP = (
    "INSERT INTO saved_papers"
    " (user_id, paper_id, title, authors, year, venue, url, doi, title_derived, status,"
    " presentations, institutions) "
    "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? "
    "WHERE (SELECT count(*) FROM saved_papers WHERE user_id = ?) < ? "
    "ON CONFLICT (user_id, paper_id) DO NOTHING"
)
IS_SAVED = "SELECT 1 FROM saved_papers WHERE user_id = ? AND paper_id = ?"
REMOVE = "DELETE FROM saved_papers WHERE user_id = ? AND paper_id = ?"
LIST_SAVED = (
    f"SELECT {PAPER_COLUMNS} FROM saved_papers WHERE user_id = ? ORDER BY id DESC LIMIT ? OFFSET ?"
)
EXPORT = f"SELECT {PAPER_COLUMNS} FROM saved_papers WHERE user_id = ? ORDER BY id DESC"
COUNT_SAVED = "SELECT count(*) FROM saved_papers WHERE user_id = ?"
SAVED_IDS = "SELECT paper_id FROM saved_papers WHERE user_id = ?"
FOLLOW_UNDER_CAP = (
    "INSERT INTO topics (user_id, topic, topic_key) SELECT ?, ?, ? "
    "WHERE (SELECT count(*) FROM topics WHERE user_id = ?) < ? "
    "ON CONFLICT (user_id, topic_key) DO NOTHING"
)
IS_FOLLOWED = "SELECT 1 FROM topics WHERE user_id = ? AND topic_key = ?"
UNFOLLOW = "DELETE FROM topics WHERE user_id = ? AND topic_key = ?"
TOPICS = "SELECT topic FROM topics WHERE user_id = ? ORDER BY id"
FOLLOWERS = "SELECT user_id, topic FROM topics ORDER BY user_id, id"
GET_LANGUAGE = "SELECT language FROM users WHERE user_id = ?"
LANGUAGES = "SELECT user_id, language FROM users WHERE language IS NOT NULL ORDER BY user_id"
SET_LANGUAGE = (
    "INSERT INTO users (user_id, language) VALUES (?, ?) "
    "ON CONFLICT (user_id) DO UPDATE SET language = excluded.language"
)
GET_TIMEZONE = "SELECT timezone FROM users WHERE user_id = ?"
SET_TIMEZONE = (
    "INSERT INTO users (user_id, timezone) VALUES (?, ?) "
    "ON CONFLICT (user_id) DO UPDATE SET timezone = excluded.timezone"
)
CLEAR_TIMEZONE = "UPDATE users SET timezone = NULL WHERE user_id = ?"
# One row per id (sorted by the caller): the loser of a race gets no row back.
CLAIM_ALERT = (
    "INSERT INTO sent_alerts (user_id, paper_id) VALUES (?, ?) "
    "ON CONFLICT (user_id, paper_id) DO NOTHING RETURNING paper_id"
)
RELEASE_ALERT = "DELETE FROM sent_alerts WHERE user_id = ? AND paper_id = ?"
SET_REMINDER = (
    "INSERT INTO reminder_settings (user_id, minutes, language) VALUES (?, ?, ?) "
    "ON CONFLICT (user_id) DO UPDATE SET minutes = excluded.minutes, "
    "language = coalesce(excluded.language, reminder_settings.language)"
)
REMINDERS_OFF = "DELETE FROM reminder_settings WHERE user_id = ?"
GET_REMINDER = "SELECT minutes FROM reminder_settings WHERE user_id = ?"
# The /lang choice first: the language seen at /remind is only what Telegram's client said.
REMINDER_USERS = (
    "SELECT r.user_id, r.minutes, coalesce(u.language, r.language), u.timezone "
    "FROM reminder_settings r LEFT JOIN users u ON u.user_id = r.user_id ORDER BY r.user_id"
)
# Like CLAIM_ALERT, and only while the user has reminders on: turning them off (or /forget)
# stops a reminder a job was about to send.
CLAIM_REMINDER = (
    "INSERT INTO sent_reminders (user_id, paper_id, presentation_key) SELECT ?, ?, ? "
    "WHERE EXISTS (SELECT 1 FROM reminder_settings WHERE user_id = ?) "
    "ON CONFLICT (user_id, paper_id, presentation_key) DO NOTHING "
    "RETURNING paper_id, presentation_key"
)
RELEASE_REMINDER = (
    "DELETE FROM sent_reminders WHERE user_id = ? AND paper_id = ? AND presentation_key = ?"
)
SENT_REMINDERS = "SELECT paper_id, presentation_key FROM sent_reminders WHERE user_id = ?"
DISMISS = (
    "INSERT INTO dismissed_papers (user_id, paper_id) VALUES (?, ?) "
    "ON CONFLICT (user_id, paper_id) DO NOTHING"
)
MARK_SERVED = "INSERT INTO seen_papers (paper_id) VALUES (?) ON CONFLICT (paper_id) DO NOTHING"
SERVED_IDS = "SELECT paper_id FROM seen_papers"
DISMISSED = "SELECT paper_id FROM dismissed_papers WHERE user_id = ?"
FORGET = (
    "DELETE FROM reminder_settings WHERE user_id = ?",
    "DELETE FROM sent_reminders WHERE user_id = ?",
    "DELETE FROM dismissed_papers WHERE user_id = ?",
    "DELETE FROM sent_alerts WHERE user_id = ?",
    "DELETE FROM saved_papers WHERE user_id = ?",
    "DELETE FROM topics WHERE user_id = ?",
    "DELETE FROM users WHERE user_id = ?",
)
SCHEMA_VERSION = "SELECT coalesce(max(version), 0) FROM schema_version"
RECORD_VERSION = "INSERT INTO schema_version (version) VALUES (?)"


def save_params(user_id: int, paper: SavedPaper, max_saved: int) -> tuple[Any, ...]:
    """Parameters of SAVE_UNDER_CAP."""
    authors = json.dumps(list(paper.authors), ensure_ascii=False)
    return (
        user_id,
        paper.paper_id,
        paper.title,
        authors,
        paper.year,
        paper.venue,
        paper.url,
        paper.doi,
        paper.title_derived,
        paper.status,
        json.dumps(
            [dataclasses.asdict(shown) for shown in paper.presentations], ensure_ascii=False
        ),
        json.dumps(list(paper.institutions), ensure_ascii=False),
        user_id,
        max_saved,
    )


def paper_from_row(row: tuple[Any, ...]) -> SavedPaper:
    """A SavedPaper from a row of PAPER_COLUMNS (SQLite's ISO text or PostgreSQL's timestamp)."""
    paper_id, title, authors, year, venue, url, doi, saved_at, title_derived, *programme = row
    status, presentations, institutions = programme
    if isinstance(saved_at, str):
        saved_at = datetime.fromisoformat(saved_at)
    return SavedPaper(
        paper_id=paper_id,
        title=title,
        authors=tuple(json.loads(authors)),
        year=year,
        venue=venue,
        url=url,
        doi=doi,
        saved_at=saved_at.astimezone(UTC),
        title_derived=bool(title_derived),
        status=status,
        presentations=_presentations(presentations),
        institutions=tuple(str(name) for name in json.loads(institutions)),
    )


_PRESENTATION_FIELDS = tuple(field.name for field in dataclasses.fields(Presentation))


def _presentations(stored: str) -> tuple[Presentation, ...]:
    """The presentations column read back (fields it lacks are empty, unknown ones ignored)."""
    return tuple(
        Presentation(**{name: str(item.get(name) or "") for name in _PRESENTATION_FIELDS})
        for item in json.loads(stored)
        if isinstance(item, dict)
    )


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
