"""A user's own clock (/timezone) on both Store backends: none until set, kept as
`parse_zone` writes it, cleared, carried to the reminder job, deleted by /forget, refused
before the database when it is not a zone, and on a database written before it existed."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest

from bot.store import ReminderUser, Store
from bot.store._queries import load_migrations
from testkit.pg import Backend

ALICE, BOB = 1001, 2002


async def test_a_zone_is_none_until_set_then_kept_as_parsed_and_cleared(store: Store) -> None:
    assert await store.get_timezone(ALICE) is None

    await store.set_timezone(ALICE, "europe/berlin")  # any case: stored as IANA spells it
    await store.set_timezone(BOB, "UTC+5:30")
    assert await store.get_timezone(ALICE) == "Europe/Berlin"
    assert await store.get_timezone(BOB) == "+05:30"

    await store.set_timezone(ALICE, None)
    assert await store.get_timezone(ALICE) is None
    assert await store.get_timezone(BOB) == "+05:30"  # one user's choice only


async def test_a_zone_and_a_language_live_side_by_side(store: Store) -> None:
    await store.set_language(ALICE, "zh_Hans")
    await store.set_timezone(ALICE, "Asia/Shanghai")
    await store.set_language(ALICE, "en")  # changing one keeps the other

    assert await store.get_timezone(ALICE) == "Asia/Shanghai"
    await store.set_timezone(ALICE, None)
    assert await store.get_language(ALICE) == "en"


async def test_clearing_a_zone_never_set_changes_nothing(store: Store) -> None:
    await store.set_timezone(ALICE, None)

    assert await store.get_timezone(ALICE) is None


@pytest.mark.parametrize("bad", ["", "Mars/Olympus", "berlin", "UTC+15", "x" * 500, "\0"])
async def test_what_is_not_a_zone_is_a_value_error_and_not_stored(store: Store, bad: str) -> None:
    await store.set_timezone(ALICE, "Asia/Seoul")

    with pytest.raises(ValueError):
        await store.set_timezone(ALICE, bad)

    assert await store.get_timezone(ALICE) == "Asia/Seoul"


async def test_the_database_refuses_an_overlong_zone_too(backend: Backend) -> None:
    await (await backend.open()).close()  # migrated

    with pytest.raises((sqlite3.IntegrityError, psycopg.errors.CheckViolation)):
        backend.execute(f"INSERT INTO users (user_id, timezone) VALUES ({ALICE}, '{'x' * 65}')")


async def test_the_reminder_job_reads_each_users_zone(store: Store) -> None:
    await store.set_reminder(ALICE, 15)
    await store.set_reminder(BOB, 10, language="de")
    await store.set_timezone(ALICE, "America/New_York")

    assert await store.reminder_users() == (
        ReminderUser(ALICE, 15, None, "America/New_York"),
        ReminderUser(BOB, 10, "de", None),
    )


async def test_forget_user_deletes_the_zone_with_the_rest(store: Store) -> None:
    for user in (ALICE, BOB):
        await store.set_timezone(user, "Europe/London")
    await store.forget_user(ALICE)

    assert await store.get_timezone(ALICE) is None
    assert await store.get_timezone(BOB) == "Europe/London"


async def test_a_database_from_before_zones_keeps_its_users(backend: Backend) -> None:
    migrations = load_migrations(backend.name)
    backend.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY)")
    for migration in migrations[:-1]:
        for statement in migration.statements:
            backend.execute(statement)
        backend.execute(f"INSERT INTO schema_version (version) VALUES ({migration.version})")
    backend.execute(f"INSERT INTO users (user_id, language) VALUES ({ALICE}, 'de')")

    store = await backend.open()
    try:
        assert migrations[-1].version == 9
        assert (await store.get_language(ALICE), await store.get_timezone(ALICE)) == ("de", None)
        await store.set_timezone(ALICE, "Asia/Tokyo")
        assert await store.get_timezone(ALICE) == "Asia/Tokyo"
    finally:
        await store.close()
