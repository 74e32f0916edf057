"""Per-user storage: reading lists, followed topics, preferences (SQLite or PostgreSQL)."""

from bot.store.factory import open_store
from bot.store.model import (
    MAX_SAVED_PAPERS,
    MAX_TOPIC_CHARS,
    MAX_TOPICS,
    FollowOutcome,
    Limits,
    SavedPaper,
    SaveOutcome,
    Store,
    StoreError,
    StoreOpenError,
    StoreUnavailable,
)
from bot.store.snapshot import snapshot

__all__ = [
    "MAX_SAVED_PAPERS",
    "MAX_TOPICS",
    "MAX_TOPIC_CHARS",
    "FollowOutcome",
    "Limits",
    "SaveOutcome",
    "SavedPaper",
    "Store",
    "StoreError",
    "StoreOpenError",
    "StoreUnavailable",
    "open_store",
    "snapshot",
]
