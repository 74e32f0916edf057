"""The programme's fields in the query syntax: session, day, room, status, inst, topic and
their Chinese names; what each value parses to, and what stays plain text."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.corpus import session_number
from bot.search.query.dates import RELATIVE_DAYS, WEEKDAYS, read_day
from bot.search.query.syntax import DayFilter, FieldFilter, ParsedQuery, parse_query
from bot.search.rank.facets import tier_named

NOW = datetime(2026, 7, 15, 3, 0, tzinfo=UTC)
WED = DayFilter(weekday=2)


@pytest.mark.parametrize(
    ("query", "clause"),
    [
        pytest.param("session:3", FieldFilter("session", "3"), id="session-number"),
        pytest.param(
            'session:"Poster Session 3"', FieldFilter("session", "Poster Session 3"), id="name"
        ),
        pytest.param('session:"Oral 2B"', FieldFilter("session", "Oral 2B"), id="oral-name"),
        pytest.param("场次:3", FieldFilter("session", "3"), id="session-hans"),
        pytest.param("場次:3", FieldFilter("session", "3"), id="session-hant"),
        pytest.param("day:2026-07-15", DayFilter(2026, 7, 15), id="iso-date"),
        pytest.param("day:2026/7/15", DayFilter(2026, 7, 15), id="slashed-date"),
        pytest.param("日期:2026年7月15日", DayFilter(2026, 7, 15), id="chinese-date"),
        pytest.param("day:7-15", DayFilter(month=7, day=15), id="month-day"),
        pytest.param("day:15/7", DayFilter(month=7, day=15), id="day-month"),
        pytest.param("日:7月15日", DayFilter(month=7, day=15), id="chinese-month-day"),
        pytest.param("day:wed", WED, id="wed"),
        pytest.param("day:Wednesday", WED, id="wednesday"),
        pytest.param("day:周三", WED, id="zhou-hans"),
        pytest.param("day:週三", WED, id="zhou-hant"),
        pytest.param("day:星期三", WED, id="xingqi"),
        pytest.param("day:礼拜三", WED, id="libai-hans"),
        pytest.param("day:禮拜三", WED, id="libai-hant"),
        pytest.param("date:sun", DayFilter(weekday=6), id="date-alias"),
        pytest.param("day:星期天", DayFilter(weekday=6), id="xingqitian"),
        pytest.param("day:today", DayFilter(from_today=0, now=NOW), id="today"),
        pytest.param("day:TOMORROW", DayFilter(from_today=1, now=NOW), id="tomorrow"),
        pytest.param("日期:今天", DayFilter(from_today=0, now=NOW), id="jintian"),
        pytest.param("日期:明天", DayFilter(from_today=1, now=NOW), id="mingtian"),
        pytest.param("room:Hall", FieldFilter("room", "Hall"), id="room"),
        pytest.param(
            '房间:"West Ballroom A"', FieldFilter("room", "West Ballroom A"), id="room-hans"
        ),
        pytest.param("會場:Hall", FieldFilter("room", "Hall"), id="room-hant"),
        pytest.param("会场:Hall", FieldFilter("room", "Hall"), id="room-huichang"),
        pytest.param("status:poster", FieldFilter("status", "poster"), id="status"),
        pytest.param("状态:oral", FieldFilter("status", "oral"), id="status-hans"),
        pytest.param("狀態:oral", FieldFilter("status", "oral"), id="status-hant"),
        pytest.param("inst:tsinghua", FieldFilter("institution", "tsinghua"), id="inst"),
        pytest.param('affil:"ETH Zürich"', FieldFilter("institution", "ETH Zürich"), id="affil"),
        pytest.param("机构:MIT", FieldFilter("institution", "MIT"), id="inst-hans"),
        pytest.param("機構:MIT", FieldFilter("institution", "MIT"), id="inst-hant"),
        pytest.param("topic:theory", FieldFilter("topic", "theory"), id="topic"),
        pytest.param(
            '主题:"deep learning"', FieldFilter("topic", "deep learning"), id="topic-hans"
        ),
        pytest.param("主題:theory", FieldFilter("topic", "theory"), id="topic-hant"),
        pytest.param("SESSION：3", FieldFilter("session", "3"), id="case-and-wide-colon"),
    ],
)
def test_each_field_and_alias(query: str, clause: FieldFilter | DayFilter) -> None:
    assert parse_query(query, now=NOW).filters == (clause,)


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("day:someday", id="not-a-day"),
        pytest.param("day:2026-02-30", id="no-such-date"),
        pytest.param("day:13/13", id="no-such-month"),
        pytest.param("day:15", id="a-bare-number"),
        pytest.param("day: wed", id="space-after-colon"),
        pytest.param("session:", id="empty-session"),
        pytest.param('inst:"tsinghua', id="unclosed-quote"),
    ],
)
def test_unreadable_values_are_plain_text(query: str) -> None:
    assert parse_query(query) == ParsedQuery(query, query)


@pytest.mark.parametrize(
    ("query", "excluded", "filters"),
    [
        pytest.param("-session:3", (FieldFilter("session", "3"),), (), id="not-session"),
        pytest.param(
            "-status:poster day:wed", (FieldFilter("status", "poster"),), (WED,), id="mixed"
        ),
        pytest.param("-day:today", (DayFilter(from_today=0, now=NOW),), (), id="not-today"),
    ],
)
def test_negation(query: str, excluded: tuple[object, ...], filters: tuple[object, ...]) -> None:
    parsed = parse_query(query, now=NOW)
    assert (parsed.excluded, parsed.filters) == (excluded, filters)


def test_or_groups_take_programme_fields() -> None:
    parsed = parse_query("session:3 OR day:thu", now=NOW)
    assert parsed.any_of == ((FieldFilter("session", "3"), DayFilter(weekday=3)),)


def test_programme_values_add_nothing_to_the_free_text() -> None:
    parsed = parse_query('session:"Oral 2B" inst:mit topic:theory room:hall sparse routers')
    assert parsed.text == "sparse routers"


def test_today_without_a_clock_keeps_no_moment() -> None:
    (clause,) = parse_query("day:today").filters
    assert clause == DayFilter(from_today=0) and not clause.readable  # type: ignore[union-attr]


def test_every_weekday_and_relative_name_is_read() -> None:
    for name, weekday in WEEKDAYS.items():
        assert read_day(name) == DayFilter(weekday=weekday), name
    for name, days in RELATIVE_DAYS.items():
        assert read_day(name, NOW) == DayFilter(from_today=days, now=NOW), name
    assert {WEEKDAYS[n] for n in ("周日", "週日", "星期日", "星期天", "礼拜天", "sunday")} == {6}


@pytest.mark.parametrize(
    ("value", "number"),
    [("3", 3), ("#3", 3), ("３", 3), (" 12 ", 12), ("3A", None), ("Oral 2B", None), ("", None)],
)
def test_a_bare_number_names_a_poster_session(value: str, number: int | None) -> None:
    assert session_number(value) == number


@pytest.mark.parametrize(
    ("value", "tier"),
    [("oral", "oral"), ("Oral", "oral"), ("SPOTLIGHT", "spotlight"), ("poster", "poster"),
     ("口头", "oral"), ("口頭報告", "oral"), ("亮点", "spotlight"), ("海報", "poster"),
     ("Accept", ""), ("spotlight poster", "")],
)  # fmt: skip
def test_tier_words(value: str, tier: str) -> None:
    assert tier_named(value) == tier
