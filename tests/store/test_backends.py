"""One suite for both Store backends: SQLite always, PostgreSQL on a throw-away real server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import pytest

from bot.corpus import Presentation
from bot.store import (
    MAX_SAVED_PAPERS,
    MAX_TOPIC_CHARS,
    MAX_TOPICS,
    FollowOutcome,
    Limits,
    SavedPaper,
    SaveOutcome,
    Store,
    StoreOpenError,
    StoreUnavailable,
    open_store,
)
from bot.store._queries import load_migrations, split_statements
from bot.store.factory import DEFAULT_TIMEOUT, SQLITE_FILE
from testkit.docs import documentation
from testkit.paths import REPO_ROOT
from testkit.pg import Backend, PgCluster, free_port

ALICE, BOB = 1001, 2002
T = TypeVar("T")


def make_paper(number: int, **fields: object) -> SavedPaper:
    """A distinct paper snapshot."""
    values: dict[str, object] = {
        "paper_id": f"icml2026-{number:04d}",
        "title": f"Paper number {number}",
        "authors": (f"Ada Lovelace {number}", "Émile Noether"),
        "year": 2026,
        "venue": "ICML 2026",
        "url": f"https://example.org/{number}",
        "doi": f"10.1000/{number}",
    }
    values.update(fields)
    return SavedPaper(**values)  # type: ignore[arg-type]


def snapshot(paper: SavedPaper) -> SavedPaper:
    """`paper` without the database's timestamp, for comparisons."""
    return SavedPaper(
        paper.paper_id, paper.title, paper.authors, paper.year, paper.venue, paper.url, paper.doi
    )


# --- saving and listing ---------------------------------------------------------------


async def test_saved_paper_is_listed_with_its_snapshot(store: Store) -> None:
    paper = make_paper(1, title="Ünïcode & {braces} — ok", authors=("Zoë Ö", "李 雷"))
    before = datetime.now(UTC)

    assert await store.save(ALICE, paper) is SaveOutcome.SAVED

    (listed,) = await store.list_saved(ALICE)
    assert snapshot(listed) == paper
    assert listed.saved_at is not None and listed.saved_at.tzinfo is not None
    assert abs((listed.saved_at - before).total_seconds()) < 60


async def test_a_saved_papers_programme_comes_back_as_saved(store: Store) -> None:
    shown = (
        Presentation("oral", "Oral 1A Theory", "2026-07-14T10:00:00+09:00",
                     "2026-07-14T10:15:00+09:00", "West Ballroom A", "", "51001"),
        Presentation("poster", "", "", "", "Hall C", "C-7", ""),
    )  # fmt: skip
    paper = make_paper(1, status="oral", presentations=shown, institutions=("KAIST", "清华大学"))
    await store.save(ALICE, paper)
    [listed] = await store.list_saved(ALICE)
    [exported] = await store.export_rows(ALICE)
    for row in (listed, exported):
        assert (row.status, row.presentations, row.institutions) == (
            "oral",
            shown,
            ("KAIST", "清华大学"),
        )


async def test_saving_twice_keeps_one_row_and_the_first_snapshot(store: Store) -> None:
    await store.save(ALICE, make_paper(1))

    again = await store.save(ALICE, make_paper(1, title="Changed later"))

    assert again is SaveOutcome.ALREADY_SAVED
    assert await store.count_saved(ALICE) == 1
    assert [p.title for p in await store.list_saved(ALICE)] == ["Paper number 1"]


async def test_list_is_newest_first_and_pages(store: Store) -> None:
    for number in range(7):
        await store.save(ALICE, make_paper(number))

    first = await store.list_saved(ALICE, offset=0, limit=3)
    second = await store.list_saved(ALICE, offset=3, limit=3)
    last = await store.list_saved(ALICE, offset=6, limit=3)

    assert [p.paper_id for p in first + second + last] == [
        make_paper(n).paper_id for n in range(6, -1, -1)
    ]
    assert await store.list_saved(ALICE, offset=7, limit=3) == ()
    assert await store.count_saved(ALICE) == 7


