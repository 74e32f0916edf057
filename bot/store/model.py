"""What the store keeps (saved papers, reminders…), its errors and its input rules."""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from bot.corpus import Paper, Presentation, page_url, parse_zone
from bot.textutil import clean, sendable

MAX_SAVED_PAPERS = 1_000  # per user
MAX_TOPICS = 20  # per user
MAX_TOPIC_CHARS = 200  # a standing question, not an essay
MAX_LANGUAGE_CHARS = 16  # IETF tags such as "pt-BR" are far shorter
MAX_TIMEZONE_CHARS = 64  # the longest IANA name is 32 ("America/Argentina/ComodRivadavia")
MIN_REMINDER_MINUTES = 1
MAX_REMINDER_MINUTES = 120  # the longest lead /remind offers: two hours before a session
MAX_REMINDER_KEY_CHARS = 64  # a paper id or presentation key (Telegram's id rule is 64)

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
    max_topics: int = MAX_TOPICS
    max_topic_chars: int = MAX_TOPIC_CHARS


@dataclass(frozen=True, slots=True)
class SavedPaper:
    """A snapshot of a paper as it was when saved, so exports outlive corpus changes."""

    paper_id: str
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str = ""
    url: str = ""
    """The paper's page (or PDF); empty when unknown."""
    doi: str = ""
    saved_at: datetime | None = None
    """Set by the database (UTC); None before saving."""
    title_derived: bool = False
    status: str = ""
    """The paper's tier: "oral", "spotlight", "poster", or "" when the corpus names none."""
    presentations: tuple[Presentation, ...] = ()
    institutions: tuple[str, ...] = ()


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
    language: str | None
    """Their /lang choice, else their language when reminders were turned on; None if unknown."""
    timezone: str | None = None
    """Their /timezone choice (`parse_zone`'s form), read beside the venue's; None: none."""


def clean_text(text: str) -> str:
    """`text` as the store keeps it: controls (NUL too) dropped, lone surrogates U+FFFD
    (PostgreSQL refuses a NUL, SQLite's UTF-8 cannot encode a lone surrogate)."""
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


def check_timezone(zone: str) -> str:
    """A time zone as stored (`parse_zone`'s form: "Europe/Berlin", "+02:00"); ValueError
    (`ZoneError`) for anything else."""
    stored = parse_zone(clean_text(zone))
    if len(stored) > MAX_TIMEZONE_CHARS:
        raise ValueError(f"time zone must be at most {MAX_TIMEZONE_CHARS} characters")
    return stored


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
    return (
        isinstance(part, str)
        and 0 < len(part) <= MAX_REMINDER_KEY_CHARS
        and clean_text(part) == part
    )


def check_page(offset: int, limit: int) -> None:
    """ValueError for a negative offset or a non-positive limit."""
    if offset < 0 or limit < 1:
        raise ValueError("offset must be >= 0 and limit >= 1")


SEED_VENUE = "ICML 2026"
SEED_YEAR = 2026
"""What a paper's record may leave unsaid (a corpus of one's own without venue or year): the
bundled programme and the seeds name ICML 2026 themselves, and an exported BibTeX entry
without them is not citable."""

_DOI_URL = re.compile(r"^https?://(dx\.)?doi\.org/")


def snapshot(paper: Paper, *, venue: str = SEED_VENUE, year: int = SEED_YEAR) -> SavedPaper:
    """The record saved for `paper`; `venue` and `year` stand in when the corpus does not say."""
    doi = _DOI_URL.sub("", next((url for label, url in paper.links if label == "DOI"), ""))
    return SavedPaper(
        paper.id,
        clean(paper.title),
        paper.authors,
        paper.year or year,
        paper.venue or venue,
        page_url(paper.links),
        doi,
        title_derived=paper.title_derived,
        status=paper.tier,
        presentations=paper.presentations,
        institutions=paper.institutions,
    )
