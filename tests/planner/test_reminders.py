"""Reminders: due from `lead` minutes before a start until the start, once per presentation
(the caller's ledger), also after downtime and across a restart; `next_due` for sleeping."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta, timezone

import pytest

from bot.corpus import Paper
from bot.planner import Entry, SentKey, due_reminders, next_due, sent_key

SEOUL = timezone(timedelta(hours=9))
PS1 = datetime(2026, 7, 14, 11, 0, tzinfo=SEOUL)  # Poster Session 1 starts
ORAL_1A = datetime(2026, 7, 14, 10, 0, tzinfo=SEOUL)  # D's talk


def keys(entries: tuple[Entry, ...], week: dict[str, Paper]) -> list[str]:
    name_of = {p.id: n for n, p in week.items()}
    return [f"{name_of[e.paper.id]}:{e.key}" for e in entries]


@pytest.mark.parametrize(
    ("before_start", "due"),
    [
        pytest.param(timedelta(minutes=10, seconds=1), False, id="not-yet"),
        pytest.param(timedelta(minutes=10), True, id="exactly-lead"),
        pytest.param(timedelta(seconds=1), True, id="just-before"),
        pytest.param(timedelta(0), False, id="started"),
        pytest.param(-timedelta(minutes=5), False, id="running"),
    ],
)
def test_due_from_lead_before_until_the_start(
    week: dict[str, Paper], before_start: timedelta, due: bool
) -> None:
    found = due_reminders([week["A"]], 10, PS1 - before_start, set())
    assert keys(found, week) == (["A:poster-41001"] if due else [])


def test_now_in_any_offset_is_the_same_instant(week: dict[str, Paper]) -> None:
    utc_now = datetime(2026, 7, 14, 1, 55, tzinfo=UTC)  # 10:55 in Seoul
    assert keys(due_reminders([week["A"]], 10, utc_now, set()), week) == ["A:poster-41001"]


def test_never_twice(week: dict[str, Paper]) -> None:
    now = PS1 - timedelta(minutes=3)
    sent: set[SentKey] = {(week["A"].id, "poster-41001@20260714T0200Z")}
    assert keys(due_reminders(week.values(), 10, now, sent), week) == [
        "B:poster-41002", "C:poster-41003"
    ]  # fmt: skip


def test_a_reminder_due_while_down_goes_out_if_not_started(week: dict[str, Paper]) -> None:
    # Down from 60 minutes before until 2 minutes before Poster Session 1, lead 30.
    back = PS1 - timedelta(minutes=2)
    assert keys(due_reminders([week["A"], week["D"]], 30, back, set()), week) == ["A:poster-41001"]
    # D's talk (10:00) started during the downtime: its reminder is gone, not late.
    assert not due_reminders([week["D"]], 30, ORAL_1A + timedelta(minutes=1), set())


def test_oral_and_poster_are_two_reminders(week: dict[str, Paper]) -> None:
    oral = due_reminders([week["G"]], 15, datetime(2026, 7, 15, 11, 20, tzinfo=SEOUL), set())
    poster = due_reminders([week["G"]], 15, datetime(2026, 7, 16, 10, 50, tzinfo=SEOUL), set())
    assert keys(oral, week) + keys(poster, week) == ["G:oral-51004", "G:poster-41009"]


def test_saving_later_and_removing_count(week: dict[str, Paper]) -> None:
    now = PS1 - timedelta(minutes=5)
    assert keys(due_reminders([week["A"]], 10, now, set()), week) == ["A:poster-41001"]
    assert keys(due_reminders([week["B"]], 10, now, set()), week) == ["B:poster-41002"]
    assert due_reminders([], 10, now, set()) == ()


def run_job(
    saved: list[Paper], ledger: set[SentKey], start: datetime, stop: datetime
) -> list[tuple[str, datetime]]:
    """One bot process's reminder job from `start` until it stops at `stop`: it wakes at
    `next_due`, sends what is due and records it in `ledger` (the store's, which outlives it)."""
    sent: list[tuple[str, datetime]] = []
    clock: datetime | None = start
    while clock is not None and clock < stop:
        for entry in due_reminders(saved, 10, clock, ledger):
            sent.append((f"{entry.paper.id}/{entry.key}", clock))
            ledger.add(sent_key(entry))
        clock = next_due(saved, 10, clock, ledger)
    return sent


@pytest.mark.parametrize(
    ("down", "back", "late"),
    [
        pytest.param("10:52", "10:55", False, id="restart-inside-the-window"),
        pytest.param("10:45", "10:56", True, id="due-while-down-sent-on-return"),
        pytest.param("10:45", "11:01", None, id="started-while-down-never-sent"),
    ],
)
def test_across_a_restart_each_is_sent_once(
    week: dict[str, Paper], down: str, back: str, late: bool | None
) -> None:
    def at(clock: str) -> datetime:
        return datetime.fromisoformat(f"2026-07-14T{clock}:00+09:00")

    saved = [week[n] for n in "ABCDE"]
    ledger: set[SentKey] = set()
    sent = run_job(saved, ledger, at("09:00"), at(down)) + run_job(
        saved, ledger, at(back), at("23:00")
    )
    names = {p.id: n for n, p in week.items()}
    got = [(f"{names[key.split('/')[0]]}/{key.split('/')[1]}", when) for key, when in sent]
    posters = ["A/poster-41001", "B/poster-41002", "C/poster-41003"]
    expected_at = {None: None, True: at(back), False: at("10:50")}[late]
    assert got == [
        ("D/oral-51001", at("09:50")), ("E/oral-51002", at("10:05")),
        *([(p, expected_at) for p in posters] if expected_at else []),
        ("E/poster-41004", at("16:20")),
    ]  # fmt: skip


def test_restart_inside_the_window_sends_nothing_again(week: dict[str, Paper]) -> None:
    ledger: set[SentKey] = set()  # what the store keeps across the restart
    first_run = due_reminders([week["A"]], 10, PS1 - timedelta(minutes=8), ledger)
    ledger.update(sent_key(e) for e in first_run)
    # The bot restarts; three minutes later its new job asks again with the stored ledger.
    assert due_reminders([week["A"]], 10, PS1 - timedelta(minutes=5), ledger) == ()
    assert len(first_run) == 1


def test_next_due(week: dict[str, Paper]) -> None:
    saved = [week["A"], week["E"]]
    morning = datetime(2026, 7, 14, 8, 0, tzinfo=SEOUL)
    assert next_due(saved, 10, morning) == datetime(2026, 7, 14, 10, 5, tzinfo=SEOUL)  # E's talk
    at_due = datetime(2026, 7, 14, 10, 5, tzinfo=SEOUL)  # due now: due_reminders' job
    assert next_due(saved, 10, at_due) == PS1 - timedelta(minutes=10)
    sent = {(week["A"].id, "poster-41001@20260714T0200Z")}
    assert next_due(saved, 10, at_due, sent) == datetime(2026, 7, 14, 16, 20, tzinfo=SEOUL)
    assert next_due(saved, 10, datetime(2026, 7, 14, 17, 0, tzinfo=SEOUL)) is None
    assert next_due([week["I"], week["J"]], 10, morning) is None


def test_bad_clock_or_lead(week: dict[str, Paper]) -> None:
    with pytest.raises(ValueError, match="aware"):
        due_reminders([week["A"]], 10, datetime(2026, 7, 14, 10, 55), set())
    with pytest.raises(ValueError, match="negative"):
        next_due([week["A"]], -1, PS1)


def test_a_poster_moved_to_another_time_is_reminded_again_once(week: dict[str, Paper]) -> None:
    """A newer programme moves A's poster from Tuesday 11:00 to Wednesday 11:00 (Seoul)."""
    (first,) = due_reminders([week["A"]], 10, PS1 - timedelta(minutes=5), set())
    ledger = {sent_key(first)}
    (shown,) = week["A"].presentations
    moved_to = shown.start.replace("2026-07-14", "2026-07-15")
    moved = dataclasses.replace(
        week["A"],
        presentations=(dataclasses.replace(shown, start=moved_to, end=moved_to),),
    )
    assert due_reminders([week["A"]], 10, PS1 - timedelta(minutes=4), ledger) == ()  # not again
    wednesday = datetime(2026, 7, 15, 10, 55, tzinfo=SEOUL)
    (again,) = due_reminders([moved], 10, wednesday, ledger)
    assert again.key == first.key and sent_key(again) != sent_key(first)
    ledger.add(sent_key(again))
    assert due_reminders([moved], 10, wednesday, ledger) == ()  # and only once
