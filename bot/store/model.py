"""What the store keeps (saved papers, topics, a language, reminders) and the `Store` protocol.

Errors:

    StoreError
    ├── StoreOpenError    the database cannot be opened at start; names the setting
    └── StoreUnavailable  a running database stopped answering; try again later
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.corpus.model import Presentation
from bot.textutil import sendable

MAX_SAVED_PAPERS = 1_000  # ours: per user
MAX_TOPICS = 20  # ours: per user
MAX_TOPIC_CHARS = 200  # ours: a standing question, not an essay
MAX_LANGUAGE_CHARS = 16  # ours: IETF tags such as "pt-BR" are far shorter
MIN_REMINDER_MINUTES = 1
MAX_REMINDER_MINUTES = 120  # the longest lead /remind offers: two hours before a session
MAX_REMINDER_KEY_CHARS = 64  # ours: a paper id or presentation key (Telegram's id rule is 64)

ReminderKey = tuple[str, str]
"""(paper id, presentation key): one reminder ledger row of a user (`bot.planner.SentKey`)."""


class StoreError(Exception):
    """Base of every error the store raises."""


class StoreOpenError(StoreError):
    """The database could not be opened at start; names the setting, never echoes secrets."""

    def __init__(self, setting: str, reason: str) -> None:
        self.setting = setting
        self.reason = reason
        super().__init__(f"{setting}: {reason}")


class StoreUnavailable(StoreError):
    """The database did not answer while running; the operation changed nothing durable."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-user caps the store enforces inside its transactions."""

    max_saved: int = MAX_SAVED_PAPERS
    """Saved papers per user."""
    max_topics: int = MAX_TOPICS
    """Followed topics per user."""
    max_topic_chars: int = MAX_TOPIC_CHARS
    """Characters in one topic after collapsing whitespace."""


@dataclass(frozen=True, slots=True)
class SavedPaper:
    """A snapshot of a paper as it was when saved, so exports outlive corpus changes."""

    paper_id: str
    """The corpus's stable id."""
    title: str
    authors: tuple[str, ...] = ()
    """One name per entry, in the paper's order."""
    year: int | None = None
    venue: str = ""
    """Where it appeared, e.g. "ICML 2026"; empty when unknown."""
    url: str = ""
    """The paper's page (or PDF); empty when unknown."""
    doi: str = ""
    saved_at: datetime | None = None
    """When the user saved it (UTC, set by the database); None before saving."""
    title_derived: bool = False
    """The title is a headline derived from the abstract, not the authors' (exports say so)."""
    status: str = ""
    """The paper's tier: "oral", "spotlight", "poster", or "" when the corpus names none."""
    presentations: tuple[Presentation, ...] = ()
    """When and where the conference presents it (times with the venue's offset)."""
    institutions: tuple[str, ...] = ()
    """Its authors' distinct institutions, in author order."""


class SaveOutcome(enum.Enum):
    """What `Store.save` did."""

    SAVED = "saved"
    ALREADY_SAVED = "already_saved"
    LIMIT_REACHED = "limit_reached"


class FollowOutcome(enum.Enum):
    """What `Store.follow` did."""

    FOLLOWED = "followed"
    ALREADY_FOLLOWING = "already_following"
    LIMIT_REACHED = "limit_reached"
    EMPTY = "empty"
    TOO_LONG = "too_long"


@dataclass(frozen=True, slots=True)
class ReminderUser:
    """A user with reminders on, as a reminder job needs them."""

    user_id: int
    minutes: int
    """How long before a presentation starts to remind them (1..120)."""
    language: str | None
    """Their /lang choice, else the language they were answered in when they turned reminders
    on (a job has no Telegram update to read it from); None when neither is known."""


