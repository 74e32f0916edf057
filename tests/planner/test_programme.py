"""The programme: sessions from every paper's presentations, their papers in poster order,
the venue's offset and dates, and `/session` lookups."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from bot.corpus import Paper, load_corpus
from bot.corpus.model import Presentation
from bot.planner import Programme, Session, build_programme
from testkit.programme import synthetic_programme

SEOUL = timezone(timedelta(hours=9))


def names(sessions: tuple[Session, ...]) -> list[str]:
    return [s.name for s in sessions]


def test_sessions_in_time_order_with_their_times_and_rooms(programme: Programme) -> None:
    assert names(programme.sessions) == [
        "Oral 1A Theory", "Poster Session 1", "Poster Session 2", "Oral 2A Optimization",
        "Poster Session 3", "Oral 2B Large Language Models", "Poster Session 4 East",
        "Poster Session 4 West", "Poster Session 5", "",
    ]  # fmt: skip
    oral = programme.sessions[0]
    assert (oral.kind, oral.start, oral.end, oral.rooms) == (
        "oral", datetime(2026, 7, 14, 10, 0, tzinfo=SEOUL),
        datetime(2026, 7, 14, 10, 30, tzinfo=SEOUL), ("West Ballroom A",),
    )  # fmt: skip
    poster = programme.sessions[1]
    assert poster.rooms == ("East Exhibition Hall A-B", "West Exhibition Hall B2-B3")
    assert poster.start == datetime(2026, 7, 14, 11, 0, tzinfo=SEOUL)


def test_a_sessions_papers_in_poster_position_order(
    programme: Programme, week: dict[str, Paper]
) -> None:
    (session,) = programme.find("1")
    assert [e.presentation.position for e in session.entries] == ["E-101", "E-205", "W-12"]
    assert [e.paper.id for e in session.entries] == [week[n].id for n in "ABC"]
    (talks,) = programme.find("Oral 1A")
    assert [e.paper.id for e in talks.entries] == [week["D"].id, week["E"].id]  # time order


def test_a_poster_in_no_session_is_a_session_of_its_time(
    programme: Programme, week: dict[str, Paper]
) -> None:
    unnamed = programme.sessions[-1]
    assert (unnamed.name, unnamed.kind, unnamed.number) == ("", "poster", None)
    assert [e.paper.id for e in unnamed.entries] == [week["H"].id]
    assert all(week["I"].id not in {e.paper.id for e in s.entries} for s in programme.sessions)


def test_the_venue_offset_and_dates(programme: Programme) -> None:
    assert str(programme.tz) == "Asia/Seoul"  # the venue's clock, named
    assert (programme.first_day, programme.last_day) == (date(2026, 7, 14), date(2026, 7, 16))
    # The 08:30 oral is on Wednesday at the venue though Tuesday in UTC.
    assert programme.find("Oral 2A")[0].day == date(2026, 7, 15)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("3", ["Poster Session 3"], id="number"),
        pytest.param("#3", ["Poster Session 3"], id="hash-number"),
        pytest.param("4", ["Poster Session 4 East", "Poster Session 4 West"], id="number-halls"),
        pytest.param("Oral 2B", ["Oral 2B Large Language Models"], id="prefix"),
        pytest.param("oral 2b", ["Oral 2B Large Language Models"], id="case"),
        pytest.param('"Poster Session 1"', ["Poster Session 1"], id="quoted-exact"),
        pytest.param("  poster   SESSION 4 west ", ["Poster Session 4 West"], id="spacing"),
        pytest.param("Oral 2", ["Oral 2A Optimization", "Oral 2B Large Language Models"],
                     id="plain-prefix"),
        pytest.param("language models", ["Oral 2B Large Language Models"], id="words"),
        pytest.param("9", [], id="no-such-number"),
        pytest.param("Oral 9Z", [], id="no-such-name"),
        pytest.param("", [], id="empty"),
    ],
)  # fmt: skip
def test_find_session(programme: Programme, query: str, expected: list[str]) -> None:
    assert names(programme.find(query)) == expected


def test_exact_name_wins_over_longer_names(programme: Programme) -> None:
    assert names(programme.find("Poster Session 1")) == ["Poster Session 1"]


def test_a_name_recurring_on_two_days_is_two_sessions() -> None:
    def poster(n: int, day: int) -> Paper:
        start = f"2026-07-{day}T11:00:00+09:00"
        shown = Presentation("poster", "Poster Session", start, start, "Hall", f"A-{n}", str(n))
        return Paper(id=f"p{n}", title=f"T{n}", abstract="", presentations=(shown,))

    built = build_programme([poster(1, 14), poster(2, 15), poster(3, 14)])
    assert [(s.day, len(s.entries)) for s in built.sessions] == [
        (date(2026, 7, 14), 2), (date(2026, 7, 15), 1)
    ]  # fmt: skip


def test_no_programme() -> None:
    empty = build_programme([Paper(id="x", title="T", abstract="")])
    assert not empty
    assert (empty.sessions, empty.tz, empty.first_day, empty.last_day) == ((), None, None, None)
    assert empty.find("3") == ()


def test_a_synthetic_icml_sized_sample(tmp_path: Path) -> None:
    """The testkit programme (a tenth of ICML 2026's size): every timed presentation is in
    exactly one session; ten poster sessions over five days; four oral rooms in parallel."""
    papers = load_corpus([synthetic_programme(tmp_path, posters=634, orals=32)]).papers
    built = build_programme(papers)
    posters = [s for s in built.sessions if s.kind == "poster"]
    assert [s.number for s in posters] == list(range(1, 11))
    assert sum(len(s.entries) for s in posters) == 634
    orals = [s for s in built.sessions if s.kind == "oral"]
    assert sum(len(s.entries) for s in orals) == 32
    assert all(len(s.rooms) == 1 and len(s.entries) == 4 for s in orals)
    assert len(built.find("Oral 1A")) == 1
    assert names(built.find("1")) == names(built.find("Poster Session 1")) == ["Poster Session 1"]
    assert names(built.find("10")) == ["Poster Session 10"]
    assert (built.first_day, built.last_day) == (date(2026, 7, 14), date(2026, 7, 18))
    timed = sum(1 for p in papers for shown in p.presentations if shown.starts_at)
    assert sum(len(s.entries) for s in built.sessions) == timed
