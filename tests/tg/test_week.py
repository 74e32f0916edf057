"""The conference week through the real Application, the fake Bot API and a real database
(SQLite, and PostgreSQL on a throw-away server): /schedule, /export ics, /remind and the
reminder job (once per user and presentation: restarts, replicas, blocked users, failed
sends), the card's link and Share button, /start <paper id>, /forget."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import icalendar
import ics
import pytest
from telegram.ext import Application

from bot.config import Settings
from bot.corpus import Paper
from bot.planner import entries_of
from bot.search import Index
from bot.store import Store, snapshot
from bot.tg.app import build_application
from bot.tg.reminders import MAX_SLEEP, remind_round, run_reminders, stop_reminders
from bot.tg.state import Clock
from testkit.chat import Chat
from testkit.fake_bot_api import ApiCall, FakeBotApi, UploadedFile, parse_html
from testkit.pg import Backend
from testkit.week import load_week

ALICE, BOB = 1001, 2002
VENUE = timezone(timedelta(hours=9))


def venue(day: int, clock: str) -> datetime:
    hour, minute = map(int, clock.split(":"))
    return datetime(2026, 7, day, hour, minute, tzinfo=VENUE)


class SetClock(Clock):
    """A clock the test sets; `wait` records how long the job asked to sleep and returns
    when the test releases it (or the job is woken), never after real time."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment
        self.waits: list[float] = []
        self.release = asyncio.Event()
        self.asked = asyncio.Event()  # set each time the job asks to wait

    def now(self) -> datetime:
        return self.moment

    async def wait(self, seconds: float, wake: asyncio.Event) -> None:
        self.waits.append(seconds)
        self.asked.set()
        woken = asyncio.ensure_future(wake.wait())
        released = asyncio.ensure_future(self.release.wait())
        await asyncio.wait((woken, released), return_when=asyncio.FIRST_COMPLETED)
        for task in (woken, released):
            task.cancel()
        self.release.clear()

    async def asked_times(self, n: int) -> None:
        """Return once the job has asked to wait `n` times (no polling: the job wakes us)."""
        while len(self.waits) < n:
            self.asked.clear()
            await self.asked.wait()


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Paper]:
    return load_week(tmp_path_factory.mktemp("week"))


@pytest.fixture(scope="module")
def week_index(week: dict[str, Paper]) -> Index:
    return Index.build(list(week.values()))


def week_app(api: FakeBotApi, index: Index, store: Store, clock: Clock) -> Application:
    app = build_application(Settings(token=api.token, api_base_url=api.base_url), index)
    app.bot_data.store, app.bot_data.clock = store, clock
    return app


@pytest.fixture
async def kept(
    fake_api: FakeBotApi, week_index: Index, backend: Backend
) -> AsyncIterator[tuple[Application, Store]]:
    store = await backend.open(timeout=2)
    app = week_app(fake_api, week_index, store, SetClock(venue(15, "10:50")))
    async with app:
        yield app, store
    await store.close()


@pytest.fixture
def chat(kept: tuple[Application, Store], fake_api: FakeBotApi) -> Chat:
    return Chat(kept[0], fake_api)


async def save(store: Store, user: int, *papers: Paper) -> None:
    for paper in papers:
        await store.save(user, snapshot(paper))


def keyboard(call: ApiCall) -> list[dict[str, Any]]:
    markup = call.params.get("reply_markup") or {}
    return [button for row in markup.get("inline_keyboard", []) for button in row]


# ------------------------------------------------------------------ /schedule


