"""The conference week's views: the schedule (order, clashes, ways out, pages, hints), /now,
a reminder, the /remind setting; in three languages, escaped and within Telegram's limits."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from bot import planner, render
from bot.corpus import Paper, Presentation
from bot.i18n import LANGUAGES, translator
from bot.render import OpenPaper, SchedulePage, parse_callback
from bot.render.presentations import clock, short_date
from testkit.fake_bot_api import parse_html
from testkit.telegram_html import MAX_MESSAGE_CHARS, utf16_len
from testkit.week import load_week

VENUE = timezone(timedelta(hours=9))
EN = translator("en")


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Paper]:
    return load_week(tmp_path_factory.mktemp("week"))


def texts(doc: render.Doc) -> list[str]:
    """Each message as Telegram shows it (and Telegram would accept it)."""
    shown = []
    for message in render.to_html(doc):
        plain = parse_html(message.text)
        assert 0 < utf16_len(plain) <= MAX_MESSAGE_CHARS
        shown.append(plain)
    return shown


def test_the_schedule_lists_days_and_sessions_in_time_order(week: dict[str, Paper]) -> None:
    saved = [week[name] for name in "GFDA"]  # any order
    [text] = texts(render.schedule_doc(planner.schedule(saved)))
    order = [
        "Tue 14 Jul", "10:00–10:15 · Oral 1A Theory", week["D"].title,
        "11:00–13:30 · Poster Session 1", week["A"].title,
        "Wed 15 Jul", "11:00–13:30 · Poster Session 3", "#E-300", week["F"].title, "#E-301",
        "11:30–11:45 · Oral 2B Large Language Models", "West Ballroom C",
        "Thu 16 Jul", "Poster Session 5", "West Exhibition Hall B2-B3 · #W-40",
    ]  # fmt: skip
    places = [text.index(part) for part in order]
    assert places == sorted(places)
    assert "6 presentations" in text


def test_a_clash_is_named_with_its_way_out(week: dict[str, Paper]) -> None:
    saved = [week["D"], week["F"], week["B"]]
    [text] = texts(render.schedule_doc(planner.schedule(saved)))
    clash = text[text.index("⚠ Clash") :]
    assert clash.startswith("⚠ Clash in Poster Session 3: ")
    assert week["D"].title in clash and week["F"].title in clash
    # D's oral is its way out; F has no other presentation
    assert (
        f"Way out: {week['D'].title} is also presented Tue 14 Jul 10:00–10:15 Seoul time" in clash
    )
    assert "Oral 1A Theory" in clash and week["F"].title not in clash.split("Way out")[1]
    assert text.count("⚠") == 3  # the two posters marked, and the clash


def test_an_oral_during_a_poster_session_is_a_clash_at_a_time(week: dict[str, Paper]) -> None:
    [text] = texts(render.schedule_doc(planner.schedule([week["D"], week["G"]])))
    assert "⚠ Clash at Wed 15 Jul 11:00–13:30 Seoul time: " in text
    assert f"Way out: {week['G'].title} is also presented Thu 16 Jul 11:00–13:30 Seoul time" in text


def test_nothing_scheduled_gives_a_hint(week: dict[str, Paper]) -> None:
    [empty] = texts(render.schedule_doc(planner.schedule([])))
    assert empty.startswith("Nothing on your schedule yet")
    [untimed] = texts(render.schedule_doc(planner.schedule([week["I"], week["J"]])))
    assert untimed.startswith("None of your 2 saved papers has a presentation time yet")
    [one] = texts(render.schedule_doc(planner.schedule([week["I"], week["A"]])))
    assert one.endswith("1 saved paper has no presentation time yet.")


def _many(week: dict[str, Paper], count: int) -> list[Paper]:
    """`count` papers with A's poster and a long title with markup in it."""
    title = "<b>Long</b> & winding " + "title " * 60
    return [dataclasses.replace(week["A"], id=f"m{n}", title=f"{title}{n}") for n in range(count)]