async def test_bad_page_is_a_value_error(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.list_saved(ALICE, offset=-1)
    with pytest.raises(ValueError):
        await store.list_saved(ALICE, limit=0)


async def test_remove_deletes_once(store: Store) -> None:
    await store.save(ALICE, make_paper(1))
    await store.save(ALICE, make_paper(2))

    assert await store.remove(ALICE, make_paper(1).paper_id) is True
    assert await store.remove(ALICE, make_paper(1).paper_id) is False
    assert [p.paper_id for p in await store.list_saved(ALICE)] == [make_paper(2).paper_id]


async def test_removing_what_is_not_there_changes_nothing(store: Store) -> None:
    await store.save(ALICE, make_paper(1))

    assert await store.remove(ALICE, "no-such-paper") is False
    assert await store.count_saved(ALICE) == 1


async def test_one_user_cannot_remove_or_see_anothers_papers(store: Store) -> None:
    await store.save(ALICE, make_paper(1))

    assert await store.remove(BOB, make_paper(1).paper_id) is False
    assert await store.list_saved(BOB) == ()
    assert await store.is_saved(BOB, make_paper(1).paper_id) is False
    assert await store.is_saved(ALICE, make_paper(1).paper_id) is True


async def test_saved_among_answers_for_a_page_of_ids(store: Store) -> None:
    await store.save(ALICE, make_paper(1))
    await store.save(ALICE, make_paper(3))
    page = [make_paper(n).paper_id for n in (1, 2, 3)]

    assert await store.saved_among(ALICE, page) == {page[0], page[2]}
    assert await store.saved_among(BOB, page) == frozenset()
    assert await store.saved_among(ALICE, []) == frozenset()


async def test_export_rows_are_every_paper_newest_first(store: Store) -> None:
    for number in range(12):
        await store.save(ALICE, make_paper(number))

    rows = await store.export_rows(ALICE)

    assert [snapshot(r) for r in rows] == [make_paper(n) for n in range(11, -1, -1)]


async def test_saved_papers_survive_reopening(backend: Backend) -> None:
    first = await backend.open()
    await first.save(ALICE, make_paper(1))
    await first.follow(ALICE, "diffusion")
    await first.close()

    reopened = await backend.open()
    try:
        assert [snapshot(p) for p in await reopened.list_saved(ALICE)] == [make_paper(1)]
        assert await reopened.topics(ALICE) == ("diffusion",)
    finally:
        await reopened.close()


# --- caps -------------------------------------------------------------------------------


async def test_save_cap_is_a_typed_outcome(backend: Backend) -> None:
    store = await backend.open(limits=Limits(max_saved=3))
    try:
        for number in range(3):
            assert await store.save(ALICE, make_paper(number)) is SaveOutcome.SAVED

        assert await store.save(ALICE, make_paper(3)) is SaveOutcome.LIMIT_REACHED
        assert await store.save(ALICE, make_paper(0)) is SaveOutcome.ALREADY_SAVED
        assert await store.save(BOB, make_paper(3)) is SaveOutcome.SAVED
        assert await store.count_saved(ALICE) == 3

        await store.remove(ALICE, make_paper(0).paper_id)
        assert await store.save(ALICE, make_paper(3)) is SaveOutcome.SAVED
    finally:
        await store.close()


def test_default_caps_are_the_issues() -> None:
    assert Limits().max_saved == 1_000
    assert Limits().max_topics == MAX_TOPICS == 20


# --- topics -----------------------------------------------------------------------------


async def test_follow_collapses_whitespace_and_lists_in_order(store: Store) -> None:
    assert await store.follow(ALICE, "  graph   neural\nnetworks ") is FollowOutcome.FOLLOWED
    assert await store.follow(ALICE, "diffusion") is FollowOutcome.FOLLOWED

    assert await store.topics(ALICE) == ("graph neural networks", "diffusion")


async def test_following_the_same_topic_twice_is_one_topic(store: Store) -> None:
    await store.follow(ALICE, "Diffusion Models")

    assert await store.follow(ALICE, "diffusion   models") is FollowOutcome.ALREADY_FOLLOWING
    assert await store.topics(ALICE) == ("Diffusion Models",)


async def test_a_huge_or_empty_topic_is_rejected_and_not_stored(store: Store) -> None:
    assert await store.follow(ALICE, "x" * 10_000) is FollowOutcome.TOO_LONG
    assert await store.follow(ALICE, " \n\t ") is FollowOutcome.EMPTY
    assert await store.topics(ALICE) == ()


async def test_the_21st_topic_reaches_the_limit(store: Store) -> None:
    for number in range(MAX_TOPICS):
        assert await store.follow(ALICE, f"topic {number}") is FollowOutcome.FOLLOWED

    assert await store.follow(ALICE, "one more") is FollowOutcome.LIMIT_REACHED
    assert await store.follow(ALICE, "TOPIC 0") is FollowOutcome.ALREADY_FOLLOWING
    assert len(await store.topics(ALICE)) == MAX_TOPICS


async def test_unfollow_matches_case_insensitively_once(store: Store) -> None:
    await store.follow(ALICE, "Diffusion")

    assert await store.unfollow(BOB, "diffusion") is False
    assert await store.unfollow(ALICE, " DIFFUSION ") is True
    assert await store.unfollow(ALICE, "diffusion") is False
    assert await store.topics(ALICE) == ()


async def test_followers_maps_every_user_to_their_topics(store: Store) -> None:
    await store.follow(BOB, "bandits")
    await store.follow(ALICE, "diffusion")
    await store.follow(ALICE, "transformers")
    await store.save(1234, make_paper(1))  # a user without topics is no follower

    assert await store.followers() == {
        ALICE: ("diffusion", "transformers"),
        BOB: ("bandits",),
    }


# --- language and forgetting --------------------------------------------------------------


async def test_language_is_none_until_set_and_then_overwritten(store: Store) -> None:
    assert await store.get_language(ALICE) is None

    await store.set_language(ALICE, "de")
    await store.set_language(ALICE, "pt-BR")

    assert await store.get_language(ALICE) == "pt-BR"
    assert await store.get_language(BOB) is None
    await store.save(BOB, make_paper(1))  # a user who never chose a language is not listed
    assert await store.languages() == {ALICE: "pt-BR"}


async def test_a_bad_language_tag_is_a_value_error(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.set_language(ALICE, "   ")
    with pytest.raises(ValueError):
        await store.set_language(ALICE, "x" * 100)


async def test_forget_user_deletes_everything_about_them_only(store: Store) -> None:
    for user in (ALICE, BOB):
        await store.save(user, make_paper(1))
        await store.follow(user, "diffusion")
        await store.set_language(user, "fr")

    await store.forget_user(ALICE)

    assert await store.count_saved(ALICE) == 0
    assert await store.topics(ALICE) == ()
    assert await store.get_language(ALICE) is None
    assert ALICE not in await store.followers()
    assert await store.count_saved(BOB) == 1
    assert await store.get_language(BOB) == "fr"
    assert await store.save(ALICE, make_paper(1)) is SaveOutcome.SAVED


async def test_forget_user_deletes_their_alert_ledger_too(store: Store) -> None:
    await store.follow(ALICE, "diffusion")
    assert await store.claim_alerts(ALICE, ["p1", "p2"]) == {"p1", "p2"}
    assert await store.claim_alerts(BOB, ["p1"]) == {"p1"}

    await store.forget_user(ALICE)

    assert await store.claim_alerts(ALICE, ["p1", "p2"]) == {"p1", "p2"}
    assert await store.claim_alerts(BOB, ["p1"]) == frozenset()


# --- the alert ledger -----------------------------------------------------------------


async def test_claiming_alerts_twice_gives_nothing_the_second_time(store: Store) -> None:
    assert await store.claim_alerts(ALICE, ["p1", "p2", "p2"]) == {"p1", "p2"}

    assert await store.claim_alerts(ALICE, ["p2", "p1"]) == frozenset()
    assert await store.claim_alerts(ALICE, ["p1", "p3"]) == {"p3"}
    assert await store.claim_alerts(BOB, ["p1"]) == {"p1"}  # per user
    assert await store.claim_alerts(ALICE, []) == frozenset()


async def test_a_released_claim_can_be_claimed_again(store: Store) -> None:
    await store.claim_alerts(ALICE, ["p1", "p2"])

    await store.release_alerts(ALICE, ["p1", "never-claimed"])

    assert await store.claim_alerts(ALICE, ["p1", "p2"]) == {"p1"}


async def test_two_replicas_claiming_the_same_alerts_split_them(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    ids = [f"p{n}" for n in range(30)]
    try:
        # Each replica claims overlapping batches in both orders, all at once.
        claims = await asyncio.gather(
            *(
                replica.claim_alerts(ALICE, batch)
                for replica in (first, second)
                for batch in (ids[:20], ids[10:], list(reversed(ids)))
            )
        )

        union: set[str] = set()
        for claimed in claims:
            assert not union & claimed  # nobody gets an id someone else got
            union |= claimed
        assert union == set(ids)
    finally:
        await first.close()
        await second.close()


async def test_the_ledger_migration_applies_to_a_database_with_data(backend: Backend) -> None:
    # Build the previous schema version by hand, with a user's data in it.
    [initial, *_later] = load_migrations(backend.name)
    backend.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY)")
    for statement in initial.statements:
        backend.execute(statement)
    backend.execute(f"INSERT INTO schema_version (version) VALUES ({initial.version})")
    backend.execute(f"INSERT INTO users (user_id, language) VALUES ({ALICE}, 'de')")
    backend.execute(
        "INSERT INTO saved_papers (user_id, paper_id, title, authors, venue, url, doi) "
        f"VALUES ({ALICE}, 'p1', 'Kept', '[\"Ada\"]', 'ICML 2026', '', '')"
    )
    backend.execute(
        f"INSERT INTO topics (user_id, topic, topic_key) VALUES ({ALICE}, 'Diffusion', 'diffusion')"
    )

    store = await backend.open()
    try:
        [paper] = await store.export_rows(ALICE)
        assert (paper.paper_id, paper.title, paper.authors) == ("p1", "Kept", ("Ada",))
        assert (paper.status, paper.presentations, paper.institutions) == ("", (), ())
        assert await store.topics(ALICE) == ("Diffusion",)
        assert await store.get_language(ALICE) == "de"
        assert await store.claim_alerts(ALICE, ["p9"]) == {"p9"}
        assert await store.claim_alerts(ALICE, ["p9"]) == frozenset()
    finally:
        await store.close()


# --- two replicas at once ---------------------------------------------------------------


async def test_two_replicas_saving_the_same_papers_make_no_duplicates(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    papers = [make_paper(n) for n in range(40)]
    try:
        outcomes = await asyncio.gather(
            *(replica.save(ALICE, p) for p in papers for replica in (first, second))
        )

        assert outcomes.count(SaveOutcome.SAVED) == len(papers)
        assert outcomes.count(SaveOutcome.ALREADY_SAVED) == len(papers)
        assert await first.count_saved(ALICE) == len(papers)
        listed = await second.export_rows(ALICE)
        assert sorted(p.paper_id for p in listed) == sorted(p.paper_id for p in papers)
    finally:
        await first.close()
        await second.close()


async def test_two_replicas_saving_and_removing_lose_no_update(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    try:
        for number in range(20):
            await first.save(ALICE, make_paper(number))
        removals = [second.remove(ALICE, make_paper(n).paper_id) for n in range(0, 20, 2)]
        saves = [first.save(ALICE, make_paper(n)) for n in range(20, 40)]
        double_removals = [first.remove(ALICE, make_paper(n).paper_id) for n in range(0, 20, 2)]

        results = await asyncio.gather(*removals, *saves, *double_removals)

        removed = results[:10] + results[30:]
        assert removed.count(True) == 10  # each paper removed exactly once
        assert results[10:30] == [SaveOutcome.SAVED] * 20
        expected = {make_paper(n).paper_id for n in [*range(1, 20, 2), *range(20, 40)]}
        assert {p.paper_id for p in await second.export_rows(ALICE)} == expected
    finally:
        await first.close()
        await second.close()


async def test_caps_hold_when_two_replicas_race(backend: Backend) -> None:
    limits = Limits(max_saved=10, max_topics=5)
    first, second = await backend.open(limits=limits), await backend.open(limits=limits)
    try:
        saves = await asyncio.gather(
            *((first if n % 2 else second).save(ALICE, make_paper(n)) for n in range(30))
        )
        follows = await asyncio.gather(
            *((first if n % 2 else second).follow(ALICE, f"topic {n}") for n in range(12))
        )

        assert saves.count(SaveOutcome.SAVED) == 10
        assert saves.count(SaveOutcome.LIMIT_REACHED) == 20
        assert await first.count_saved(ALICE) == 10
        assert follows.count(FollowOutcome.FOLLOWED) == 5
        assert len(await second.topics(ALICE)) == 5
    finally:
        await first.close()
        await second.close()


async def test_replicas_migrating_at_once_both_open(backend: Backend) -> None:
    first, second = await asyncio.gather(backend.open(), backend.open())
    try:
        assert await first.save(ALICE, make_paper(1)) is SaveOutcome.SAVED
        assert await second.is_saved(ALICE, make_paper(1).paper_id)
    finally:
        await first.close()
        await second.close()


# --- crash safety -------------------------------------------------------------------------

_BURST = """
import asyncio, sys
from pathlib import Path
from bot.store import SavedPaper, open_store
from testkit.paths import REPO_ROOT

async def main():
    store = await open_store(sys.argv[1] or None, Path(sys.argv[2]))
    for number in range(100_000):
        paper = SavedPaper(
            f"p{number}", f"title {number}", (f"author {number}", "second"), 2026, "ICML 2026"
        )
        await store.save(7, paper)
        print(number, flush=True)

asyncio.run(main())
"""


@pytest.mark.slow
async def test_every_acknowledged_save_survives_sigkill(backend: Backend) -> None:
    acknowledged: list[int] = []
    with subprocess.Popen(
        [sys.executable, "-c", _BURST, backend.database_url or "", str(backend.data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    ) as child:
        assert child.stdout is not None
        try:
            for line in child.stdout:
                acknowledged.append(int(line))
                if len(acknowledged) == 150:
                    break
            child.send_signal(signal.SIGKILL)
            # Lines printed before the kill were acknowledged too.
            acknowledged += [int(line) for line in child.stdout if line.strip()]
        finally:
            child.kill()
    assert child.returncode == -signal.SIGKILL

    store = await backend.open()
    try:
        rows = await store.export_rows(7)
    finally:
        await store.close()

    stored = {row.paper_id: row for row in rows}
    assert {f"p{number}" for number in acknowledged} <= stored.keys()
    assert len(stored) - len(acknowledged) <= 1  # at most one save was done but not yet printed
    for paper_id, row in stored.items():  # nothing half-written
        number = paper_id.removeprefix("p")
        assert (row.title, row.authors) == (f"title {number}", (f"author {number}", "second"))


# --- opening and outages ------------------------------------------------------------------


async def test_unreachable_postgres_at_start_names_the_setting(tmp_path: Path) -> None:
    url = f"postgresql://bot:s3cret@127.0.0.1:{free_port()}/bot"

    with pytest.raises(StoreOpenError) as raised:
        await open_store(url, tmp_path, timeout=2)

    assert raised.value.setting == "DATABASE_URL"
    assert "s3cret" not in str(raised.value)
    assert "127.0.0.1" in str(raised.value)


async def test_a_malformed_postgres_url_is_an_open_error_without_secrets(tmp_path: Path) -> None:
    with pytest.raises(StoreOpenError) as raised:
        await open_store("postgresql://bot:s3cret@127.0.0.1:notaport/bot", tmp_path, timeout=2)

    assert raised.value.setting == "DATABASE_URL"
    assert "s3cret" not in str(raised.value)


async def test_an_unsupported_database_url_is_an_open_error(tmp_path: Path) -> None:
    with pytest.raises(StoreOpenError) as raised:
        await open_store("mysql://bot:s3cret@db/bot", tmp_path)

    assert raised.value.setting == "DATABASE_URL"
    assert "s3cret" not in str(raised.value)


async def test_an_unusable_data_dir_names_the_setting(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")

    with pytest.raises(StoreOpenError) as raised:
        await open_store(None, not_a_dir / "data")

    assert raised.value.setting == "DATA_DIR"


async def test_sqlite_store_is_created_under_data_dir(tmp_path: Path) -> None:
    store = await open_store(None, tmp_path / "nested" / "data")
    await store.close()

    assert (tmp_path / "nested" / "data" / SQLITE_FILE).is_file()


async def test_a_database_newer_than_the_bot_is_refused(backend: Backend) -> None:
    await (await backend.open()).close()
    backend.execute("INSERT INTO schema_version (version) VALUES (999)")

    with pytest.raises(StoreOpenError) as raised:
        await backend.open()

    assert "999" in str(raised.value)


async def test_migrations_are_applied_once(backend: Backend) -> None:
    await (await backend.open()).close()
    reopened = await backend.open()  # would fail on CREATE TABLE if re-applied
    await reopened.close()

    backend.execute(
        f"DELETE FROM schema_version WHERE version = {load_migrations(backend.name)[-1].version}"
    )
    with pytest.raises(StoreOpenError):  # a half-recorded history is not silently re-run
        await backend.open()


def test_split_statements_drops_comments() -> None:
    sql = "-- a; comment\nCREATE TABLE a (x INT);\n\n  -- another\nCREATE INDEX i ON a (x);\n"

    assert split_statements(sql) == ("CREATE TABLE a (x INT)", "CREATE INDEX i ON a (x)")


@pytest.mark.slow
async def test_postgres_outage_is_store_unavailable_then_recovers(
    pg_cluster: PgCluster, tmp_path: Path
) -> None:
    url = pg_cluster.create_database(f"test_{uuid.uuid4().hex[:16]}")
    store = await open_store(url, tmp_path, timeout=2)
    try:
        assert await store.save(ALICE, make_paper(1)) is SaveOutcome.SAVED
        pg_cluster.stop()
        try:
            with pytest.raises(StoreUnavailable):
                await store.save(ALICE, make_paper(2))
            with pytest.raises(StoreUnavailable):
                await store.list_saved(ALICE)
        finally:
            pg_cluster.start()

        outcome = await _first_success(lambda: store.save(ALICE, make_paper(2)), attempts=5)
        assert outcome is SaveOutcome.SAVED
        assert await store.count_saved(ALICE) == 2
    finally:
        await store.close()


async def _first_success(call: Callable[[], Awaitable[T]], attempts: int) -> T:
    """The first result of `call` not raising StoreUnavailable (each try waits the pool timeout)."""
    for _ in range(attempts - 1):
        with contextlib.suppress(StoreUnavailable):
            return await call()
    return await call()


async def test_sqlite_lock_timeout_is_store_unavailable_then_recovers(tmp_path: Path) -> None:
    store = await open_store(None, tmp_path, timeout=0.2)
    blocker = sqlite3.connect(tmp_path / SQLITE_FILE, isolation_level=None)
    try:
        blocker.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreUnavailable):
            await store.save(ALICE, make_paper(1))
        blocker.execute("ROLLBACK")

        assert await store.save(ALICE, make_paper(1)) is SaveOutcome.SAVED
    finally:
        blocker.close()
        await store.close()


# --- the documented backup and restore commands ------------------------------------------


async def _fill(store: Store) -> tuple[SavedPaper, ...]:
    """Save three papers, a topic and a language; return the list as stored."""
    for number in range(3):
        await store.save(ALICE, make_paper(number))
    await store.follow(ALICE, "diffusion")
    await store.set_language(ALICE, "de")
    return await store.export_rows(ALICE)


async def _assert_restored(store: Store, saved: tuple[SavedPaper, ...]) -> None:
    """`store` holds exactly what `_fill` stored."""
    try:
        assert await store.export_rows(ALICE) == saved
        assert await store.topics(ALICE) == ("diffusion",)
        assert await store.get_language(ALICE) == "de"
        assert await store.save(ALICE, make_paper(9)) is SaveOutcome.SAVED  # still writable
    finally:
        await store.close()


async def test_sqlite_backup_command_restores_everything(tmp_path: Path) -> None:
    sqlite_cli = shutil.which("sqlite3")
    if sqlite_cli is None:
        pytest.skip("the sqlite3 command-line shell is not installed")
    live, restored = tmp_path / "live", tmp_path / "restored"
    store = await open_store(None, live)
    saved = await _fill(store)
    backup = tmp_path / "backup.sqlite3"

    # Taken while the store is open, as the README says is safe.
    subprocess.run([sqlite_cli, live / SQLITE_FILE, f".backup '{backup}'"], check=True)
    await store.close()
    restored.mkdir()
    shutil.copy(backup, restored / SQLITE_FILE)

    await _assert_restored(await open_store(None, restored), saved)


async def test_pg_dump_and_restore_commands_restore_everything(
    pg_cluster: PgCluster, tmp_path: Path
) -> None:
    source = pg_cluster.create_database(f"test_{uuid.uuid4().hex[:16]}")
    target = pg_cluster.create_database(f"test_{uuid.uuid4().hex[:16]}")
    store = await open_store(source, tmp_path)
    saved = await _fill(store)
    dump = tmp_path / "bot.dump"
    tools = pg_cluster.bin_dir

    subprocess.run([tools / "pg_dump", "--format=custom", f"--file={dump}", source], check=True)
    await store.close()
    subprocess.run([tools / "pg_restore", "--no-owner", f"--dbname={target}", dump], check=True)

    await _assert_restored(await open_store(target, tmp_path), saved)


def test_storage_docs_state_the_real_limits() -> None:
    docs = documentation()  # the storage section

    assert f"{MAX_SAVED_PAPERS:,} saved papers and {MAX_TOPICS} topics" in docs
    assert f"up to {MAX_TOPIC_CHARS}" in docs
    assert f"`{SQLITE_FILE}`" in docs
    assert f"at most {DEFAULT_TIMEOUT:g} s" in docs


async def test_forget_racing_saves_on_another_replica_leaves_no_orphans(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    try:
        for number in range(10):
            await first.save(ALICE, make_paper(number))

        outcomes = await asyncio.gather(
            *(second.save(ALICE, make_paper(n)) for n in range(10, 30)),
            first.forget_user(ALICE),
            *(second.follow(ALICE, f"topic {n}") for n in range(5)),
        )

        saved_after = {make_paper(n).paper_id for n in range(10, 30)}
        rows = {p.paper_id for p in await first.export_rows(ALICE)}
        assert rows <= saved_after  # the ten saved before the forget are gone
        assert outcomes[:20].count(SaveOutcome.SAVED) == 20
        await first.forget_user(ALICE)
        assert await second.count_saved(ALICE) == 0
        assert await second.topics(ALICE) == ()
    finally:
        await first.close()
        await second.close()


async def test_an_sqlite_without_returning_is_refused_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 34, 1))

    with pytest.raises(StoreOpenError) as raised:
        await open_store(None, tmp_path)

    assert raised.value.setting == "DATA_DIR" and "3.35" in raised.value.reason
