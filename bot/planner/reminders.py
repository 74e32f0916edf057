"""Which reminders are due: one `lead` minutes before each saved paper's presentation, once
per user and presentation (the caller's ledger says which were sent); one that fell due while
the bot was down still goes out if the presentation has not started."""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator
from datetime import UTC, datetime, timedelta

from bot.corpus import Paper
from bot.planner.entries import Entry, entries_of, entry_order, unique_papers

__all__ = ["SentKey", "due_reminders", "next_due", "sent_key"]

SentKey = tuple[str, str]  # (paper id, presentation key at its start): a user's ledger row


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
