"""The store against hostile text (NUL, lone surrogates) and a database file deleted under it."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.corpus import Presentation
from bot.store import FollowOutcome, SavedPaper, SaveOutcome, Store, StoreUnavailable, open_store
from bot.store.factory import SQLITE_FILE

ALICE = 1001
NUL, SURROGATE = "\x00", "\ud800"


@pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["NUL", "surrogate"])
async def test_a_topic_with_a_nul_or_a_lone_surrogate_is_stored_cleaned(
    store: Store, bad: str
) -> None:
    # Before: PostgreSQL raised DataError on NUL, SQLite UnicodeEncodeError on a surrogate.
    assert await store.follow(ALICE, f"graph{bad} neural  nets") is FollowOutcome.FOLLOWED
    [topic] = await store.topics(ALICE)
    assert NUL not in topic and SURROGATE not in topic
    assert topic.encode("utf-8").decode("utf-8") == topic  # encodable as stored
    assert "graph" in topic and topic.endswith("neural nets")
    # The same hostile text names the same topic, so it can be unfollowed.
    assert await store.follow(ALICE, f"graph{bad} neural nets") is FollowOutcome.ALREADY_FOLLOWING
    assert await store.unfollow(ALICE, f"GRAPH{bad} neural nets") is True
    assert await store.topics(ALICE) == ()


@pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["NUL", "surrogate"])
async def test_a_saved_record_with_a_nul_or_a_lone_surrogate_is_stored_cleaned(
    store: Store, bad: str
) -> None:
    paper = SavedPaper(
        paper_id=f"p{bad}1",
        title=f"Attention{bad} is all",
        authors=(f"Ada{bad} Lovelace",),
        venue=f"ICML{bad}",
        url=f"https://example.org/{bad}",
        doi=f"10.1/{bad}",
        status=f"oral{bad}",
        presentations=(Presentation("poster", room=f"Hall{bad} A", position=f"E-{bad}1"),),
        institutions=(f"KAIST{bad}",),
    )
    assert await store.save(ALICE, paper) is SaveOutcome.SAVED
    assert await store.save(ALICE, paper) is SaveOutcome.ALREADY_SAVED
    [row] = await store.export_rows(ALICE)
    [shown] = row.presentations
    texts = (row.paper_id, row.title, *row.authors, row.venue, row.url, row.doi, row.status,
             shown.room, shown.position, *row.institutions)  # fmt: skip
    assert all(NUL not in text and SURROGATE not in text for text in texts)
    assert row.title.startswith("Attention") and row.title.endswith("is all")
    assert await store.is_saved(ALICE, paper.paper_id) is True
    assert await store.saved_among(ALICE, [paper.paper_id, "other"]) == {paper.paper_id}
    assert await store.remove(ALICE, paper.paper_id) is True
    assert await store.count_saved(ALICE) == 0


async def test_a_language_tag_with_a_nul_is_stored_cleaned(store: Store) -> None:
    await store.set_language(ALICE, f"en{NUL}")
    assert await store.get_language(ALICE) == "en"


# ------------------------------------------------------------------ the SQLite file swapped


def _paper(number: int) -> SavedPaper:
    return SavedPaper(paper_id=f"p{number}", title=f"Paper {number}")


async def _ids(store: Store) -> list[str]:
    return sorted(row.paper_id for row in await store.export_rows(ALICE))


def _delete_file(data_dir: Path) -> None:
    (data_dir / SQLITE_FILE).unlink()  # `rm bot.sqlite3`: its -wal and -shm stay


def _delete_folder(data_dir: Path) -> None:
    shutil.rmtree(data_dir)  # what `git clean -xdf` did to the old default data/


@pytest.mark.parametrize("delete", [_delete_file, _delete_folder], ids=["file", "folder"])
async def test_a_deleted_database_file_refuses_once_then_keeps_every_row(
    tmp_path: Path, delete: Callable[[Path], None], caplog: pytest.LogCaptureFixture
) -> None:
    data_dir = tmp_path / "data"
    store = await open_store(None, data_dir)
    for number in range(3):
        assert await store.save(ALICE, _paper(number)) is SaveOutcome.SAVED
    await store.follow(ALICE, "diffusion")
    delete(data_dir)

    with (
        caplog.at_level(logging.ERROR, logger="bot.store.sqlite"),
        pytest.raises(StoreUnavailable, match="deleted or replaced"),
    ):
        await store.save(ALICE, _paper(3))  # refused: never acknowledged
    assert "was deleted or replaced" in caplog.text and "nothing was lost" in caplog.text
    for number in range(4, 8):
        assert await store.save(ALICE, _paper(number)) is SaveOutcome.SAVED
    await store.close()

    reopened = await open_store(None, data_dir)  # a restart
    try:
        assert await _ids(reopened) == ["p0", "p1", "p2", "p4", "p5", "p6", "p7"]
        assert await reopened.topics(ALICE) == ("diffusion",)
    finally:
        await reopened.close()
    assert sorted(path.name for path in data_dir.iterdir() if ".rescued-" in path.name) == []


async def test_a_replaced_database_file_is_served_and_the_old_rows_kept_beside_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live, other = tmp_path / "live", tmp_path / "other"
    store = await open_store(None, live)
    await store.save(ALICE, _paper(1))
    replacement = await open_store(None, other)
    await replacement.save(ALICE, _paper(2))
    await replacement.close()
    os.replace(other / SQLITE_FILE, live / SQLITE_FILE)  # `mv` over it while running

    with caplog.at_level(logging.ERROR, logger="bot.store.sqlite"), pytest.raises(StoreUnavailable):
        await store.save(ALICE, _paper(3))
    assert await _ids(store) == ["p2"]  # the file now at the path, as its owner meant
    await store.close()
    [kept] = [path for path in live.iterdir() if ".rescued-" in path.name]
    assert str(kept) in caplog.text  # the log says where the old rows are
    with sqlite3.connect(kept) as old:
        assert old.execute("SELECT paper_id FROM saved_papers").fetchall() == [("p1",)]


async def test_a_save_committed_as_the_file_is_deleted_is_carried_over(tmp_path: Path) -> None:
    # The check before a write cannot see a delete that lands during it; the one after can.
    from bot.store import _queries as q
    from bot.store._sqlite_file import write
    from bot.store.sqlite import SqliteStore

    store = await open_store(None, tmp_path)
    assert isinstance(store, SqliteStore)
    await store.save(ALICE, _paper(1))

    def delete_then_save(db: sqlite3.Connection) -> int:
        (tmp_path / SQLITE_FILE).unlink()
        db.execute(q.ADD_USER, (ALICE,))
        return db.execute(q.SAVE_UNDER_CAP, q.save_params(ALICE, _paper(2), 10)).rowcount

    assert await store._run(write(delete_then_save)) == 1  # acknowledged ...
    await store.close()
    reopened = await open_store(None, tmp_path)
    try:
        assert await _ids(reopened) == ["p1", "p2"]  # ... and kept
    finally:
        await reopened.close()
