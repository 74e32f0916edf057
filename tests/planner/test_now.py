"""`/now`: the sessions running and the next ones, in venue time, with the user's papers,
else their topics' matches, else the session's first papers; the dates outside them."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from bot.corpus import Paper
from bot.corpus.model import Presentation
from bot.planner import Happening, Programme, build_programme, now_and_next

SEOUL = timezone(timedelta(hours=9))


def summary(happenings: tuple[Happening, ...], week: dict[str, Paper]) -> list[str]:
    name_of = {p.id: n for n, p in week.items()}
    return [
        f"{h.session.name}: {h.why} {''.join(name_of[e.paper.id] for e in h.picks)} /{h.matched}"
        for h in happenings
    ]


def test_during_a_poster_session_the_users_saved_posters(
    programme: Programme, week: dict[str, Paper]
) -> None:
    now = datetime(2026, 7, 14, 3, 0, tzinfo=UTC)  # 12:00 in Seoul
    found = now_and_next(programme, now, saved={week["C"].id, week["A"].id, week["G"].id})
    assert found.at == datetime(2026, 7, 14, 12, 0, tzinfo=SEOUL)
    assert found.at.utcoffset() == timedelta(hours=9)
    assert summary(found.current, week) == ["Poster Session 1: saved AC /2"]  # board order
    assert summary(found.upcoming, week) == ["Poster Session 2: first E /1"]
    assert found.phase == "during"


def test_followed_topics_then_the_first_papers(
    programme: Programme, week: dict[str, Paper]
) -> None:
    now = datetime(2026, 7, 15, 11, 40, tzinfo=SEOUL)  # Poster Session 3 and Oral 2B
    scores = {week["F"].id: 0.4, week["D"].id: 2.0}
    found = now_and_next(programme, now, score=lambda p: scores.get(p.id, 0.0))
    assert summary(found.current, week) == [
        "Poster Session 3: followed DF /2", "Oral 2B Large Language Models: first G /1"
    ]  # fmt: skip
    plain = now_and_next(programme, now, limit=1)
    assert summary(plain.current, week) == [
        "Poster Session 3: first D /2", "Oral 2B Large Language Models: first G /1"
    ]  # fmt: skip


def test_saved_beats_followed(programme: Programme, week: dict[str, Paper]) -> None:
    now = datetime(2026, 7, 15, 12, 0, tzinfo=SEOUL)
    found = now_and_next(programme, now, saved={week["F"].id}, score=lambda p: 1.0)
    assert summary(found.current, week)[0] == "Poster Session 3: saved F /1"


def test_between_sessions_parallel_next_ones(programme: Programme, week: dict[str, Paper]) -> None:
    found = now_and_next(programme, datetime(2026, 7, 15, 14, 0, tzinfo=SEOUL))
    assert found.current == ()
    assert summary(found.upcoming, week) == [
        "Poster Session 4 East: first L /1", "Poster Session 4 West: first P /1"
    ]  # fmt: skip


def test_an_evening_the_next_mornings_first_session(
    programme: Programme, week: dict[str, Paper]
) -> None:
    found = now_and_next(programme, datetime(2026, 7, 14, 21, 0, tzinfo=SEOUL))
    assert summary(found.upcoming, week) == ["Oral 2A Optimization: first L /1"]  # 08:30 Wed
    assert found.phase == "during"


def test_a_session_in_no_named_session_is_listed(
    programme: Programme, week: dict[str, Paper]
) -> None:
    found = now_and_next(programme, datetime(2026, 7, 16, 17, 0, tzinfo=SEOUL))
    assert summary(found.current, week) == [": first H /1"]
    assert found.upcoming == ()


@pytest.mark.parametrize(
    ("now", "phase"),
    [
        pytest.param(datetime(2026, 6, 30, 12, 0, tzinfo=UTC), "before", id="weeks-before"),
        pytest.param(datetime(2026, 7, 13, 23, 0, tzinfo=SEOUL), "before", id="eve"),
        # 01:00 on the 14th in Seoul is still the 13th in UTC: venue time decides.
        pytest.param(datetime(2026, 7, 13, 16, 0, tzinfo=UTC), "during", id="venue-day"),
        pytest.param(datetime(2026, 7, 17, 9, 0, tzinfo=SEOUL), "after", id="after"),
    ],
)
def test_outside_the_dates_says_when(programme: Programme, now: datetime, phase: str) -> None:
    found = now_and_next(programme, now)
    assert (found.phase, found.first_day, found.last_day) == (
        phase, date(2026, 7, 14), date(2026, 7, 16)
    )  # fmt: skip
    assert found.current == ()
    if phase == "after":
        assert found.upcoming == ()
    else:
        assert [h.session.name for h in found.upcoming] == ["Oral 1A Theory"]


def test_no_programme_and_a_bad_clock() -> None:
    empty = build_programme([Paper(id="x", title="T", abstract="")])
    found = now_and_next(empty, datetime(2026, 7, 14, tzinfo=UTC))
    assert (found.phase, found.current, found.upcoming) == ("", (), ())
    with pytest.raises(ValueError, match="aware"):
        now_and_next(empty, datetime(2026, 7, 14))


def test_a_session_without_an_end_is_never_running() -> None:
    shown = Presentation("poster", "Poster Session 1", "2026-07-14T11:00:00+09:00", event="1")
    built = build_programme([Paper(id="x", title="T", abstract="", presentations=(shown,))])
    found = now_and_next(built, datetime(2026, 7, 14, 11, 0, tzinfo=SEOUL))
    assert found.current == () and found.upcoming == ()
