"""`/now`: the sessions on now and next, in the venue's time, with the papers for this user."""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass
from datetime import date, datetime

from bot.corpus import Paper
from bot.planner.entries import Entry
from bot.planner.programme import Programme, Session

__all__ = ["Happening", "NowAndNext", "now_and_next"]

PICKS = 5  # papers named per session by default


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
