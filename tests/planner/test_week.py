"""A user's schedule: saved papers by day and session, the ones with no time counted, and
the clashes with their ways out."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from bot.corpus import Paper
from bot.corpus.model import Presentation
from bot.planner import Clash, Schedule, entries_of, schedule
from bot.planner.week import find_clashes

SEOUL = timezone(timedelta(hours=9))


def saved(week: dict[str, Paper], names: str) -> list[Paper]:
    return [week[n] for n in names]


def outline(plan: Schedule, week: dict[str, Paper]) -> list[tuple[str, str, list[str]]]:
    """(date, session, [name:kind@position]) per slot: the schedule as the UI lists it."""
    name_of = {p.id: n for n, p in week.items()}
    return [
        (day.date.isoformat(), slot.session,
         [f"{name_of[e.paper.id]}:{e.kind}@{e.presentation.position or e.presentation.room}"
          for e in slot.entries])
        for day in plan.days for slot in day.slots
    ]  # fmt: skip


def who(clash: Clash, week: dict[str, Paper]) -> list[str]:
    name_of = {p.id: n for n, p in week.items()}
    return [f"{name_of[e.paper.id]}:{e.kind}" for e in clash.entries]


def test_by_day_and_session_in_time_order(week: dict[str, Paper]) -> None:
    plan = schedule(saved(week, "HGFEDCBA"))
    assert outline(plan, week) == [
        ("2026-07-14", "Oral 1A Theory", ["D:oral@West Ballroom A", "E:oral@West Ballroom A"]),
        ("2026-07-14", "Poster Session 1", ["A:poster@E-101", "B:poster@E-205", "C:poster@W-12"]),
        ("2026-07-14", "Poster Session 2", ["E:poster@E-400"]),
        ("2026-07-15", "Poster Session 3", ["D:poster@E-300", "F:poster@E-301"]),
        ("2026-07-15", "Oral 2B Large Language Models", ["G:oral@West Ballroom C"]),
        ("2026-07-16", "Poster Session 5", ["G:poster@W-40"]),
        ("2026-07-16", "", ["H:poster@C-7"]),
    ]
    first = plan.days[0].slots[1]
    assert (first.kind, first.start, first.end) == (
        "poster",
        datetime(2026, 7, 14, 11, tzinfo=SEOUL),
        datetime(2026, 7, 14, 13, 30, tzinfo=SEOUL),
    )
    assert first.entries[0].presentation.room == "East Exhibition Hall A-B"
    assert len(plan.entries) == 11


def test_the_day_is_the_venues_from_the_presentations_own_offset(week: dict[str, Paper]) -> None:
    plan = schedule([week["L"]])
    (day,) = plan.days
    assert day.date == date(2026, 7, 15)  # 08:30 at +09:00 is 23:30 on the 14th in UTC
    assert [s.session for s in day.slots] == ["Oral 2A Optimization", "Poster Session 4 East"]


def test_papers_without_a_time_are_counted(week: dict[str, Paper]) -> None:
    plan = schedule(saved(week, "AIJ"))
    assert [p.id for p in plan.unscheduled] == [week["I"].id, week["J"].id]
    assert outline(plan, week) == [("2026-07-14", "Poster Session 1", ["A:poster@E-101"])]
    nothing = schedule(saved(week, "IJ"))
    assert not nothing and nothing.days == () and len(nothing.unscheduled) == 2
    assert not schedule([])


def test_repeats_and_order_of_the_saved_list_change_nothing(week: dict[str, Paper]) -> None:
    assert schedule(saved(week, "ABCDFG")) == schedule(saved(week, "GFDCBAAG"))


def test_posters_in_one_session_clash_without_a_way_out(week: dict[str, Paper]) -> None:
    (clash,) = schedule(saved(week, "ABC")).clashes
    assert who(clash, week) == ["A:poster", "B:poster", "C:poster"]
    assert (clash.kind, clash.session, clash.ways_out) == ("posters", "Poster Session 1", ())
    assert [p.id for p in clash.papers] == [week[n].id for n in "ABC"]


def test_posters_in_overlapping_sessions_clash(week: dict[str, Paper]) -> None:
    (clash,) = schedule(saved(week, "LP")).clashes
    assert who(clash, week) == ["L:poster", "P:poster"]
    assert (clash.kind, clash.session) == ("posters", "")
    # L's oral (Wednesday 08:30) overlaps nothing saved: it is the way out.
    assert [(e.paper.id, e.kind) for e in clash.ways_out] == [(week["L"].id, "oral")]


def test_an_oral_during_a_saved_poster_session(week: dict[str, Paper]) -> None:
    (clash,) = schedule(saved(week, "FG")).clashes
    assert who(clash, week) == ["F:poster", "G:oral"]
    assert clash.kind == "oral"
    (way_out,) = clash.ways_out  # G's poster on Thursday; F has no other presentation
    assert (way_out.paper.id, way_out.kind, way_out.presentation.session) == (
        week["G"].id, "poster", "Poster Session 5"
    )  # fmt: skip


def test_a_way_out_that_clashes_itself_is_none(week: dict[str, Paper]) -> None:
    clashes = schedule(saved(week, "FGM")).clashes  # M shares G's poster session
    assert [who(c, week) for c in clashes] == [["F:poster", "G:oral"], ["G:poster", "M:poster"]]
    assert [c.ways_out for c in clashes] == [(), ()]


def test_both_ways_out_of_a_group_of_three(week: dict[str, Paper]) -> None:
    (clash,) = schedule(saved(week, "DFG")).clashes
    assert who(clash, week) == ["D:poster", "F:poster", "G:oral"]
    assert [(e.paper.id, e.kind) for e in clash.ways_out] == [
        (week["D"].id, "oral"), (week["G"].id, "poster")
    ]  # fmt: skip


def test_back_to_back_talks_and_a_papers_own_presentations_do_not_clash(
    week: dict[str, Paper],
) -> None:
    assert schedule(saved(week, "DE")).clashes == ()  # 10:00-10:15 and 10:15-10:30
    overlapping_self = Paper(id="x", title="T", abstract="", presentations=(
        Presentation("oral", "Oral 9", "2026-07-14T11:30:00+09:00", "2026-07-14T11:45:00+09:00"),
        Presentation("poster", "Poster Session 1", "2026-07-14T11:00:00+09:00",
                     "2026-07-14T13:30:00+09:00"),
    ))  # fmt: skip
    assert schedule([overlapping_self]).clashes == ()


def test_a_talk_between_two_others_makes_two_clashes() -> None:
    def talk(paper_id: str, start: str, end: str) -> Paper:
        shown = Presentation("oral", f"Oral {paper_id}", f"2026-07-14T{start}:00+09:00",
                             f"2026-07-14T{end}:00+09:00", event=paper_id)  # fmt: skip
        return Paper(id=paper_id, title=paper_id, abstract="", presentations=(shown,))

    papers = [talk("a", "10:00", "10:20"), talk("b", "10:10", "10:40"), talk("c", "10:30", "10:50")]
    clashes = find_clashes(e for p in papers for e in entries_of(p))
    assert [[e.paper.id for e in c.entries] for c in clashes] == [["a", "b"], ["b", "c"]]
    assert all(c.kind == "orals" for c in clashes)


def test_clashes_are_deterministic(week: dict[str, Paper]) -> None:
    forward = schedule(saved(week, "ABCDFGLMP")).clashes
    assert forward == schedule(saved(week, "PMLGFDCBA")).clashes
    assert [who(c, week) for c in forward] == [
        ["A:poster", "B:poster", "C:poster"],
        ["D:poster", "F:poster", "G:oral"],
        ["L:poster", "P:poster"],
        ["G:poster", "M:poster"],
    ]
