"""What is due at a given clock: the sessions on now and next (`/now`) with the user's papers,
and reminders, `lead` minutes before each saved presentation, once each (the caller's ledger
says which were sent); one due while the bot was down still goes out before the start."""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from bot.corpus import Paper
from bot.planner.entries import Entry, entries_of, entry_order, unique_papers
from bot.planner.programme import Programme, Session

PICKS = 5  # papers named per session by default
SentKey = tuple[str, str]  # (paper id, presentation key at its start): a user's ledger row


@dataclass(frozen=True, slots=True)
class Happening:
    """A session with the papers picked for the user."""

    session: Session
    picks: tuple[Entry, ...]
    why: str
    """ "saved", "followed" or "first": which rule picked them."""
    matched: int
    """How many papers that rule found in the session."""


@dataclass(frozen=True, slots=True)
class NowAndNext:
    """What is on at a moment, and when the conference is."""

    at: datetime
    """The moment asked about, in the venue's time."""
    current: tuple[Happening, ...]
    upcoming: tuple[Happening, ...]
    """The sessions starting next (all that start at that same moment)."""
    first_day: date | None
    last_day: date | None

    @property
    def phase(self) -> str:
        """ "before", "during" or "after" the conference dates; "" with no dates."""
        if self.first_day is None or self.last_day is None:
            return ""
        today = self.at.date()
        if today < self.first_day:
            return "before"
        return "after" if today > self.last_day else "during"


def _happening(
    session: Session,
    saved: Container[str],
    score: Callable[[Paper], float] | None,
    limit: int,
) -> Happening:
    mine = [e for e in session.entries if e.paper.id in saved]
    if mine:
        return Happening(session, tuple(mine[:limit]), "saved", len(mine))
    if score is not None:
        scored = [(score(e.paper), n) for n, e in enumerate(session.entries)]
        liked = sorted((-points, n) for points, n in scored if points > 0)
        if liked:
            picks = tuple(session.entries[n] for _, n in liked[:limit])
            return Happening(session, picks, "followed", len(liked))
    return Happening(session, session.entries[:limit], "first", len(session.entries))


def now_and_next(
    programme: Programme,
    now: datetime,
    *,
    saved: Container[str] = frozenset(),
    score: Callable[[Paper], float] | None = None,
    limit: int = PICKS,
) -> NowAndNext:
    """The sessions running at `now` (aware) and the next to start, each with up to `limit`
    papers: the ids in `saved`, else those `score` rates above 0, else the first."""
    if now.tzinfo is None:
        raise ValueError("now must be an aware datetime")
    timed = [s for s in programme.sessions if s.start is not None]
    current = [s for s in timed if s.running(now)]
    later = [s for s in timed if s.start is not None and s.start > now]
    soonest = min((s.start for s in later if s.start is not None), default=None)
    upcoming = [s for s in later if s.start == soonest]
    return NowAndNext(
        at=now.astimezone(programme.tz) if programme.tz else now,
        current=tuple(_happening(s, saved, score, limit) for s in current),
        upcoming=tuple(_happening(s, saved, score, limit) for s in upcoming),
        first_day=programme.first_day,
        last_day=programme.last_day,
    )


def sent_key(entry: Entry) -> SentKey:
    """The ledger row of `entry`'s reminder: the presentation at its start, so a poster a newer
    programme moves to another time is reminded of again, once, and an unmoved one is not."""
    start = entry.start
    when = f"@{start.astimezone(UTC):%Y%m%dT%H%MZ}" if start is not None else ""
    return entry.paper.id, f"{entry.key}{when}"


def _timed(
    saved: Iterable[Paper], lead_minutes: int, now: datetime
) -> Iterator[tuple[Entry, datetime, datetime]]:
    """(entry, start, when its reminder falls due) for each timed presentation of `saved`."""
    if now.tzinfo is None:
        raise ValueError("now must be an aware datetime")
    if lead_minutes < 0:
        raise ValueError("lead_minutes must not be negative")
    lead = timedelta(minutes=lead_minutes)
    for paper in unique_papers(saved):
        for entry in entries_of(paper):
            if entry.start is not None:
                yield entry, entry.start, entry.start - lead


def due_reminders(
    saved: Iterable[Paper],
    lead_minutes: int,
    now: datetime,
    already_sent: Container[SentKey],
) -> tuple[Entry, ...]:
    """The presentations to remind of at `now` (aware): start - lead <= now < start, not in
    `already_sent`; in time order."""
    due = [
        entry
        for entry, start, at in _timed(saved, lead_minutes, now)
        if at <= now < start and sent_key(entry) not in already_sent
    ]
    return tuple(sorted(due, key=entry_order))


def next_due(
    saved: Iterable[Paper],
    lead_minutes: int,
    now: datetime,
    already_sent: Container[SentKey] = (),
) -> datetime | None:
    """When the next reminder falls due after `now`; None when none is left."""
    times = (
        at
        for entry, _, at in _timed(saved, lead_minutes, now)
        if at > now and sent_key(entry) not in already_sent
    )
    return min(times, default=None)
