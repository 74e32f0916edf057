"""The store against hostile text (NUL, lone surrogates) and a database file deleted under it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from pg_cluster import Backend

from bot.store import FollowOutcome, SavedPaper, SaveOutcome, Store

ALICE = 1001
NUL, SURROGATE = "\x00", "\ud800"


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Store]:
    """An open store on an empty database."""
    opened = await backend.open()
    yield opened
    await opened.close()


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
    )
    assert await store.save(ALICE, paper) is SaveOutcome.SAVED
    assert await store.save(ALICE, paper) is SaveOutcome.ALREADY_SAVED
    [row] = await store.export_rows(ALICE)
    texts = (row.paper_id, row.title, *row.authors, row.venue, row.url, row.doi)
    assert all(NUL not in text and SURROGATE not in text for text in texts)
    assert row.title.startswith("Attention") and row.title.endswith("is all")
    assert await store.is_saved(ALICE, paper.paper_id) is True
    assert await store.saved_among(ALICE, [paper.paper_id, "other"]) == {paper.paper_id}
    assert await store.remove(ALICE, paper.paper_id) is True
    assert await store.count_saved(ALICE) == 0


async def test_a_language_tag_with_a_nul_is_stored_cleaned(store: Store) -> None:
    await store.set_language(ALICE, f"en{NUL}")
    assert await store.get_language(ALICE) == "en"
