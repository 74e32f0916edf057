"""A user's week: their saved papers' presentations by day and session, and the clashes between
them, each with its ways out (the papers' other presentations)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from itertools import groupby

from bot.corpus import Paper
from bot.planner.entries import Entry, entries_of, entry_order, unique_papers


@dataclass(frozen=True, slots=True)
class Slot:
    """One session of a day with the user's papers in it."""

    session: str
    """"" when the feed names none (then one slot per kind and time)."""
    kind: str
    """The kind of its first entry."""
    start: datetime
    end: datetime | None
    """The latest end of its entries (None if unknown)."""
    entries: tuple[Entry, ...]


@dataclass(frozen=True, slots=True)
class Day:
    """One conference day (the venue's local date) of the user's schedule."""

    date: date
    slots: tuple[Slot, ...]


@dataclass(frozen=True, slots=True)
class Clash:
    """Presentations of two or more saved papers at one time: every pair overlaps."""

    entries: tuple[Entry, ...]
    ways_out: tuple[Entry, ...]
    """The same papers' other presentations that overlap no other saved paper's."""

    @property
    def papers(self) -> tuple[Paper, ...]:
        return tuple(unique_papers(e.paper for e in self.entries))

    @property
    def kind(self) -> str:
        """ "posters", "orals" (all of one kind), or "oral" (an oral during a poster session)."""
        kinds = {e.kind for e in self.entries}
        return "posters" if kinds == {"poster"} else "orals" if kinds == {"oral"} else "oral"

    @property
    def session(self) -> str:
        """The session every entry is in, else ""."""
        names = {e.presentation.session for e in self.entries}
        return names.pop() if len(names) == 1 else ""


@dataclass(frozen=True, slots=True)
class Schedule:
    """The user's saved papers that have a time, by day and session, with their clashes."""

    days: tuple[Day, ...]
    clashes: tuple[Clash, ...]
    unscheduled: tuple[Paper, ...]
    """Saved papers with no timed presentation."""

    def __bool__(self) -> bool:
        return bool(self.days)

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every scheduled entry, in order (for paging)."""
        return tuple(e for day in self.days for slot in day.slots for e in slot.entries)


def _slot_key(entry: Entry) -> tuple[str, ...]:
    shown = entry.presentation
    if shown.session:
        return (shown.session,)
    return ("", shown.kind, shown.start, shown.end)


def _slots(entries: Sequence[Entry]) -> tuple[Slot, ...]:
    groups: dict[tuple[str, ...], list[Entry]] = {}
    for entry in entries:  # already in entry order
        groups.setdefault(_slot_key(entry), []).append(entry)
    slots = []
    for group in groups.values():
        ends = [e.end for e in group if e.end is not None]
        first = group[0]
        if first.start is not None:  # only timed entries are scheduled
            slot = Slot(first.presentation.session, first.kind, first.start,
                        max(ends, default=None), tuple(group))  # fmt: skip
            slots.append(slot)
    return tuple(slots)


def schedule(papers: Iterable[Paper]) -> Schedule:
    """The schedule of `papers` (a user's saved papers, any order, repeats ignored)."""
    saved = unique_papers(papers)
    timed = sorted(
        (e for paper in saved for e in entries_of(paper) if e.start is not None), key=entry_order
    )
    by_day: dict[date, list[Entry]] = {}
    for entry in timed:
        if entry.day is not None:
            by_day.setdefault(entry.day, []).append(entry)
    scheduled = {e.paper.id for e in timed}
    return Schedule(
        days=tuple(Day(day, _slots(group)) for day, group in by_day.items()),
        clashes=find_clashes(timed),
        unscheduled=tuple(p for p in saved if p.id not in scheduled),
    )


def _groups(timed: Sequence[Entry]) -> list[frozenset[int]]:
    """The largest groups of `timed` (in start order) that all overlap, of two or more papers:
    a sweep over start times, each group the entries running at one of them."""
    found: set[frozenset[int]] = set()
    running: list[int] = []
    for moment, starting in groupby(range(len(timed)), key=lambda n: timed[n].start):
        running = [n for n in running if _still_running(timed[n], moment)]
        running += starting
        if len({timed[n].paper.id for n in running}) > 1:
            found.add(frozenset(running))
    return [g for g in found if not any(g < other for other in found)]


def _still_running(entry: Entry, moment: datetime | None) -> bool:
    """Whether `entry`, started before `moment`, has not ended by then."""
    end = entry.end or entry.start
    return moment is not None and end is not None and moment < end


def find_clashes(entries: Iterable[Entry]) -> tuple[Clash, ...]:
    """The clashes among `entries` (groups in which every two presentations of different
    papers overlap), each with its ways out, in time order."""
    timed = sorted((e for e in entries if e.start is not None), key=entry_order)
    groups = _groups(timed)
    clashing = frozenset().union(*groups)  # exactly the entries overlapping another paper's
    clashes = []
    for group in groups:
        papers = {timed[n].paper.id for n in group}
        ways_out = (e for n, e in enumerate(timed) if n not in clashing and e.paper.id in papers)
        clashes.append(Clash(tuple(timed[n] for n in sorted(group)), tuple(ways_out)))
    return tuple(sorted(clashes, key=lambda c: [entry_order(e) for e in c.entries]))
