"""The conference programme as sessions: built once per index from every paper's
presentations, looked up by what users type (`/session 3`, `/session Oral 2B`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone

from bot.corpus import Paper, fold_session, named_number, sessions_named
from bot.planner.entries import Entry, entries_of, entry_order

__all__ = ["Programme", "Session", "build_programme"]

_LAST = datetime.max.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Session:
    """One session of the programme: a name, a time and place, and its papers."""

    name: str
    """"Poster Session 3", "Oral 2B Large Language Models"; "" for presentations the feed
    puts in no session (grouped by kind and time)."""
    kind: str
    """The kind most of its presentations have: "poster" or "oral"."""
    start: datetime | None
    """The earliest start of its presentations (venue offset), None if none is timed."""
    end: datetime | None
    """The latest end (or start), None if none is timed."""
    rooms: tuple[str, ...]
    """Its distinct rooms, in the order its papers name them."""
    entries: tuple[Entry, ...]
    """Its papers' presentations: time order, then poster position."""

    @property
    def day(self) -> date | None:
        """The venue's local date of the start."""
        return self.start.date() if self.start else None

    @property
    def number(self) -> int | None:
        """The number in a "… Session N …" name (what `/session N` types), else None."""
        return named_number(fold_session(self.name))

    def running(self, now: datetime) -> bool:
        """True if `now` (aware) is within the session: start <= now < end."""
        return self.start is not None and self.end is not None and self.start <= now < self.end


@dataclass(frozen=True, slots=True)
class Programme:
    """Every session, in time order, and what the programme says about its venue."""

    sessions: tuple[Session, ...]
    tz: timezone | None
    """The venue's UTC offset (the one most presentations carry); None with no times."""
    first_day: date | None
    """The venue's local date of the first session; None with no times."""
    last_day: date | None

    def __bool__(self) -> bool:
        """False for a corpus with no programme (no presentation has a session or a time)."""
        return bool(self.sessions)

    def find(self, query: str) -> tuple[Session, ...]:
        """The sessions `query` names, in time order: a number ("3" -> "Poster Session 3"),
        else the whole name, else the start of a name ("Oral 2B"), else words in it; case,
        quotes and spacing ignored; () when nothing matches."""
        named = [s for s in self.sessions if s.name]
        chosen = sessions_named(query, [fold_session(s.name) for s in named])
        return tuple(named[i] for i in chosen)


def _session(name: str, entries: Sequence[Entry]) -> Session:
    ordered = tuple(sorted(entries, key=entry_order))
    starts = [e.start for e in ordered if e.start is not None]
    ends = [e.end or e.start for e in ordered if e.start is not None]
    kinds = Counter(e.kind for e in ordered)  # ties: the kind first in the alphabet
    rooms = tuple(dict.fromkeys(e.presentation.room for e in ordered if e.presentation.room))
    return Session(
        name=name,
        kind=max(sorted(kinds), key=lambda kind: kinds[kind]),
        start=min(starts, default=None),
        end=max((e for e in ends if e is not None), default=None),
        rooms=rooms,
        entries=ordered,
    )


def _by_day(name: str, entries: Sequence[Entry]) -> list[Session]:
    """A named session, split by day if its name recurs on several (untimed go to the first)."""
    days = sorted({e.day for e in entries if e.day is not None})
    if len(days) <= 1:
        return [_session(name, entries)]
    return [
        _session(name, [e for e in entries if e.day == day or (e.day is None and n == 0)])
        for n, day in enumerate(days)
    ]


def _venue_tz(entries: Iterable[Entry]) -> timezone | None:
    offsets = Counter(e.start.utcoffset() for e in entries if e.start is not None)
    if not offsets:
        return None
    offset = min(offsets, key=lambda o: (-offsets[o], o or timedelta()))
    return timezone(offset) if offset is not None else None


def build_programme(papers: Iterable[Paper]) -> Programme:
    """The programme of every paper's presentations (build once per index; it is immutable)."""
    named: dict[str, list[Entry]] = {}
    unnamed: dict[tuple[str, str, str], list[Entry]] = {}  # by kind and time
    for paper in papers:
        for entry in entries_of(paper):
            shown = entry.presentation
            if shown.session:
                named.setdefault(shown.session, []).append(entry)
            elif entry.start is not None:
                unnamed.setdefault((shown.kind, shown.start, shown.end), []).append(entry)
    found = [s for name, group in named.items() for s in _by_day(name, group)]
    found += [_session("", group) for group in unnamed.values()]
    sessions = sorted(
        found, key=lambda s: (s.start or _LAST, fold_session(s.name), s.kind, s.end or _LAST)
    )
    days = [s.day for s in sessions if s.day is not None]
    return Programme(
        sessions=tuple(sessions),
        tz=_venue_tz(e for s in sessions for e in s.entries),
        first_day=min(days) if days else None,
        last_day=max(days) if days else None,
    )
