"""Per-user storage: reading lists, topics, preferences, reminders (SQLite or PostgreSQL)."""

from bot.store._sql_store import Store
from bot.store.export import FORMATS, export_text
from bot.store.factory import open_store
from bot.store.model import (
    MAX_REMINDER_KEY_CHARS,
    MAX_REMINDER_MINUTES,
    MAX_SAVED_PAPERS,
    MAX_TOPIC_CHARS,
    MAX_TOPICS,
    MIN_REMINDER_MINUTES,
    FollowOutcome,
    Limits,
    ReminderUser,
    SavedPaper,
    SaveOutcome,
    StoreError,
    StoreOpenError,
    StoreUnavailable,
    normalize_topic,
    snapshot,
    topic_key,
)

__all__ = [
    "FORMATS",
    "MAX_REMINDER_KEY_CHARS",
    "MAX_REMINDER_MINUTES",
    "MAX_SAVED_PAPERS",
    "MAX_TOPICS",
    "MAX_TOPIC_CHARS",
    "MIN_REMINDER_MINUTES",
    "FollowOutcome",
    "Limits",
    "ReminderUser",
    "SaveOutcome",
    "SavedPaper",
    "Store",
    "StoreError",
    "StoreOpenError",
    "StoreUnavailable",
    "export_text",
    "normalize_topic",
    "open_store",
    "snapshot",
    "topic_key",
]
