"""The reminder ledger across restarts and replicas: a claim survives reopening, exactly one
of two replicas claiming one (user, paper, presentation) wins, and an older database gains
the tables with its data intact."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import psycopg
import pytest

from bot.store import ReminderUser, SavedPaper, SaveOutcome
from testkit.pg import Backend, PgCluster

ALICE, BOB = 1001, 2002
POSTER = ("p1", "poster-41001")
LOCK_WAIT_DEADLINE = 30.0  # seconds: a hung test fails instead of hanging CI


async def test_the_setting_and_the_ledger_survive_a_restart(backend: Backend) -> None:
    first = await backend.open()
    await first.set_reminder(ALICE, 2, language="de")
    assert await first.claim_reminders(ALICE, [POSTER]) == {POSTER}
    await first.close()

    second = await backend.open()
    try:
        assert await second.reminder_users() == (ReminderUser(ALICE, 2, "de"),)
        assert await second.sent_reminders(ALICE) == {POSTER}
        assert await second.claim_reminders(ALICE, [POSTER]) == frozenset()
    finally:
        await second.close()


async def test_of_two_replicas_claiming_one_reminder_exactly_one_wins(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    keys = [(f"p{n}", "poster-1") for n in range(40)]
    try:
        await first.set_reminder(ALICE, 10)
        # Every key claimed by both replicas at once, alone and inside overlapping batches.
        rounds = await asyncio.gather(
            *(replica.claim_reminders(ALICE, [key]) for key in keys for replica in (first, second))
        )
        for number, key in enumerate(keys):
            one, other = rounds[2 * number], rounds[2 * number + 1]
            assert sorted([one, other], key=len) == [frozenset(), {key}]

        more = [(f"q{n}", "oral-2") for n in range(30)]
        batches = await asyncio.gather(
            *(
                replica.claim_reminders(ALICE, batch)
                for replica in (first, second)
                for batch in (more[:20], more[10:], more[::-1])
            )
        )
        union: set[tuple[str, str]] = set()
        for claimed in batches:
            assert not union & claimed
            union |= claimed
        assert union == set(more)
    finally:
        await first.close()
        await second.close()


async def _wait_for_a_blocked_claim(url: str) -> None:
    """Return once a session waits on a lock while inserting into sent_reminders."""
    deadline = time.monotonic() + LOCK_WAIT_DEADLINE
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as watcher:
        while time.monotonic() < deadline:
            cursor = await watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND query LIKE '%%INSERT INTO sent_reminders%%'"
            )
            if (await cursor.fetchone())[0]:
                return
    pytest.fail("the claim never waited on the other replica's row")


@pytest.mark.parametrize("other_commits", [True, False], ids=["other-commits", "other-aborts"])
async def test_a_claim_waits_for_another_replicas_claim_in_flight(
    pg_cluster: PgCluster, tmp_path: Path, other_commits: bool
) -> None:
    # PostgreSQL only: SQLite's writers take turns on the file, so nothing is ever in flight.
    url = pg_cluster.create_schema(f"test_{uuid.uuid4().hex[:16]}")
    store = await Backend("postgres", url, tmp_path, pg_cluster).open()
    try:
        await store.set_reminder(ALICE, 10)
        # Another replica's claim, inserted and not yet committed.
        async with await psycopg.AsyncConnection.connect(url) as other:
            await other.execute(
                "INSERT INTO sent_reminders (user_id, paper_id, presentation_key) "
                "VALUES (%s, %s, %s)",
                (ALICE, *POSTER),
            )
            claim = asyncio.create_task(store.claim_reminders(ALICE, [POSTER]))
            await _wait_for_a_blocked_claim(url)
            await (other.commit() if other_commits else other.rollback())
            claimed = await claim

        assert claimed == (frozenset() if other_commits else {POSTER})
        assert await store.sent_reminders(ALICE) == {POSTER}
    finally:
        await store.close()


async def test_forget_racing_a_claim_on_another_replica_leaves_no_row(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    try:
        for _ in range(10):
            await first.set_reminder(ALICE, 10)
            keys = [(f"p{n}", "poster-1") for n in range(20)]
            await asyncio.gather(second.claim_reminders(ALICE, keys), first.forget_user(ALICE))

            # Before the forget (its rows deleted) or after it (reminders off: nothing claimed).
            assert await first.sent_reminders(ALICE) == frozenset()
            assert await second.get_reminder(ALICE) is None
    finally:
        await first.close()
        await second.close()


async def test_a_database_at_version_6_gains_the_reminder_tables(backend: Backend) -> None:
    backend.migrate_to(6)
    backend.execute(f"INSERT INTO users (user_id, language) VALUES ({BOB}, 'ru')")
    backend.execute(f"INSERT INTO sent_alerts (user_id, paper_id) VALUES ({BOB}, 'p1')")

    store = await backend.open()
    try:
        assert await store.get_language(BOB) == "ru"
        assert await store.claim_alerts(BOB, ["p1"]) == frozenset()
        await store.set_reminder(BOB, 45)
        assert await store.reminder_users() == (ReminderUser(BOB, 45, "ru"),)
        assert await store.claim_reminders(BOB, [POSTER]) == {POSTER}
        assert await store.save(BOB, SavedPaper("p1", "Kept")) is SaveOutcome.SAVED
    finally:
        await store.close()
