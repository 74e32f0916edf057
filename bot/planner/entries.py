"""Presentations as planner entries: times parsed once, a stable key, one order."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from bot.corpus import UNTIMED, Paper, Presentation

MAX_EVENT_CHARS = 24  # a longer event id is cut in keys (feeds use short numbers)
_UNSAFE = re.compile(r"[^A-Za-z0-9]+")
_DIGITS = re.compile(r"(\d+)")


def presentation_key(paper: Paper, presentation: Presentation) -> str:
    """A key of one of `paper`'s presentations, unique within it (reminder ledgers, calendar UIDs):
    `<kind>-<event id>`, else `<kind>-<start in UTC>`, else `<kind>-<its index in the list>`."""
    kind = _UNSAFE.sub("", presentation.kind.casefold()) or "talk"
    event = _UNSAFE.sub("-", presentation.event).strip("-")[:MAX_EVENT_CHARS].strip("-")
    if event:
        return f"{kind}-{event}"
    start = presentation.starts_at
    if start is not None:
        return f"{kind}-{start.astimezone(UTC):%Y%m%dT%H%M%SZ}"
    shown = paper.presentations
    return f"{kind}-{shown.index(presentation) + 1 if presentation in shown else 0}"


@dataclass(frozen=True, slots=True)
class Entry:
    """One presentation of one paper, its times parsed once (aware, in the venue's offset)."""

    paper: Paper
    presentation: Presentation
    start: datetime | None
    end: datetime | None
    """None when unknown; never before `start`."""
    key: str

    @property
    def kind(self) -> str:
        return self.presentation.kind

    @property
    def day(self) -> date | None:
        """The venue's local date of the start, None if untimed."""
        return self.start.date() if self.start else None


def entries_of(paper: Paper) -> tuple[Entry, ...]:
    """One entry per presentation of `paper` at the venue, in the paper's (time) order."""
    found = []
    for shown in paper.presentations:
        if not shown.on_site:
            continue
        start, end = shown.starts_at, shown.ends_at
        if start is None or (end is not None and end < start):
            end = None
        found.append(Entry(paper, shown, start, end, presentation_key(paper, shown)))
    return tuple(found)


def unique_papers(papers: Iterable[Paper]) -> list[Paper]:
    """`papers` without repeats (by id), in order."""
    seen: dict[str, Paper] = {}
    for paper in papers:
        seen.setdefault(paper.id, paper)
    return list(seen.values())


def position_order(position: str) -> tuple[tuple[int, str], ...]:
    """A poster board's sort key, numbers compared as numbers ("E-998" before "E-1002")."""
    parts = _DIGITS.split(position.casefold())
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in parts)


def entry_order(entry: Entry) -> tuple[datetime, str, tuple[tuple[int, str], ...], str, str]:
    """Time order (untimed last), then kind, poster position, paper id and key."""
    place = position_order(entry.presentation.position)
    return (entry.start or UNTIMED, entry.kind, place, entry.paper.id, entry.key)