class Store(Protocol):
    """Per-user reading lists, followed topics and preferences; every method is one transaction.

    Every method takes the Telegram user id, so no call can read or change another user's
    data. Methods raise `StoreUnavailable` when the database stops answering.
    """

    limits: Limits

    async def save(self, user_id: int, paper: SavedPaper) -> SaveOutcome:
        """Save a paper snapshot; saving it again keeps one row (and its first snapshot)."""

    async def remove(self, user_id: int, paper_id: str) -> bool:
        """Remove a saved paper; False when it was not saved."""

    async def list_saved(
        self, user_id: int, *, offset: int = 0, limit: int = 10
    ) -> tuple[SavedPaper, ...]:
        """Saved papers, newest first, `limit` of them from `offset`."""

    async def count_saved(self, user_id: int) -> int:
        """How many papers the user has saved."""

    async def is_saved(self, user_id: int, paper_id: str) -> bool:
        """Whether the user has saved this paper."""

    async def saved_among(self, user_id: int, paper_ids: Iterable[str]) -> frozenset[str]:
        """Which of `paper_ids` the user has saved (one query for a page of buttons)."""

    async def export_rows(self, user_id: int) -> tuple[SavedPaper, ...]:
        """Every saved paper, newest first, for `bot.store.export`."""

    async def follow(self, user_id: int, topic: str) -> FollowOutcome:
        """Follow a topic (whitespace collapsed; case-insensitively unique per user)."""

    async def unfollow(self, user_id: int, topic: str) -> bool:
        """Stop following a topic (matched case-insensitively); False when not followed."""

    async def topics(self, user_id: int) -> tuple[str, ...]:
        """The user's topics in the order they were followed."""

    async def followers(self) -> Mapping[int, tuple[str, ...]]:
        """Every user with topics, mapped to them (for alerts after a corpus reload)."""

    async def claim_alerts(self, user_id: int, paper_ids: Iterable[str]) -> frozenset[str]:
        """Record alerts about `paper_ids` as sent to the user; returns the ids newly claimed.

        Atomic across replicas: of callers claiming one (user, paper), exactly one gets it.
        """

    async def release_alerts(self, user_id: int, paper_ids: Iterable[str]) -> None:
        """Forget claims whose alert could not be sent, so a later reload may send it."""

    async def never_served(
        self, served: Iterable[str], candidates: Iterable[str]
    ) -> frozenset[str]:
        """Record `served` (an index being replaced); returns the `candidates` never recorded.

        Alerts announce only those: a paper that comes back after a half-copied reload was
        served before, so its followers already heard of it.
        """

    async def dismiss(self, user_id: int, paper_id: str) -> bool:
        """Mark a paper "not interested" for recommendations; False when it already was."""

    async def dismissed(self, user_id: int) -> frozenset[str]:
        """The ids of every paper the user dismissed."""

    async def set_reminder(
        self, user_id: int, minutes: int | None, *, language: str | None = None
    ) -> None:
        """Remind the user `minutes` (1..120) before each saved paper's presentation, or turn
        reminders off with None (the default state). `language`: the one the user is answered
        in now, kept for reminders when they never chose one with /lang. ValueError for
        minutes out of range or a bad language tag. The ledger is kept either way."""

    async def get_reminder(self, user_id: int) -> int | None:
        """The user's reminder lead in minutes; None when reminders are off."""

    async def reminder_users(self) -> tuple[ReminderUser, ...]:
        """Every user with reminders on, by user id."""

    async def claim_reminders(
        self, user_id: int, keys: Iterable[ReminderKey]
    ) -> frozenset[ReminderKey]:
        """Record reminders as sent to the user before sending them; returns the keys newly
        claimed (only while the user has reminders on). Atomic across replicas: of callers
        claiming one (user, paper, presentation), exactly one gets it, once for good.
        ValueError for an empty or overlong key, or one with control characters."""

    async def release_reminders(self, user_id: int, keys: Iterable[ReminderKey]) -> None:
        """Forget claims whose reminder could not be sent, so a later try may send it."""

    async def sent_reminders(self, user_id: int) -> frozenset[ReminderKey]:
        """Every key claimed for the user (sent, or being sent), for `due_reminders`."""

    async def get_language(self, user_id: int) -> str | None:
        """The user's language preference; None when never set."""

    async def set_language(self, user_id: int, language: str) -> None:
        """Store the user's language preference (a short tag such as "en")."""

    async def forget_user(self, user_id: int) -> None:
        """Delete everything stored about the user."""

    async def close(self) -> None:
        """Release connections and threads; the store is unusable afterwards."""


