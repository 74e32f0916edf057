"""Reminder settings and the reminder ledger on both Store backends: a lead of 1..120 minutes
or off, the language a job sends in, claims once per (user, paper, presentation), kept when a
paper is removed, deleted by /forget, hostile input refused before the database."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import psycopg
import pytest

from bot.corpus import Paper
from bot.corpus.model import Presentation
from bot.planner import due_reminders, presentation_key, sent_key
from bot.store import (
    MAX_REMINDER_KEY_CHARS,
    MAX_REMINDER_MINUTES,
    MIN_REMINDER_MINUTES,
    ReminderUser,
    SavedPaper,
    Store,
)
from testkit.pg import Backend

ALICE, BOB, CAROL = 1001, 2002, 3003
POSTER, ORAL = ("p1", "poster-41001"), ("p1", "oral-51001")
SEOUL = timezone(timedelta(hours=9))


# --- the setting ------------------------------------------------------------------------


async def test_reminders_are_off_until_set(store: Store) -> None:
    assert await store.get_reminder(ALICE) is None
    assert await store.reminder_users() == ()


async def test_a_lead_is_set_changed_and_turned_off_per_user(store: Store) -> None:
    await store.set_reminder(ALICE, 15)
    await store.set_reminder(BOB, MAX_REMINDER_MINUTES)
    assert (await store.get_reminder(ALICE), await store.get_reminder(BOB)) == (15, 120)

    await store.set_reminder(ALICE, MIN_REMINDER_MINUTES)
    assert await store.get_reminder(ALICE) == 1

    await store.set_reminder(ALICE, None)
    await store.set_reminder(CAROL, None)  # off when already off: nothing to do
    assert await store.get_reminder(ALICE) is None
    assert await store.get_reminder(BOB) == 120
    assert [user.user_id for user in await store.reminder_users()] == [BOB]


@pytest.mark.parametrize("minutes", [0, -5, 121, 10_000, True, 1.5, "10"])
async def test_a_lead_out_of_range_is_a_value_error_and_not_stored(
    store: Store, minutes: object
) -> None:
    await store.set_reminder(ALICE, 30)

    with pytest.raises(ValueError):
        await store.set_reminder(ALICE, minutes)  # type: ignore[arg-type]

    assert await store.get_reminder(ALICE) == 30


async def test_the_database_refuses_a_lead_out_of_range_too(backend: Backend) -> None:
    await (await backend.open()).close()  # migrated

    with pytest.raises((sqlite3.IntegrityError, psycopg.errors.CheckViolation)):
        backend.execute(f"INSERT INTO reminder_settings (user_id, minutes) VALUES ({ALICE}, 121)")


async def test_reminder_users_carry_their_lead_and_language(store: Store) -> None:
    await store.set_reminder(CAROL, 5)  # never told the language: None, the job's default
    await store.set_reminder(BOB, 10, language="de")  # answered in German at /remind
    await store.set_language(ALICE, "fr")  # the /lang choice wins over the one seen at /remind
    await store.set_reminder(ALICE, 20, language="de")

    assert await store.reminder_users() == (
        ReminderUser(ALICE, 20, "fr"),
        ReminderUser(BOB, 10, "de"),
        ReminderUser(CAROL, 5, None),
    )


async def test_changing_the_lead_without_a_language_keeps_the_one_seen(store: Store) -> None:
    await store.set_reminder(BOB, 10, language="ru")
    await store.set_reminder(BOB, 30)  # e.g. from the console, which has no Telegram language

    assert await store.reminder_users() == (ReminderUser(BOB, 30, "ru"),)


async def test_a_bad_language_tag_is_a_value_error(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.set_reminder(ALICE, 10, language="x" * 17)
    with pytest.raises(ValueError):
        await store.set_reminder(ALICE, 10, language=" \x00 ")

    assert await store.get_reminder(ALICE) is None


# --- the ledger -------------------------------------------------------------------------


async def test_a_reminder_is_claimed_once(store: Store) -> None:
    await store.set_reminder(ALICE, 10)
    await store.set_reminder(BOB, 10)

    assert await store.claim_reminders(ALICE, [POSTER, POSTER, ORAL]) == {POSTER, ORAL}
    assert await store.claim_reminders(ALICE, [ORAL, POSTER]) == frozenset()
    assert await store.claim_reminders(ALICE, [POSTER, ("p2", "poster-7")]) == {("p2", "poster-7")}
    assert await store.claim_reminders(BOB, [POSTER]) == {POSTER}  # per user
    assert await store.claim_reminders(ALICE, []) == frozenset()
    assert await store.sent_reminders(ALICE) == {POSTER, ORAL, ("p2", "poster-7")}
    assert await store.sent_reminders(CAROL) == frozenset()


async def test_nothing_is_claimed_while_reminders_are_off(store: Store) -> None:
    assert await store.claim_reminders(ALICE, [POSTER]) == frozenset()  # never turned on

    await store.set_reminder(ALICE, 10)
    await store.set_reminder(ALICE, None)  # turned off while a job was about to send
    assert await store.claim_reminders(ALICE, [POSTER]) == frozenset()
    assert await store.sent_reminders(ALICE) == frozenset()


async def test_a_released_claim_can_be_claimed_again(store: Store) -> None:
    await store.set_reminder(ALICE, 10)
    await store.claim_reminders(ALICE, [POSTER, ORAL])

    await store.release_reminders(ALICE, [POSTER, ("never", "claimed")])
    await store.release_reminders(ALICE, [])

    assert await store.sent_reminders(ALICE) == {ORAL}
    assert await store.claim_reminders(ALICE, [POSTER, ORAL]) == {POSTER}


async def test_turning_reminders_off_and_on_sends_nothing_twice(store: Store) -> None:
    # A user who blocked the bot is turned off; unblocking and turning on again must not
    # repeat what they already got.
    await store.set_reminder(ALICE, 10)
    await store.claim_reminders(ALICE, [POSTER])

    await store.set_reminder(ALICE, None)
    await store.set_reminder(ALICE, 60)

    assert await store.sent_reminders(ALICE) == {POSTER}
    assert await store.claim_reminders(ALICE, [POSTER, ORAL]) == {ORAL}


async def test_removing_and_saving_a_paper_again_reminds_of_it_once(store: Store) -> None:
    paper = SavedPaper("p1", "A poster")
    await store.save(ALICE, paper)
    await store.set_reminder(ALICE, 10)
    await store.claim_reminders(ALICE, [POSTER])

    assert await store.remove(ALICE, "p1")
    assert await store.sent_reminders(ALICE) == {POSTER}  # the ledger outlives the list

    await store.save(ALICE, paper)
    assert await store.claim_reminders(ALICE, [POSTER]) == frozenset()


async def test_the_ledger_feeds_due_reminders(store: Store) -> None:
    start = datetime(2026, 7, 14, 11, 0, tzinfo=SEOUL)
    shown = Presentation("poster", "Poster Session 1", start.isoformat(), event="41001")
    paper = Paper(id="p1", title="T", abstract="", presentations=(shown,))
    now = start - timedelta(minutes=5)
    await store.set_reminder(ALICE, 10)

    [due] = due_reminders([paper], 10, now, await store.sent_reminders(ALICE))
    assert due.key == presentation_key(paper, shown)
    assert sent_key(due) == ("p1", f"{due.key}@20260714T0200Z")  # the presentation at its start
    assert await store.claim_reminders(ALICE, [sent_key(due)]) == {sent_key(due)}

    assert due_reminders([paper], 10, now, await store.sent_reminders(ALICE)) == ()


async def test_forget_deletes_the_setting_and_the_ledger_of_that_user_only(store: Store) -> None:
    for user in (ALICE, BOB):
        await store.set_reminder(user, 10, language="de")
        await store.claim_reminders(user, [POSTER, ORAL])

    await store.forget_user(ALICE)

    assert await store.get_reminder(ALICE) is None
    assert await store.sent_reminders(ALICE) == frozenset()
    assert await store.reminder_users() == (ReminderUser(BOB, 10, "de"),)
    assert await store.sent_reminders(BOB) == {POSTER, ORAL}
    await store.set_reminder(ALICE, 10)
    assert await store.claim_reminders(ALICE, [POSTER]) == {POSTER}  # a fresh start


# --- hostile keys -----------------------------------------------------------------------

LONGEST = "x" * MAX_REMINDER_KEY_CHARS


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(("", "poster-1"), id="empty-paper"),
        pytest.param(("p1", ""), id="empty-key"),
        pytest.param((LONGEST + "x", "poster-1"), id="long-paper"),
        pytest.param(("p1", LONGEST + "x"), id="long-key"),
        pytest.param(("p1", "poster\x00-1"), id="nul"),
        pytest.param(("p\ud800", "poster-1"), id="lone-surrogate"),
        pytest.param(("p1", "poster-1", "extra"), id="three-parts"),
        pytest.param(("p1", 7), id="not-text"),
    ],
)
async def test_a_bad_key_is_refused_and_nothing_of_its_batch_is_claimed(
    store: Store, bad: tuple[object, ...]
) -> None:
    await store.set_reminder(ALICE, 10)

    with pytest.raises(ValueError):
        await store.claim_reminders(ALICE, [POSTER, bad])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        await store.release_reminders(ALICE, [bad])  # type: ignore[list-item]

    assert await store.sent_reminders(ALICE) == frozenset()


async def test_the_longest_key_is_kept(store: Store) -> None:
    await store.set_reminder(ALICE, 10)
    key = (LONGEST, "é" * MAX_REMINDER_KEY_CHARS)

    assert await store.claim_reminders(ALICE, [key]) == {key}
    assert await store.sent_reminders(ALICE) == {key}
