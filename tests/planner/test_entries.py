"""Entries: presentation keys (stable, short, safe), parsed times, the one order."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from bot.corpus import Paper
from bot.corpus.model import Presentation
from bot.planner import entries_of, presentation_key
from bot.planner.entries import position_order
from testkit.week import load_week

SEOUL = timezone(timedelta(hours=9))


def paper(*shown: Presentation, paper_id: str = "p1") -> Paper:
    return Paper(id=paper_id, title="T", abstract="", presentations=shown)


def test_key_is_kind_and_event_id(week: dict[str, Paper]) -> None:
    d = week["D"]
    assert [presentation_key(d, p) for p in d.presentations] == ["oral-51001", "poster-41005"]


def test_key_without_event_is_the_utc_start() -> None:
    oral = Presentation("oral", start="2026-07-15T08:30:00+09:00")
    assert presentation_key(paper(oral), oral) == "oral-20260714T233000Z"


def test_key_without_event_or_time_is_the_place_in_the_list() -> None:
    first, second = Presentation("poster", room="Hall C"), Presentation("poster", position="C-7")
    both = paper(first, second)
    assert [presentation_key(both, p) for p in both.presentations] == ["poster-1", "poster-2"]


def test_key_is_short_and_safe_for_any_event_id() -> None:
    odd = Presentation("Poster", event="id with spaces/and:colons" + "x" * 80)
    key = presentation_key(paper(odd), odd)
    assert re.fullmatch(r"[a-z0-9-]+", key) and len(key) <= 32
    assert key.startswith("poster-id-with-spaces-and")


def test_keys_are_stable_across_loads(week: dict[str, Paper], tmp_path: Path) -> None:
    again = load_week(tmp_path)
    keys = {n: [presentation_key(p, s) for s in p.presentations] for n, p in week.items()}
    assert keys == {n: [presentation_key(p, s) for s in p.presentations] for n, p in again.items()}
    flat = [(n, k) for n, ks in keys.items() for k in ks]
    assert len(set(flat)) == len(flat)


def test_entries_carry_aware_times_in_the_venue_offset(week: dict[str, Paper]) -> None:
    oral, poster = entries_of(week["L"])
    assert oral.start == datetime(2026, 7, 15, 8, 30, tzinfo=SEOUL)
    assert oral.start.utcoffset() == timedelta(hours=9)
    assert oral.start == datetime(2026, 7, 14, 23, 30, tzinfo=UTC)  # the same instant
    assert oral.day.isoformat() == "2026-07-15"  # the venue's date, not UTC's
    assert (poster.kind, poster.presentation.position, poster.key) == ("poster", "E-500",
                                                                       "poster-41007")  # fmt: skip


def test_an_end_before_the_start_is_dropped_and_untimed_stay_untimed(
    week: dict[str, Paper],
) -> None:
    bad = Presentation("poster", start="2026-07-15T11:00:00+09:00", end="2026-07-15T10:00:00+09:00")
    (entry,) = entries_of(paper(bad))
    assert entry.start is not None and entry.end is None
    (untimed,) = entries_of(week["I"])
    assert (untimed.start, untimed.day, untimed.presentation.position) == (None, None, "E-999")
    assert entries_of(week["J"]) == ()


def test_naive_times_count_as_unknown() -> None:
    naive = Presentation("poster", "Poster Session 3", start="2026-07-15T11:00:00")
    assert entries_of(paper(naive))[0].start is None


def test_position_order_compares_numbers_as_numbers() -> None:
    boards = ["W-12", "E-1002", "E-998", "", "E-101"]
    assert sorted(boards, key=position_order) == ["", "E-101", "E-998", "E-1002", "W-12"]
