"""Dismissed recommendations on both Store backends: per user, durable, deleted by /forget."""

from __future__ import annotations

from bot.store import Store
from testkit.pg import Backend

ALICE, BOB = 1001, 2002


async def test_dismissals_are_kept_per_user(store: Store) -> None:
    assert await store.dismiss(ALICE, "p1") is True
    assert await store.dismiss(ALICE, "p1") is False  # once
    assert await store.dismiss(ALICE, "p2") is True
    assert await store.dismiss(BOB, "p3") is True

    assert await store.dismissed(ALICE) == {"p1", "p2"}
    assert await store.dismissed(BOB) == {"p3"}
    assert await store.dismissed(3003) == frozenset()


async def test_dismissals_survive_a_restart(backend: Backend) -> None:
    first = await backend.open()
    await first.dismiss(ALICE, "p1")
    await first.close()

    second = await backend.open()
    try:
        assert await second.dismissed(ALICE) == {"p1"}
    finally:
        await second.close()


async def test_forget_deletes_dismissals_of_that_user_only(store: Store) -> None:
    await store.dismiss(ALICE, "p1")
    await store.dismiss(BOB, "p1")

    await store.forget_user(ALICE)

    assert await store.dismissed(ALICE) == frozenset()
    assert await store.dismissed(BOB) == {"p1"}


async def test_a_hostile_id_is_stored_clean(store: Store) -> None:
    assert await store.dismiss(ALICE, "p\x00\ud800") is True
    (stored,) = await store.dismissed(ALICE)
    assert "\x00" not in stored
