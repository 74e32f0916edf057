"""The index cache keeps a programme's papers whole: presentations, institutions, topic, tier."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.answers import results
from bot.corpus import Presentation, load_corpus
from bot.search import load_corpus_and_index
from bot.search.cache import corpus_key
from bot.search.storage.cache_file import CacheMiss, read_state, write_state
from bot.search.storage.columns import report_from_state, report_state
from testkit.paths import TEST_DATA

PROGRAMME = TEST_DATA / "programme"


def test_presentations_survive_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    fresh, _ = load_corpus_and_index([PROGRAMME], cache, min_papers=0)
    assert list(cache.glob("index-*.idx"))
    cached, index = load_corpus_and_index([PROGRAMME], cache, min_papers=0)
    assert type(cached.papers).__name__ == "PaperColumns"  # read back, not rebuilt
    assert cached == fresh
    by_id = {paper.source_id: paper for paper in cached.papers}
    paper = by_id["AbCdEf1234"]
    assert paper.presentations == (
        Presentation("oral", "Oral 2A Large Language Models", "2026-07-14T15:30:00+09:00",
                     "2026-07-14T15:45:00+09:00", "West Ballroom A", "", "51001", "Asia/Seoul"),
        Presentation("poster", "Poster Session 2", "2026-07-14T16:30:00+09:00",
                     "2026-07-14T19:00:00+09:00", "East Exhibition Hall A-B", "E-2308", "41001",
                     "Asia/Seoul"),
    )  # fmt: skip
    assert paper.affiliations == ("Example University", "")
    assert (paper.topic, paper.tier) == ("Deep Learning->Large Language Models", "oral")
    assert by_id["KtsTf0004c"].presentations == (
        Presentation("poster", event="41004", zone="Asia/Seoul"),
    )
    assert results(index, "sparse routers collapse", limit=1).hits[0].paper == paper


def test_a_damaged_presentation_is_a_cache_miss(tmp_path: Path) -> None:
    state = report_state(load_corpus([PROGRAMME / "icml-2026-orals-posters.json"]))
    values = state["papers.presentations"]
    state["papers.presentations"] = [values[0].rsplit("\x1f", 1)[0], *values[1:]]  # a field short
    path = tmp_path / "papers.idx"
    write_state(path, key="k", analyzer="a", state=state)
    with pytest.raises(CacheMiss, match="bad presentation"):
        report_from_state(read_state(path, key="k", analyzer="a"))


def test_a_feed_named_alone_is_keyed_with_its_sidecar(tmp_path: Path) -> None:
    for name in ("icml-2026-orals-posters.json", "icml-2026-abstracts.json"):
        shutil.copy(PROGRAMME / name, tmp_path / name)
    feed, sidecar = tmp_path / "icml-2026-orals-posters.json", tmp_path / "icml-2026-abstracts.json"
    before = corpus_key([feed])
    sidecar.write_text('{"41001": "<p>A new abstract.</p>"}', encoding="utf-8")
    assert corpus_key([feed]) != before  # new abstracts: the cached papers are stale
    report, _ = load_corpus_and_index([feed], tmp_path / "cache", min_papers=0)
    assert report.papers[0].abstract == "A new abstract."
