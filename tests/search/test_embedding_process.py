"""`EmbeddingProcess`: papers embedded in a child process, attached without a restart.

Stand-in embedders (testkit.embedders) are made in the child; `tests/process/
test_embedding_child.py` runs the real model under a real bot.
"""

from __future__ import annotations

import functools
import json
import logging
import multiprocessing
import threading
from pathlib import Path

import numpy as np
import pytest

from bot import loading
from bot.search import HybridRetriever, SearchResult
from bot.search.semantic import CorpusSource, EmbeddingProcess, embed_papers
from bot.search.semantic.embedding import UNIT, VectorCache
from testkit.embedders import (
    WordHashEmbedder,
    broken_embedder,
    gated_embedder,
    word_hash_embedder,
)

# Each test starts a Python process.
pytestmark = pytest.mark.slow

PAPERS = 60
TIMEOUT = 120.0  # seconds; a child starts in a few on a busy machine
TOPICS = ("graph neural networks", "diffusion models", "protein folding", "bandit regret")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """`PAPERS` small papers on four topics, as JSONL."""
    path = tmp_path / "papers.jsonl"
    records = [
        {
            "id": f"p{i}",
            "title": f"{TOPICS[i % 4].title()} study {i}",
            "abstract": f"We study {TOPICS[i % 4]} in setting {i}. Results on {TOPICS[i % 4]}.",
        }
        for i in range(PAPERS)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def served(corpus: Path, cache_dir: Path) -> tuple[HybridRetriever, CorpusSource]:
    """The hybrid the bot would serve for `corpus`, and where its child reads the corpus."""
    _report, index = loading.load_index([corpus], cache_dir)
    source = CorpusSource((str(corpus),), str(cache_dir))
    return HybridRetriever(index, WordHashEmbedder()), source


def ask(retriever: HybridRetriever, text: str) -> SearchResult:
    return retriever.search(retriever.queries.prepare(text))


def test_the_child_embeds_and_the_answers_turn_hybrid(corpus: Path, tmp_path: Path) -> None:
    retriever, source = served(corpus, tmp_path / "cache")
    job = EmbeddingProcess(retriever, source, make_embedder=word_hash_embedder).start()
    assert job.done.wait(TIMEOUT)
    assert job.process.exitcode == 0
    assert retriever.semantic_ready and not ask(retriever, "diffusion models").warming
    # The vectors the child sent are the embedder's, row for row, and stay cached.
    expected = embed_papers(WordHashEmbedder(), retriever.papers)
    np.testing.assert_allclose(retriever.vectors, expected, atol=1e-6)
    assert VectorCache(source.cache_dir, WordHashEmbedder().name).load() == PAPERS


def test_a_stop_midway_keeps_the_work_and_ends_the_child(corpus: Path, tmp_path: Path) -> None:
    retriever, source = served(corpus, tmp_path / "cache")
    gate = multiprocessing.get_context("spawn").Event()
    reached = threading.Event()

    def progress(done: int, total: int) -> None:
        if done >= 2 * UNIT:
            reached.set()

    make = functools.partial(gated_embedder, gate, 2 * UNIT)
    job = EmbeddingProcess(retriever, source, make_embedder=make, progress=progress).start()
    assert reached.wait(TIMEOUT)  # two runs embedded; the third waits at the gate
    job.stop()
    gate.set()
    assert job.finish(TIMEOUT)
    assert job.process.exitcode == 0 and not job.process.is_alive()
    assert not retriever.semantic_ready  # BM25 answers on
    assert ask(retriever, "diffusion models").hits
    cached = VectorCache(source.cache_dir, WordHashEmbedder().name).load()
    assert 2 * UNIT <= cached < PAPERS


@pytest.mark.parametrize(
    ("how", "logged"),
    [("raise", "RuntimeError: the engine broke"), ("kill", "exit code -9")],
)
def test_a_failed_child_is_logged_and_bm25_keeps_answering(
    corpus: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str, logged: str
) -> None:
    retriever, source = served(corpus, tmp_path / "cache")
    make = functools.partial(broken_embedder, how)
    with caplog.at_level(logging.ERROR):
        job = EmbeddingProcess(retriever, source, make_embedder=make).start()
        assert job.done.wait(TIMEOUT)
    assert logged in caplog.text and "answering with BM25 alone" in caplog.text
    assert not retriever.semantic_ready
    result = ask(retriever, "protein folding")
    assert result.warming and "Protein Folding" in result.hits[0].paper.title


def test_a_corpus_changed_meanwhile_is_not_attached(
    corpus: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    retriever, source = served(corpus, tmp_path / "cache")
    with corpus.open("a", encoding="utf-8") as more:
        more.write(json.dumps({"id": "late", "title": "Late paper", "abstract": "Late."}) + "\n")
    with caplog.at_level(logging.ERROR):
        job = EmbeddingProcess(retriever, source, make_embedder=word_hash_embedder).start()
        assert job.done.wait(TIMEOUT)
    assert "the corpus changed" in caplog.text
    assert not retriever.semantic_ready
