"""The conference-week planner, pure (callers pass papers, the clock and the reminder ledger in):
sessions, a user's schedule and clashes, a calendar file, reminders, now and next, deep links."""

from bot.planner.calendar_file import CALENDAR_FORMAT, calendar_file, event_uid
from bot.planner.deep_links import paper_from_payload, start_link, start_payload
from bot.planner.entries import Entry, entries_of, presentation_key
from bot.planner.now import (
    Happening,
    NowAndNext,
    SentKey,
    due_reminders,
    next_due,
    now_and_next,
    sent_key,
)
from bot.planner.programme import Programme, Session, build_programme
from bot.planner.week import Clash, Schedule, Slot, schedule

__all__ = [
    "CALENDAR_FORMAT",
    "Clash",
    "Entry",
    "Happening",
    "NowAndNext",
    "Programme",
    "Schedule",
    "SentKey",
    "Session",
    "Slot",
    "build_programme",
    "calendar_file",
    "due_reminders",
    "entries_of",
    "event_uid",
    "next_due",
    "now_and_next",
    "paper_from_payload",
    "presentation_key",
    "schedule",
    "sent_key",
    "start_link",
    "start_payload",
]
