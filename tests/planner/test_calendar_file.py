"""The calendar file: read back by two independent parsers (`icalendar` and `ics`), its events
carry the feed's own instants and places, and its UIDs stay the same from export to export."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import icalendar
import ics
import pytest

from bot.corpus import Paper
from bot.corpus.model import Presentation
from bot.planner import calendar_file, entries_of, event_uid
from bot.planner.calendar_file import PRODID, UID_DOMAIN
from testkit.programme import Event
from testkit.week import week_events

NOW = datetime(2026, 7, 1, 9, 30, tzinfo=UTC)
NAME = "ICML 2026 — my week"


@pytest.fixture(scope="module")
def feed() -> dict[str, Event]:
    """Event id -> the feed's event, as written."""
    return {str(e["id"]): e for e in week_events()}


def expected_place(event: Event) -> tuple[str, ...]:
    return tuple(filter(None, (event["room_name"], event["poster_position"])))


def test_two_parsers_read_the_feeds_instants_and_places(
    week: dict[str, Paper],
    feed: dict[str, Event],
) -> None:
    text = calendar_file(week.values(), now=NOW, name=NAME)
    first = icalendar.Calendar.from_ical(text).walk("VEVENT")
    second = sorted(ics.Calendar(text.decode("utf-8")).events, key=lambda e: (e.begin, e.uid))
    timed = sum(1 for p in week.values() for shown in p.presentations if shown.start)
    assert len(first) == len(second) == timed == 15
    for event in first:
        raw = feed[str(event["uid"]).split("@")[0].rsplit("-", 1)[1]]
        assert event.decoded("dtstart") == datetime.fromisoformat(raw["starttime"])
        assert event.decoded("dtend") == datetime.fromisoformat(raw["endtime"])
        assert event.decoded("dtstart").utcoffset() == timedelta(0)
        assert all(part in str(event["location"]) for part in expected_place(raw))
    for event in second:
        raw = feed[event.uid.split("@")[0].rsplit("-", 1)[1]]
        assert event.begin.datetime == datetime.fromisoformat(raw["starttime"])
        assert event.end.datetime == datetime.fromisoformat(raw["endtime"])
        assert all(part in event.location for part in expected_place(raw))
    assert [str(e["uid"]) for e in first] == [e.uid for e in second]  # the same, in time order


def test_fields_of_one_event(week: dict[str, Paper]) -> None:
    paper = week["A"]  # a title with a comma, a semicolon and an umlaut
    (event,) = icalendar.Calendar.from_ical(calendar_file([paper], now=NOW, name=NAME)).walk(
        "VEVENT"
    )
    (other,) = ics.Calendar(calendar_file([paper], now=NOW, name=NAME).decode()).events
    page = "https://icml.cc/virtual/2026/poster/41001"
    assert str(event["uid"]) == f"{paper.id}-poster-41001@{UID_DOMAIN}"
    assert str(event["summary"]) == other.name == f"Poster: {paper.title}"
    assert str(event["location"]) == other.location == "East Exhibition Hall A-B, #E-101"
    assert str(event["url"]) == other.url == page
    assert (
        str(event["description"])
        == other.description
        == (f"A. Author, Jia Chen\nPoster Session 1\n{page}")
    )
    assert event.decoded("dtstamp") == NOW
    assert event.decoded("dtstart") == datetime(2026, 7, 14, 2, 0, tzinfo=UTC)


def test_calendar_properties(week: dict[str, Paper]) -> None:
    text = calendar_file(week.values(), now=NOW, name=NAME)
    calendar = icalendar.Calendar.from_ical(text)
    assert (str(calendar["prodid"]), str(calendar["version"])) == (PRODID, "2.0")
    assert str(calendar["x-wr-calname"]) == NAME
    lines = text.decode("utf-8").split("\r\n")
    assert lines[0] == "BEGIN:VCALENDAR" and lines[-2:] == ["END:VCALENDAR", ""]
    stamps = [line for line in lines if line.startswith(("DTSTART", "DTEND"))]
    assert stamps and all(line.endswith("Z") and ";TZID" not in line for line in stamps)


def test_uids_are_stable_and_unique(week: dict[str, Paper]) -> None:
    def uids(papers: list[Paper], now: datetime) -> list[str]:
        calendar = icalendar.Calendar.from_ical(calendar_file(papers, now=now, name=NAME))
        return [str(e["uid"]) for e in calendar.walk("VEVENT")]

    everything = uids(list(week.values()), NOW)
    assert len(set(everything)) == len(everything)
    later = uids(list(reversed(week.values())), NOW + timedelta(days=3))
    assert later == everything
    assert set(uids([week["D"]], NOW)) == {event_uid(e) for e in entries_of(week["D"])}
    assert set(uids([week["D"]], NOW)) <= set(everything)


def test_oral_and_poster_of_one_paper_are_two_events(week: dict[str, Paper]) -> None:
    calendar = icalendar.Calendar.from_ical(calendar_file([week["G"]], now=NOW, name=NAME))
    assert [str(e["summary"]).split(":")[0] for e in calendar.walk("VEVENT")] == ["Oral", "Poster"]
    translated = calendar_file([week["G"]], now=NOW, name=NAME, labels={"oral": "口头报告"})
    summaries = [str(e["summary"]) for e in icalendar.Calendar.from_ical(translated).walk("VEVENT")]
    assert summaries[0].startswith("口头报告: ") and summaries[1].startswith("Poster: ")


def test_untimed_presentations_and_empty_lists(week: dict[str, Paper]) -> None:
    text = calendar_file([week["I"], week["J"]], now=NOW, name=NAME)
    assert icalendar.Calendar.from_ical(text).walk("VEVENT") == []
    assert len(ics.Calendar(text.decode()).events) == 0


def test_an_end_unknown_has_no_dtend_and_other_offsets_convert() -> None:
    vancouver = timezone(timedelta(hours=-7))
    shown = Presentation("poster", "Poster Session 2", "2026-12-09T16:30:00-07:00", event="7")
    paper = Paper(id="nips1", title="T", abstract="", presentations=(shown,))
    (event,) = icalendar.Calendar.from_ical(calendar_file([paper], now=NOW, name=NAME)).walk(
        "VEVENT"
    )
    assert "dtend" not in event and "url" not in event
    assert event.decoded("dtstart") == datetime(2026, 12, 9, 16, 30, tzinfo=vancouver)
    assert event.decoded("dtstart") == datetime(2026, 12, 9, 23, 30, tzinfo=UTC)


def test_naive_now_is_refused(week: dict[str, Paper]) -> None:
    with pytest.raises(ValueError, match="aware"):
        calendar_file([week["A"]], now=datetime(2026, 7, 1), name=NAME)
