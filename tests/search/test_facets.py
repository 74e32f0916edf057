"""The programme's conditions on feeds written the way the conference site writes them
(`tests/data/programme/`: ICML 2026 at +09:00, NeurIPS 2025 at -08:00, ICLR 2024 at +02:00,
OpenReview notes without a programme): posters without sessions, orals merged into their
posters, null fields. Each mask is checked against a brute-force reading of every paper,
on the papers as loaded and as read back from the index cache."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest

from bot.corpus import Paper, Presentation, load_corpus
from bot.search import Index, load_corpus_and_index
from bot.search.query.pipeline import QueryPipeline
from bot.search.query.syntax import parse_query
from bot.search.rank.filters import candidates, filter_columns
from testkit.paths import TEST_DATA

PROGRAMME = TEST_DATA / "programme"
NOW = datetime(2026, 7, 15, 3, 0, tzinfo=UTC)  # 12:00 on Wed 15 Jul at ICML (+09:00)


@pytest.fixture(scope="module")
def index() -> Index:
    return Index.build(load_corpus([PROGRAMME]).papers)


@pytest.fixture(scope="module")
def cached(tmp_path_factory: pytest.TempPathFactory) -> Index:
    cache = tmp_path_factory.mktemp("cache")
    load_corpus_and_index([PROGRAMME], cache, min_papers=0)
    report, index = load_corpus_and_index([PROGRAMME], cache, min_papers=0)
    assert type(report.papers).__name__ == "PaperColumns"  # read back, not rebuilt
    return index


def rows(index: Index, query: str, now: datetime | None = NOW) -> set[int]:
    mask = candidates(index, parse_query(query, now=now))
    assert mask is not None, query
    return set(np.flatnonzero(mask).tolist())


def expected(index: Index, holds: Callable[[Paper], bool]) -> set[int]:
    return {row for row, paper in enumerate(index.papers) if holds(paper)}


def starts(paper: Paper) -> list[datetime]:
    return [datetime.fromisoformat(p.start) for p in paper.presentations if p.start]


def titles(index: Index, found: set[int]) -> set[str]:
    return {index.papers[row].title for row in found}


BRUTE: dict[str, Callable[[Paper], bool]] = {
    "session:3": lambda p: any(
        re.search(r"poster session 3$", s.session.lower()) for s in p.presentations
    ),
    "session:oral": lambda p: any(s.session.lower().startswith("oral") for s in p.presentations),
    "day:2026-07-15": lambda p: any(t.date() == date(2026, 7, 15) for t in starts(p)),
    "day:wed": lambda p: any(t.weekday() == 2 for t in starts(p)),
    "day:2025-12-03": lambda p: any(t.date() == date(2025, 12, 3) for t in starts(p)),
    "day:today": lambda p: any(t.date() == date(2026, 7, 15) for t in starts(p)),
    "day:tomorrow": lambda p: any(t.date() == date(2026, 7, 16) for t in starts(p)),
    "status:oral": lambda p: p.tier == "oral",
    "status:spotlight": lambda p: p.tier == "spotlight",
    "status:poster": lambda p: p.tier == "poster",
    "-status:poster": lambda p: p.tier != "poster",
    "-session:3": lambda p: not BRUTE["session:3"](p),
    'room:"Exhibit Hall"': lambda p: any("Exhibit Hall" in s.room for s in p.presentations),
    "topic:theory": lambda p: "theory" in p.topic.lower(),
    "inst:inria": lambda p: "Inria" in p.institutions,
    "session:3 OR session:4": lambda p: any(
        re.search(r"poster session [34]$", s.session.lower()) for s in p.presentations
    ),
    "day:wed -session:3": lambda p: BRUTE["day:wed"](p) and not BRUTE["session:3"](p),
}


@pytest.mark.parametrize("query", list(BRUTE))
def test_masks_agree_with_every_paper_read_one_by_one(index: Index, query: str) -> None:
    assert rows(index, query) == expected(index, BRUTE[query])


@pytest.mark.parametrize("query", list(BRUTE))
def test_cached_papers_give_the_same_masks(index: Index, cached: Index, query: str) -> None:
    assert titles(cached, rows(cached, query)) == titles(index, rows(index, query))


def test_conditions_do_match_something(index: Index) -> None:
    assert all(rows(index, query) for query in BRUTE)  # no check passes by matching nothing


def test_a_bare_session_number_is_the_poster_session_in_every_feed(index: Index) -> None:
    sessions = {
        s.session for row in rows(index, "session:3") for s in index.papers[row].presentations
    }
    assert {"Poster Session 3", "San Diego Poster Session 3"} <= sessions
    assert any(s.startswith("Oral 3") for s in sessions)  # orals come along…
    for row in rows(index, "session:3"):  # …only as the same papers' other presentation
        assert any(s.session.endswith("Poster Session 3") for s in index.papers[row].presentations)


@pytest.mark.parametrize(
    ("query", "sessions"),
    [
        pytest.param('session:"Poster Session 3"', {"Poster Session 3"}, id="whole-name"),
        pytest.param('session:"Oral 3A"', {"Oral 3A Large Language Models"}, id="prefix"),
        pytest.param('session:"oral 3"', {"Oral 3A Large Language Models",
                                          "Oral 3B Probabilistic Methods"}, id="char-prefix"),
        pytest.param('session:"oral 1a"', {"Oral 1A Large Language Models"}, id="first-rule-wins"),
        pytest.param("session:1a", {"Oral 1A Large Language Models", "Oral Session 1A"},
                     id="words-anywhere"),
        pytest.param("session:#9", {"Poster Session 9"}, id="hash-number"),
        pytest.param("session:12", set(), id="no-such-session"),
    ],
)  # fmt: skip
def test_session_names(index: Index, query: str, sessions: set[str]) -> None:
    named = {
        s.session
        for row in rows(index, query)
        for s in index.papers[row].presentations
        if s.session in sessions
    }
    assert named == sessions
    clause = parse_query(query).filters[0]
    for row in rows(index, query):
        assert any(s.session in sessions for s in index.papers[row].presentations), clause


def test_posters_without_a_session_or_a_time(index: Index) -> None:
    by_title = {p.title: row for row, p in enumerate(index.papers)}
    untimed = by_title["A Kernel Two-Sample Test for Tabular Foundation Models"]
    sessionless = by_title["Spectral Filtering for Long-Context State Space Models"]
    assert not any(p.timed for p in index.papers[untimed].presentations)
    assert index.papers[sessionless].presentations[0].session == ""
    assert sessionless in rows(index, "day:2026-07-15")
    assert sessionless in rows(index, 'room:"West Exhibition Hall"')
    for query in ("session:poster", "day:wed", "room:hall"):
        assert untimed not in rows(index, query)
    for query in ("-session:1", "-day:wed", "-room:hall"):  # negation keeps them
        assert untimed in rows(index, query)
    assert {untimed, sessionless} <= rows(index, "-session:3")


def test_an_oral_merged_into_its_poster(index: Index) -> None:
    found = rows(index, "status:oral")
    assert "Sparse Routers Without Collapse" in titles(index, found)
    for row in found:
        assert index.papers[row].tier == "oral"
    assert not found & rows(index, "status:poster")
    both = rows(index, 'session:"Oral 2A"') & rows(index, "session:2")
    assert titles(index, both) == {"Sparse Routers Without Collapse"}


def test_a_spotlight_poster_is_no_poster(index: Index) -> None:
    spot = titles(index, rows(index, "status:spotlight"))
    assert "Calibrated Conformal Prediction under Label Shift" in spot
    assert not spot & titles(index, rows(index, "status:poster"))


def test_other_status_values_match_the_field_as_before(index: Index) -> None:
    assert rows(index, "status:accept") == set()  # the status holds the tier word only


def test_topic_parts_stay_apart() -> None:
    papers = [
        Paper("a", "A", "", topic="Deep Learning->Theory"),
        Paper("b", "B", "", topic="Theory->Learning Theory"),
        Paper("c", "C", "", topic="Reinforcement Learning->Deep RL"),
    ]
    index = Index.build(papers)
    assert rows(index, "topic:theory") == {0, 1}
    assert rows(index, 'topic:"learning theory"') == {1}
    assert rows(index, 'topic:"deep learning"') == {0}
    assert rows(index, 'topic:"Deep Learning->Theory"') == {0}
    assert rows(index, 'topic:"deep learning theory"') == set()


INSTITUTIONS = (
    "Tsinghua University", "ETH Zürich", "Massachusetts Institute of Technology", "MIT",
    "University of Oxford", "清华大学", "Universität Tübingen", "",
)  # fmt: skip


@pytest.fixture(scope="module")
def places() -> Index:
    papers = [
        Paper(f"p{n}", f"Paper {n}", "", authors=("A B", "C D"), affiliations=(place, "KAIST"))
        for n, place in enumerate(INSTITUTIONS)
    ]
    return Index.build(papers)


@pytest.mark.parametrize(
    ("value", "found"),
    [
        pytest.param("tsinghua", {0}, id="one-word-of-the-name"),
        pytest.param("TSINGHUA", {0}, id="case"),
        pytest.param('"ETH Zurich"', {1}, id="accent-typed-without"),
        pytest.param('"eth zuerich"', {1}, id="transliterated"),
        pytest.param('"ETH Zürich"', {1}, id="as-written"),
        pytest.param("MIT", {3}, id="abbreviation-is-its-own-name"),
        pytest.param('"oxford university"', {4}, id="any-order"),
        pytest.param('"University of Oxford"', {4}, id="whole-name"),
        pytest.param("清华", {5}, id="chinese-inside-a-name"),
        pytest.param("tubingen", {6}, id="umlaut"),
        pytest.param("univ", set(), id="whole-words-only"),
        pytest.param("kaist", set(range(8)), id="second-author"),
        pytest.param("university", {0, 4}, id="a-common-word"),
    ],
)
def test_institutions_match_as_loosely_as_names(places: Index, value: str, found: set[int]) -> None:
    assert rows(places, f"inst:{value}") == found


@pytest.fixture(scope="module")
def midnight() -> Index:
    """Presentations near midnight: the local date is the venue's, not UTC's."""
    shown = [
        ("2026-07-15T23:30:00-08:00", "West Hall"),  # 07:30 UTC on the 16th
        ("2026-07-16T00:30:00+09:00", "West Ballroom A"),  # 15:30 UTC on the 15th
        ("2026-07-15T11:00:00+09:00", "West Ballroom B"),
        ("2026-07-15T11:00:00", "East Hall"),  # no offset: not a time the bot can place
    ]
    papers = [
        Paper(f"m{n}", f"Talk {n}", "", presentations=(Presentation("oral", "", start, "", room),))
        for n, (start, room) in enumerate(shown)
    ]
    papers.append(
        Paper(
            "m9",
            "Talk 9",
            "",
            presentations=(Presentation("poster", "", "2026-07-16T10:00:00+09:00"),),
        )
    )
    return Index.build(papers)


def test_each_presentation_is_on_its_own_local_day(midnight: Index) -> None:
    assert rows(midnight, "day:2026-07-15") == {0, 2}
    assert rows(midnight, "day:2026-07-16") == {1, 4}
    assert rows(midnight, "day:wed") == {0, 2}
    assert rows(midnight, "day:7/16") == {1, 4}


@pytest.mark.parametrize(
    ("now", "today", "tomorrow"),
    [
        # 12:00 at +09:00 on the 15th, 19:00 at -08:00 on the 14th
        pytest.param(datetime(2026, 7, 15, 3, tzinfo=UTC), {2}, {0, 1, 4}, id="noon-at-+09"),
        # 00:30 at +09:00 on the 16th, 07:30 at -08:00 on the 15th
        pytest.param(datetime(2026, 7, 15, 15, 30, tzinfo=UTC), {0, 1, 4}, set(), id="midnight"),
    ],
)
def test_today_is_the_venues_day(
    midnight: Index, now: datetime, today: set[int], tomorrow: set[int]
) -> None:
    assert rows(midnight, "day:today", now) == today
    assert rows(midnight, "day:明天", now) == tomorrow


def test_the_pipelines_clock_sets_today(midnight: Index) -> None:
    moments = iter([datetime(2026, 7, 15, 3, tzinfo=UTC), datetime(2026, 7, 16, 3, tzinfo=UTC)])
    pipeline = QueryPipeline(midnight, clock=lambda: next(moments))
    first = midnight.search(pipeline.prepare("day:today"), limit=10)
    second = midnight.search(pipeline.prepare("day:today"), limit=10)
    assert {h.paper.id for h in first.hits} == {"m2"}
    assert {h.paper.id for h in second.hits} == {"m0", "m1", "m9"}


def test_today_without_a_moment_is_dropped(midnight: Index) -> None:
    assert candidates(midnight, parse_query("day:today")) is None


def test_rooms_match_their_words_in_a_row(midnight: Index) -> None:
    assert rows(midnight, 'room:"West Ballroom A"') == {1}
    assert rows(midnight, "room:ballroom") == {1, 2}
    assert rows(midnight, 'room:"ballroom west"') == set()
    assert rows(midnight, "room:hall") == {0, 3}


def test_a_corpus_without_a_programme_matches_nothing() -> None:
    index = Index.build([Paper("x", "Graph networks", "On graphs.", status="Oral")])
    assert rows(index, "session:3") == set()
    assert rows(index, "day:wed") == set()
    assert rows(index, "status:oral") == {0}  # a list's own status still names the tier


def test_programme_columns_wait_for_a_programme_condition(index: Index) -> None:
    fresh = Index.build(index.papers[:5])
    columns = filter_columns(fresh)
    candidates(fresh, parse_query("year:2026"))
    assert columns.nbytes == columns.years.nbytes + sum(
        labels.codes.nbytes for labels in columns.labels.values()
    )
    candidates(fresh, parse_query("day:wed"))
    assert columns.nbytes > columns.years.nbytes + sum(
        labels.codes.nbytes for labels in columns.labels.values()
    )
    assert columns.programme is columns.programme


def test_day_offsets_are_one_day(index: Index) -> None:
    # today and tomorrow one day apart at every venue offset the fixtures use
    today = rows(index, "day:today")
    tomorrow = rows(index, "day:tomorrow", NOW - timedelta(days=1))
    assert today == tomorrow
