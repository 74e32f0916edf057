"""The conference programme as sessions, built once per index, looked up by `/session`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, tzinfo

from bot.corpus import UNTIMED, Paper, fold_session, named_number, sessions_named
from bot.planner.entries import Entry, entries_of, entry_order


@dataclass(frozen=True, slots=True)
class Session:
    """One session of the programme: a name, a time and place, and its papers."""

    name: str
    """"" for presentations the feed puts in no session (grouped by kind and time)."""
    kind: str
    """The kind most of its presentations have."""
    start: datetime | None
    end: datetime | None
    """The latest end (or start); both None if nothing is timed."""
    rooms: tuple[str, ...]
    entries: tuple[Entry, ...]
    """Time order, then poster position."""

    @property
    def day(self) -> date | None:
        return self.start.date() if self.start else None

    @property
    def number(self) -> int | None:
        """The number in a "… Session N …" name, else None."""
        return named_number(fold_session(self.name))

    def running(self, now: datetime) -> bool:
        return self.start is not None and self.end is not None and self.start <= now < self.end


@dataclass(frozen=True, slots=True)
class Programme:
    """Every session, in time order, and the venue's offset and dates (None with no times)."""

    sessions: tuple[Session, ...]
    tz: tzinfo | None
    """The venue's clock (the one most presentations are on)."""
    first_day: date | None
    last_day: date | None

    def __bool__(self) -> bool:
        """False for a corpus with no programme (no presentation has a session or a time)."""
        return bool(self.sessions)

    def find(self, query: str) -> tuple[Session, ...]:
        """The sessions `query` names (`bot.corpus.sessions`' rule), in time order."""
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
    """A named session, split by day if it recurs on several (untimed go to the first)."""
    days = sorted({e.day for e in entries if e.day is not None})
    if len(days) <= 1:
        return [_session(name, entries)]
    return [
        _session(name, [e for e in entries if e.day == day or (e.day is None and n == 0)])
        for n, day in enumerate(days)
    ]


def _venue_tz(entries: Iterable[Entry]) -> tzinfo | None:
    """The clock most presentations are on (each carries its venue's)."""
    zones = Counter(e.start.tzinfo for e in entries if e.start is not None)
    return max(zones, key=lambda zone: zones[zone]) if zones else None


def build_programme(papers: Iterable[Paper]) -> Programme:
    """The programme of every paper's presentations (build once per index)."""
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
        found, key=lambda s: (s.start or UNTIMED, fold_session(s.name), s.kind, s.end or UNTIMED)
    )
    days = [s.day for s in sessions if s.day is not None]
    return Programme(
        sessions=tuple(sessions),
        tz=_venue_tz(e for s in sessions for e in s.entries),
        first_day=min(days) if days else None,
        last_day=max(days) if days else None,
    )
