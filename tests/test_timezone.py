"""/timezone's answers without Telegram: what a user may type for their zone (a big city in
English or Chinese, an IANA name in any case, a UTC offset), what is refused, the answer in
each case and language, and the console keeping the choice for its session."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.answers import timezone_answer
from bot.answers.week import zone_named
from bot.cli.console import LazyStore
from bot.cli.session import ConsoleSession
from bot.i18n import translator
from bot.render import to_console
from bot.search import Index
from bot.store import open_store
from testkit.week import load_week

NOW = datetime(2026, 7, 7, 1, 30, tzinfo=UTC)  # 10:30 in Seoul, 03:30 in Berlin
EN = translator("en")


@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        ("Europe/Berlin", "Europe/Berlin"),
        ("  europe/berlin ", "Europe/Berlin"),
        ("Berlin", "Europe/Berlin"),
        ("柏林", "Europe/Berlin"),
        ("東京", "Asia/Tokyo"),
        ("new york", "America/New_York"),
        ("New_York", "America/New_York"),
        ("america/new_york", "America/New_York"),
        ("Asia/Kathmandu", "Asia/Kathmandu"),  # any IANA zone, not only the cities we name
        ("UTC+2", "+02:00"),
        ("+05:30", "+05:30"),
        ("GMT-3", "-03:00"),
        ("utc", "UTC"),
    ],
)
def test_a_zone_is_named_by_city_iana_name_or_offset(typed: str, zone: str) -> None:
    assert zone_named(typed) == zone


@pytest.mark.parametrize("typed", ["", "  ", "Atlantis", "Mars/Olympus", "UTC+15", "x" * 65])
def test_anything_else_names_no_zone(typed: str) -> None:
    assert zone_named(typed) is None


def test_the_answers_set_show_clear_and_refuse() -> None:
    doc, zone = timezone_answer("", "Berlin", now=NOW, t=EN)
    assert zone == "Europe/Berlin"
    assert to_console(doc).startswith(
        "Done — I'll show times in Berlin time (Europe/Berlin), with the venue's beside them. "
        "It is Tue 7 Jul 03:30 there now."
    )
    doc, zone = timezone_answer(zone, "", now=NOW, t=EN)
    assert zone == "Europe/Berlin" and to_console(doc).startswith("I show times in Berlin time")
    doc, zone = timezone_answer(zone, "nowhere", now=NOW, t=EN)
    assert zone == "Europe/Berlin"
    assert to_console(doc).startswith("I don't know a time zone called nowhere. Try a big city")
    doc, zone = timezone_answer(zone, "OFF", now=NOW, t=EN)
    assert zone == "" and to_console(doc) == "Done — I'll show times on the venue's clock alone."
    doc, zone = timezone_answer("", "+05:30", now=NOW, t=EN)
    assert zone == "+05:30" and "in UTC+05:30, with" in to_console(doc)


def test_the_answers_speak_the_users_language() -> None:
    doc, _ = timezone_answer("", "柏林", now=NOW, t=translator("zh_Hans"))
    assert to_console(doc).startswith("好的，之后我会按柏林时间 (Europe/Berlin)显示时间")
    doc, _ = timezone_answer("", "柏林", now=NOW, t=translator("zh_Hant"))
    assert "那裡現在是" in to_console(doc)
    doc, _ = timezone_answer("", "关闭", now=NOW, t=translator("zh_Hans"))
    assert to_console(doc) == "好的，之后我只按会场时间显示时间。"


def test_an_unknown_answer_is_cut_and_never_markup() -> None:
    doc, _ = timezone_answer("", "<b>" + "z" * 300, now=NOW, t=EN)
    text = to_console(doc)
    assert "<b>zzz" in text and "z" * 100 not in text


def test_the_console_keeps_the_zone_for_its_session_and_forget_clears_it(tmp_path) -> None:
    week = load_week(tmp_path / "week")
    store = LazyStore(lambda: open_store(None, tmp_path))
    session = ConsoleSession(Index.build(list(week.values())), store=store)
    card = f"/paper {week['F'].id}"
    try:
        venue_card = to_console(session.answer(card))
        assert "Wed 15 Jul 11:00–13:30 Seoul time" in venue_card
        assert to_console(session.answer("/timezone Europe/Berlin")).startswith("Done")
        assert "Wed 15 Jul 04:00–06:30 your time (11:00 Seoul time)" in to_console(
            session.answer(card)
        )
        assert "/timezone — " in to_console(session.answer("/help"))
        session.answer("/timezone off")
        assert to_console(session.answer(card)) == venue_card
        session.answer("/timezone 纽约")
        session.answer("/forget yes")
        assert to_console(session.answer(card)) == venue_card
        assert to_console(session.answer("/timezone")).startswith("I show times on the venue's")
    finally:
        store.close()
