"""The conference-week planner, pure: saved papers' presentations as a schedule with its
clashes, a calendar file, due reminders, what is on now, and paper deep links. No Telegram,
no store, no I/O: front ends pass papers, the clock and the ledger of sent reminders in.

    entries.py        `Entry` (a paper's presentation, times parsed), `presentation_key`
    programme.py      `Programme` of `Session`s from every paper (build once per index)
    week.py           `schedule(saved)` by day and session; `Clash`es and their ways out
    calendar_file.py  `calendar_file(saved, now=, name=)` -> `.ics` bytes
    reminders.py      `due_reminders`, `next_due`
    now.py            `now_and_next(programme, now, saved=, score=)`
    deep_links.py     `/start` payloads and `t.me` links of papers
"""

from bot.planner.calendar_file import CALENDAR_FORMAT, calendar_file, event_uid
from bot.planner.deep_links import paper_from_payload, start_link, start_payload
from bot.planner.entries import Entry, entries_of, presentation_key
from bot.planner.now import Happening, NowAndNext, now_and_next
from bot.planner.programme import Programme, Session, build_programme
from bot.planner.reminders import SentKey, due_reminders, next_due
from bot.planner.week import Clash, Day, Schedule, Slot, schedule

__all__ = [
    "CALENDAR_FORMAT",
    "Clash",
    "Day",
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
    "start_link",
    "start_payload",
]
