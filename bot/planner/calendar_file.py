"""A user's saved papers as an iCalendar file (RFC 5545): one event per presentation, with a
UID stable per paper and presentation so importing the file again updates, never doubles."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

import icalendar

from bot.corpus import Paper, page_url
from bot.planner.entries import Entry, entries_of, entry_order, unique_papers

CALENDAR_FORMAT = "ics"
"""The file name extension, and what `/export` calls the calendar file."""

PRODID = "-//icml-papers-bot//planner//EN"
UID_DOMAIN = "icml-papers-bot.invalid"  # RFC 5545 asks for a domain; ".invalid" is no one's
KIND_LABELS: Mapping[str, str] = {"poster": "Poster", "oral": "Oral"}  # SUMMARY's, per kind


def event_uid(entry: Entry) -> str:
    """`<paper id>-<presentation key>@<UID_DOMAIN>`: the same in every export."""
    return f"{entry.paper.id}-{entry.key}@{UID_DOMAIN}"


def _location(entry: Entry) -> str:
    shown = entry.presentation
    return ", ".join(filter(None, (shown.room, shown.board)))


def _description(entry: Entry, url: str) -> str:
    authors = ", ".join(entry.paper.authors)
    return "\n".join(filter(None, (authors, entry.presentation.session, url)))


def _event(entry: Entry, start: datetime, stamp: datetime, label: str) -> icalendar.Event:
    event = icalendar.Event()
    event.add("uid", event_uid(entry))
    event.add("dtstamp", stamp)
    event.add("dtstart", start.astimezone(UTC))
    if entry.end is not None and entry.end > start:
        event.add("dtend", entry.end.astimezone(UTC))
    event.add("summary", f"{label}: {entry.paper.title}" if label else entry.paper.title)
    location = _location(entry)
    if location:
        event.add("location", location)
    url = page_url(entry.paper.links)
    if url:
        event.add("url", url)
    description = _description(entry, url)
    if description:
        event.add("description", description)
    return event


def calendar_file(
    papers: Iterable[Paper],
    *,
    now: datetime,
    name: str,
    labels: Mapping[str, str] = KIND_LABELS,
) -> bytes:
    """The `.ics` bytes of every timed presentation of `papers`, in time order and in UTC
    (resolvable everywhere); DTSTAMP `now` (aware), X-WR-CALNAME `name`."""
    if now.tzinfo is None:
        raise ValueError("now must be an aware datetime")
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", name)
    stamp = now.astimezone(UTC)
    entries = (e for paper in unique_papers(papers) for e in entries_of(paper))
    for entry in sorted(entries, key=entry_order):
        if entry.start is not None:
            label = labels.get(entry.kind, entry.kind.capitalize())
            calendar.add_component(_event(entry, entry.start, stamp, label))
    return calendar.to_ical()