def clean_text(text: str) -> str:
    """`text` as the store keeps it: controls (NUL too) dropped, lone surrogates U+FFFD.

    Every text a user can send reaches a store method through here: PostgreSQL refuses a NUL
    (DataError) and SQLite's UTF-8 cannot encode a lone surrogate (UnicodeEncodeError).
    """
    return sendable(text)


def clean_paper(paper: SavedPaper) -> SavedPaper:
    """`paper` with every text field through `clean_text` (the same object when clean)."""
    fields = {
        "paper_id": clean_text(paper.paper_id),
        "title": clean_text(paper.title),
        "authors": tuple(clean_text(author) for author in paper.authors),
        "venue": clean_text(paper.venue),
        "url": clean_text(paper.url),
        "doi": clean_text(paper.doi),
        "status": clean_text(paper.status),
        "presentations": tuple(_clean_presentation(shown) for shown in paper.presentations),
        "institutions": tuple(clean_text(name) for name in paper.institutions),
    }
    if all(getattr(paper, name) == value for name, value in fields.items()):
        return paper
    return dataclasses.replace(paper, **fields)


def _clean_presentation(shown: Presentation) -> Presentation:
    cleaned = {name: clean_text(value) for name, value in dataclasses.asdict(shown).items()}
    return shown if cleaned == dataclasses.asdict(shown) else Presentation(**cleaned)


def normalize_topic(topic: str) -> str:
    """A topic as stored: cleaned, whitespace runs collapsed to one space, ends trimmed."""
    return " ".join(clean_text(topic).split())


def topic_key(topic: str) -> str:
    """The case-insensitive identity of a (normalized) topic."""
    return normalize_topic(topic).casefold()


def check_topic(topic: str, limits: Limits) -> FollowOutcome | None:
    """The outcome that rejects `topic` before touching the database, or None if it is fine."""
    normalized = normalize_topic(topic)
    if not normalized:
        return FollowOutcome.EMPTY
    if len(normalized) > limits.max_topic_chars:
        return FollowOutcome.TOO_LONG
    return None


def check_language(language: str) -> str:
    """A language tag as stored; ValueError for an empty or overlong one."""
    tag = clean_text(language).strip()
    if not tag or len(tag) > MAX_LANGUAGE_CHARS:
        raise ValueError(f"language tag must be 1..{MAX_LANGUAGE_CHARS} characters")
    return tag


def check_minutes(minutes: int | None) -> int | None:
    """A reminder lead as stored (None: off); ValueError outside 1..120 or not an int."""
    if minutes is None:
        return None
    if isinstance(minutes, bool) or not isinstance(minutes, int):
        raise ValueError("reminder minutes must be an integer or None")
    if not MIN_REMINDER_MINUTES <= minutes <= MAX_REMINDER_MINUTES:
        raise ValueError(f"reminder minutes must be {MIN_REMINDER_MINUTES}..{MAX_REMINDER_MINUTES}")
    return minutes


def check_reminder_keys(keys: Iterable[ReminderKey]) -> list[ReminderKey]:
    """`keys` without repeats, sorted (replicas lock rows in one order, so never deadlock);
    ValueError for a part that is empty, overlong or not clean text."""
    unique = set(keys)
    for key in unique:
        if not (isinstance(key, tuple) and len(key) == 2 and all(map(_key_part, key))):
            raise ValueError(
                "a reminder key is (paper id, presentation key), each "
                f"1..{MAX_REMINDER_KEY_CHARS} characters of clean text"
            )
    return sorted(unique)


def _key_part(part: object) -> bool:
    """Whether `part` may be half of a reminder key."""
    return (
        isinstance(part, str)
        and 0 < len(part) <= MAX_REMINDER_KEY_CHARS
        and clean_text(part) == part
    )


def check_page(offset: int, limit: int) -> None:
    """ValueError for a negative offset or a non-positive limit."""
    if offset < 0 or limit < 1:
        raise ValueError("offset must be >= 0 and limit >= 1")