def test_the_schedule_pages_within_telegram_limits(week: dict[str, Paper]) -> None:
    plan = planner.schedule(_many(week, 20))
    first = render.schedule_doc(plan, offset=0, per_page=8)
    [page] = texts(first)
    assert "<b>Long</b> & winding" in page  # escaped, shown as typed
    assert "Page 1 of 3" in page
    assert page.count("⚠ Clash in Poster Session 1") == 1 and "and 12 more" in page
    [[(label, data)]] = first.keyboard
    assert "Next" in label
    assert parse_callback(data) == SchedulePage(8)
    last = render.schedule_doc(plan, offset=16, per_page=8)
    assert "Page 3 of 3" in texts(last)[0]
    assert [parse_callback(d) for _, d in last.keyboard[0]] == [SchedulePage(8)]
    # an offset past the end (a list that shrank) shows the last page
    assert render.schedule_doc(plan, offset=400, per_page=8) == last


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_view_of_the_week_speaks_each_language(lang, week: dict[str, Paper]) -> None:
    t = translator(lang)
    saved = [week[name] for name in "DFGAI"]
    moment = datetime(2026, 7, 15, 11, 40, tzinfo=VENUE)
    programme = planner.build_programme(week.values())
    entry = planner.entries_of(week["F"])[0]
    docs = [
        render.schedule_doc(planner.schedule(saved), t=t),
        render.now_doc(planner.now_and_next(programme, moment), t=t),
        render.reminder_doc(entry, minutes=5, t=t),
        render.remind_doc(15, usage=True, t=t),
        render.remind_doc(None, t=t),
    ]
    shown = "\n".join(text for doc in docs for text in texts(doc))
    if lang != "en":
        assert "Poster ·" not in shown and "Clash" not in shown and "Wed" not in shown
    assert short_date(date(2026, 7, 15), t) in shown


def test_times_on_the_venues_clock() -> None:
    start = datetime(2026, 7, 15, 11, 0, tzinfo=VENUE)
    assert clock(start, start + timedelta(minutes=150)) == "11:00–13:30"
    assert clock(start, None) == "11:00"


def test_now_names_the_sessions_on_and_the_saved_papers_in_them(week: dict[str, Paper]) -> None:
    programme = planner.build_programme(week.values())
    moment = datetime(2026, 7, 15, 2, 40, tzinfo=UTC)  # 11:40 at the venue
    at = planner.now_and_next(programme, moment, saved={week["F"].id})
    [text] = texts(render.now_doc(at))
    assert text.startswith("Now: Wed 15 Jul 11:40 Seoul time")
    session = text[text.index("Poster Session 3") : text.index("Oral 2B")]
    assert "Your saved paper here:" in session and week["F"].title in session
    assert "#E-301" in session and week["D"].title not in session
    assert text.index("Next") < text.index("Poster Session 4 East")


def test_now_outside_the_conference_says_when_it_is(week: dict[str, Paper]) -> None:
    programme = planner.build_programme(week.values())
    before = planner.now_and_next(programme, datetime(2026, 7, 1, tzinfo=VENUE))
    [text] = texts(render.now_doc(before))
    assert text.startswith("The conference runs from Tue 14 Jul to Thu 16 Jul (Seoul time)")
    assert "Oral 1A Theory" in text  # what opens it
    after = planner.now_and_next(programme, datetime(2026, 8, 1, tzinfo=VENUE))
    assert texts(render.now_doc(after)) == [
        "The conference ran from Tue 14 Jul to Thu 16 Jul (Seoul time); it is over."
    ]
    none = planner.now_and_next(planner.build_programme([]), datetime(2026, 8, 1, tzinfo=VENUE))
    assert texts(render.now_doc(none))[0].startswith("These papers come without a programme")


def test_a_reminder_names_the_place_and_opens_the_paper(week: dict[str, Paper]) -> None:
    entry = planner.entries_of(week["F"])[0]
    doc = render.reminder_doc(entry, minutes=10)
    assert texts(doc) == [
        f"⏰ In 10 minutes: {week['F'].title}\n"
        "Poster Session 3\n"
        "Poster · Wed 15 Jul 11:00–13:30 Seoul time · East Exhibition Hall A-B · #E-301\n"
        f"/paper_{week['F'].id}"
    ]
    [[(label, data)]] = doc.keyboard
    assert label == "Open the paper" and parse_callback(data) == OpenPaper(week["F"].id)


def test_a_reminder_escapes_what_the_feed_wrote() -> None:
    shown = Presentation(
        "poster", session="<Session> & 1", start="2026-07-15T11:00:00+09:00",
        room="Hall <A>", position="E&1",
    )  # fmt: skip
    paper = Paper(id="x1", title="a < b & c", abstract="", presentations=(shown,))
    [entry] = planner.entries_of(paper)
    [message] = render.to_html(render.reminder_doc(entry, minutes=1))
    assert "&lt;Session&gt; &amp; 1" in message.text and "a &lt; b &amp; c" in message.text
    assert "In 1 minute:" in parse_html(message.text)