async def test_schedule_lists_saved_papers_in_time_order_and_names_the_clash(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    await save(kept[1], ALICE, week["F"], week["A"], week["D"])  # D and F: Poster Session 3
    await chat.send("/schedule")
    text = chat.last_text()
    order = [week["D"].title, "Poster Session 1", week["A"].title, "Poster Session 3",
             week["D"].title, week["F"].title, "⚠ Clash in Poster Session 3"]  # fmt: skip
    at = 0
    for part in order:
        at = text.index(part, at) + len(part)
    assert "Way out: " + week["D"].title in text


async def test_schedule_pages_are_turned_in_place(chat: Chat, kept, week: dict[str, Paper]) -> None:
    await save(kept[1], ALICE, *week.values())  # 15 presentations: two pages
    await chat.send("/schedule")
    first = chat.last()
    assert "Page 1 of 2" in parse_html(first.params["text"])
    [next_button] = keyboard(first)
    await chat.tap(next_button["callback_data"], first)
    assert "Page 2 of 2" in chat.last_text("editMessageText")


async def test_schedule_is_private_and_a_hint_when_empty(chat: Chat, kept, week) -> None:
    await chat.send("/schedule", chat_type="group")
    assert "private" in chat.last_text()
    await chat.send("/schedule")
    assert chat.last_text().startswith("Nothing on your schedule yet")
    await save(kept[1], ALICE, week["J"])
    await chat.send("/schedule")
    assert chat.last_text().startswith("Your saved paper has no presentation time yet")


# ------------------------------------------------------------------ /export ics


def exported(call: ApiCall) -> bytes:
    document = call.params["document"]
    assert isinstance(document, UploadedFile) and document.filename == "reading-list.ics"
    return document.data


async def test_export_ics_reads_back_with_the_feeds_instants_and_places(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    await save(kept[1], ALICE, week["D"], week["F"], week["I"])
    await chat.send("/export ics")
    data = exported(chat.last("sendDocument"))
    expected = {
        (e.start.astimezone(UTC), e.end.astimezone(UTC) if e.end else None, e.presentation.room)
        for paper in (week["D"], week["F"]) for e in entries_of(paper) if e.start
    }  # fmt: skip
    calendar = icalendar.Calendar.from_ical(data)
    events = calendar.walk("VEVENT")
    read = {(e.decoded("dtstart"), e.decoded("dtend"), str(e["location"]).split(",")[0])
            for e in events}  # fmt: skip
    assert read == expected
    assert "East Exhibition Hall A-B, #E-301" in {str(e["location"]) for e in events}
    second = ics.Calendar(data.decode("utf-8"))
    assert {
        (e.begin.datetime, e.end.datetime, e.location.split(",")[0]) for e in second.events
    } == (expected)
    caption = chat.last("sendDocument").params["caption"]
    assert caption.startswith("Your saved papers' presentations: 3 events.")  # D: 2, F: 1, I: none
    # importing again updates: the same UIDs in a second export
    prompt_call_count = len(chat.api.calls_of("sendDocument"))
    await chat.send("/export")
    [ics_button] = [b for b in keyboard(chat.last()) if b["callback_data"] == "x:ics"]
    assert ics_button["text"] == "Calendar"
    await chat.tap("x:ics", chat.last())
    again = icalendar.Calendar.from_ical(exported(chat.api.calls_of("sendDocument")[-1]))
    assert len(chat.api.calls_of("sendDocument")) == prompt_call_count + 1
    assert {str(e["uid"]) for e in again.walk("VEVENT")} == {str(e["uid"]) for e in events}


async def test_export_ics_without_times_says_so(chat: Chat, kept, week: dict[str, Paper]) -> None:
    await chat.send("/export ics")
    assert chat.last_text().startswith("Nothing to export yet")
    await save(kept[1], ALICE, week["I"], week["J"])
    await chat.send("/export ics")
    assert chat.last_text().startswith("None of your saved papers has a presentation time yet")
    assert chat.api.calls_of("sendDocument") == []


# ------------------------------------------------------------------ /remind and reminders


async def test_remind_sets_shows_and_turns_off(chat: Chat, kept) -> None:
    store = kept[1]
    await chat.send("/remind")
    assert chat.last_text().startswith("Reminders are off.\n\n/remind 15 reminds you")
    await chat.send("/remind 15")
    assert chat.last_text().startswith("Reminders are on: I'll message you 15 minutes before")
    assert await store.get_reminder(ALICE) == 15
    for bad in ("/remind 500", "/remind soon"):
        await chat.send(bad)
        assert chat.last_text().startswith("/remind 15 reminds you")
    assert await store.get_reminder(ALICE) == 15
    await chat.send("/remind off")
    assert chat.last_text() == "Reminders are off."
    assert await store.get_reminder(ALICE) is None
    await chat.send("/remind 5", chat_type="group")
    assert "private" in chat.last_text() and await store.get_reminder(ALICE) is None


def reminders(api: FakeBotApi, user: int = ALICE) -> list[str]:
    return [
        parse_html(c.params["text"])
        for c in api.calls_of("sendMessage")
        if c.params["chat_id"] == user and parse_html(c.params["text"]).startswith("⏰")
    ]


async def test_a_reminder_goes_out_once_with_a_button_that_opens_the_paper(
    chat: Chat, kept, week: dict[str, Paper], fake_api: FakeBotApi
) -> None:
    app, store = kept
    await save(store, ALICE, week["F"], week["P"])  # F at 11:00, P at 16:30
    await chat.send("/remind 15")

    upcoming = await remind_round(app, venue(15, "10:50"))  # F is due (10:45 <= 10:50 < 11:00)
    assert upcoming == venue(15, "16:15")  # P's is next
    assert await remind_round(app, venue(15, "10:51")) == upcoming  # nothing twice
    [text] = reminders(fake_api)
    assert text.startswith(
        f"⏰ In 10 minutes: {week['F'].title}\nPoster Session 3\nPoster · Wed 15 Jul"
    )
    sent = [c for c in fake_api.calls_of("sendMessage") if parse_html(c.params["text"]) == text]
    [button] = keyboard(sent[0])
    await chat.tap(button["callback_data"], sent[0])
    assert chat.last_text().startswith(week["F"].title)  # the card


async def test_a_restart_or_a_second_replica_sends_nothing_twice(
    kept, week: dict[str, Paper], fake_api: FakeBotApi, backend: Backend, week_index: Index
) -> None:
    app, store = kept
    await save(store, ALICE, week["F"])
    await store.set_reminder(ALICE, 15)
    other = await backend.open(timeout=2)  # a second replica (or the bot after a restart)
    second = week_app(fake_api, week_index, other, SetClock(venue(15, "10:50")))
    try:
        async with second:
            await asyncio.gather(
                remind_round(app, venue(15, "10:50")), remind_round(second, venue(15, "10:50"))
            )
            await remind_round(second, venue(15, "10:55"))
    finally:
        await other.close()
    assert len(reminders(fake_api)) == 1


async def test_saves_and_removals_count_and_a_late_round_sends_until_the_start(
    kept, week: dict[str, Paper], fake_api: FakeBotApi
) -> None:
    app, store = kept
    await store.set_reminder(ALICE, 30)
    await save(store, ALICE, week["F"])
    await store.remove(ALICE, week["F"].id)  # removed before it fell due: no reminder
    await remind_round(app, venue(15, "10:40"))
    assert reminders(fake_api) == []
    await save(store, ALICE, week["P"])  # saved later: it counts
    await remind_round(app, venue(15, "16:29"))  # due at 16:00, the bot was down until 16:29
    assert reminders(fake_api) == [
        f"⏰ In 1 minute: {week['P'].title}\nPoster Session 4 West\n"
        f"Poster · Wed 15 Jul 16:30–19:00 Seoul time · West Exhibition Hall B2-B3 · #W-77\n"
        f"/paper_{week['P'].id}"
    ]
    await save(store, ALICE, week["L"])  # L's poster is at 16:30 too
    await remind_round(app, venue(15, "16:31"))  # back after it started: too late
    assert len(reminders(fake_api)) == 1


async def test_a_user_who_blocked_the_bot_is_skipped_and_turned_off(
    kept, week: dict[str, Paper], fake_api: FakeBotApi
) -> None:
    app, store = kept
    for user in (ALICE, BOB):
        await save(store, user, week["F"])
        await store.set_reminder(user, 15)
    fake_api.blocked.add(ALICE)
    await remind_round(app, venue(15, "10:50"))
    assert reminders(fake_api, ALICE) == [] and len(reminders(fake_api, BOB)) == 1
    assert await store.get_reminder(ALICE) is None and await store.get_reminder(BOB) == 15


async def test_a_failed_send_is_released_and_sent_on_the_next_round(
    kept, week: dict[str, Paper], fake_api: FakeBotApi
) -> None:
    app, store = kept
    await save(store, ALICE, week["F"])
    await store.set_reminder(ALICE, 15)
    fake_api.fail_next("sendMessage", code=400, description="Bad Request: try later")
    await remind_round(app, venue(15, "10:50"))
    assert reminders(fake_api) == [] and await store.sent_reminders(ALICE) == frozenset()
    await remind_round(app, venue(15, "10:51"))
    assert len(reminders(fake_api)) == 1


async def test_the_job_sleeps_until_the_next_reminder_and_wakes_for_a_save(
    chat: Chat, kept, week: dict[str, Paper], fake_api: FakeBotApi
) -> None:
    app, store = kept
    clock: SetClock = app.bot_data.clock
    await store.set_reminder(ALICE, 15)
    await save(store, ALICE, week["P"])  # due at 16:15
    clock.moment = venue(15, "16:13") + timedelta(seconds=30)
    app.bot_data.reminders_task = task = asyncio.create_task(run_reminders(app))
    try:
        await asyncio.wait_for(clock.asked_times(1), 60)
        clock.moment += timedelta(minutes=1)
        clock.release.set()
        await asyncio.wait_for(clock.asked_times(2), 60)
        assert clock.waits == [MAX_SLEEP.total_seconds(), 30.0]  # at most a minute, then 30 s
        clock.moment = venue(15, "16:15")
        clock.release.set()
        await asyncio.wait_for(clock.asked_times(3), 60)
        assert len(reminders(fake_api)) == 1
        for name in "ML":  # M is presented tomorrow: its save waits; L's at 16:30 wakes the job
            await chat.send(f"/paper_{week[name].id}")
            await chat.tap(f"v:{week[name].id}", chat.last())
        await asyncio.wait_for(clock.asked_times(4), 60)  # one round more: L's save woke it
        assert len(reminders(fake_api)) == 2  # M's save did not wake it (M would come first)
        assert reminders(fake_api)[1].startswith(f"⏰ In 15 minutes: {week['L'].title}")
    finally:
        await stop_reminders(app)
    assert task.done()


# ------------------------------------------------------------------ /now


async def test_now_names_the_session_in_progress_and_the_saved_posters_in_it(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    app, store = kept
    app.bot_data.clock.moment = venue(15, "11:40")
    await save(store, ALICE, week["F"], week["D"])
    await store.follow(ALICE, "speculative decoding")
    await chat.send("/now")
    text = chat.last_text()
    assert text.startswith("Now: Wed 15 Jul 11:40 Seoul time")
    poster = text[text.index("Poster Session 3") : text.index("Oral 2B")]
    assert "Your 2 saved papers here:" in poster
    assert poster.index(week["D"].title) < poster.index("#E-300") < poster.index(week["F"].title)
    oral = text[text.index("Oral 2B") : text.index("Next")]
    assert "1 paper on the topics you follow:" in oral and week["G"].title in oral
    app.bot_data.clock.moment = venue(1, "09:00")
    await chat.send("/now")
    assert chat.last_text().startswith("The conference runs from Tue 14 Jul to Thu 16 Jul")
    await chat.send("/now", chat_type="group")
    assert "private" in chat.last_text()


# ------------------------------------------------------------------ cards, links, Share


async def test_start_with_a_paper_id_opens_its_card_with_a_link_and_share(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    paper = week["F"]
    await chat.send(f"/start {paper.id}")
    card = chat.last()
    text = parse_html(card.params["text"])
    assert text.startswith(paper.title)
    assert f"Link to this paper: https://t.me/icml_papers_bot?start={paper.id}" in text
    assert {"text": "Share", "switch_inline_query": f"/paper_{paper.id}"} in keyboard(card)
    # saving keeps the Share button (the keyboard is read back with it)
    await chat.tap(f"v:{paper.id}", card)
    edited = chat.last("editMessageReplyMarkup")
    assert {"text": "Share", "switch_inline_query": f"/paper_{paper.id}"} in keyboard(edited)
    assert {"text": "★ Saved", "callback_data": f"u:{paper.id}"} in keyboard(edited)
    await chat.send("/start nonsense-payload!")
    assert chat.last_text().startswith("Hi! I search")


async def test_share_puts_the_paper_first_in_the_inline_results(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    paper = week["G"]
    await chat.feed(chat.updates.inline(f"/paper_{paper.id}"))
    [answer] = chat.api.calls_of("answerInlineQuery")
    first = answer.params["results"][0]
    assert first["id"] == paper.id and first["title"] == paper.title
    shown = parse_html(first["input_message_content"]["message_text"])
    assert f"Open it in the bot: t.me/icml_papers_bot?start={paper.id}" in shown


# ------------------------------------------------------------------ /forget


async def test_forget_deletes_reminders_and_the_ledger(
    chat: Chat, kept, week: dict[str, Paper]
) -> None:
    app, store = kept
    await save(store, ALICE, week["F"])
    await chat.send("/remind 15")
    await remind_round(app, venue(15, "10:50"))
    assert await store.sent_reminders(ALICE)
    await chat.send("/forget")
    prompt = chat.last()
    assert "reminders" in parse_html(prompt.params["text"])
    await chat.tap("g:yes", prompt)
    assert await store.get_reminder(ALICE) is None
    assert await store.sent_reminders(ALICE) == frozenset()
