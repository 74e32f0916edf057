"""Papers an index served before a reload replaced it, on both Store backends: alerts announce
only papers never served before."""

from __future__ import annotations

import asyncio

from bot.store import Store
from testkit.pg import Backend


async def test_only_ids_never_served_are_new(store: Store) -> None:
    assert await store.never_served([], ["p1", "p2"]) == {"p1", "p2"}  # nothing recorded yet
    assert await store.never_served(["p1", "p2"], ["p2", "p3"]) == {"p3"}
    assert await store.never_served(["p1"], ["p1", "p2", "p3"]) == {"p3"}  # recorded once, kept
    assert await store.never_served(["p3", "p3"], []) == frozenset()
    assert await store.never_served([], ["p1", "p2", "p3", "p4"]) == {"p4"}


async def test_served_ids_survive_a_restart(backend: Backend) -> None:
    first = await backend.open()
    await first.never_served([f"p{n}" for n in range(3000)], [])  # more than one batch
    await first.close()

    second = await backend.open()
    try:
        assert await second.never_served([], ["p0", "p2999", "new"]) == {"new"}
    finally:
        await second.close()


async def test_replicas_recording_overlapping_ids_both_finish(backend: Backend) -> None:
    stores = [await backend.open(), await backend.open()]
    try:
        ids = [f"p{n}" for n in range(2000)]
        await asyncio.gather(stores[0].never_served(ids, []), stores[1].never_served(ids[::-1], []))
        assert await stores[0].never_served([], ["p0", "p1999", "x"]) == {"x"}
    finally:
        for store in stores:
            await store.close()


async def test_a_database_at_version_5_gets_the_seen_table(backend: Backend) -> None:
    # The schema as the bot before this table left it (0001…0005), then opened by us.
    backend.migrate_to(5)

    store = await backend.open()
    try:
        assert await store.never_served(["p1"], ["p1", "p2"]) == {"p2"}
    finally:
        await store.close()
