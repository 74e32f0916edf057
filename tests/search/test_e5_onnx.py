"""The onnxruntime engine (bot.search.semantic.e5_onnx) against the numpy engine, same weights."""

from __future__ import annotations

import logging
import threading

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from bot.search.semantic import embedding
from bot.search.semantic.e5_onnx import MS, Graph
from bot.search.semantic.embedding import (
    UNIT,
    NumpyE5Embedder,
    OnnxE5Embedder,
    load_default_embedder,
)
from testkit.texts import TEXTS


def _run_product(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """`Graph.int8_product` of `w` alone, run on `x`."""
    g = Graph()
    g.int8_product("x", w, "y")
    info = helper.make_tensor_value_info
    graph = helper.make_graph(
        g.nodes,
        "product",
        [info("x", TensorProto.FLOAT, ["rows", w.shape[1]])],
        [info("y", TensorProto.FLOAT, ["rows", w.shape[0]])],
        g.weights,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=8)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(["y"], {"x": x})[0]


def test_an_int8_product_is_close_to_float32_row_by_row() -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((48, 64)).astype(np.float32)
    w[5] = 0  # an all-zero output channel
    x = rng.standard_normal((6, 64)).astype(np.float32)
    x[1] = 0  # a row of zeros: a zero step must not divide
    x[2] = np.abs(x[2]) + 3  # all positive: its zero point is 0
    x[3] *= 100  # a row 100x the others: its own scale, so the others keep theirs
    x[4] = -np.abs(x[4])  # all negative: zero point 255
    got, want = _run_product(w, x), x @ w.T
    assert np.isfinite(got).all() and np.all(got[1] == 0) and np.all(got[:, 5] == 0)
    for row in (0, 2, 3, 4, 5):
        error = np.linalg.norm(got[row] - want[row]) / np.linalg.norm(want[row])
        assert error < 0.02, (row, error)


@pytest.fixture(scope="module")
def numpy_engine() -> NumpyE5Embedder:
    return NumpyE5Embedder(document_tokens=510, num_threads=1)


@pytest.fixture(scope="module")
def whole() -> OnnxE5Embedder:
    """The onnxruntime engine reading whole texts (no document cut)."""
    return OnnxE5Embedder(document_tokens=510, num_threads=1)


@pytest.mark.slow
@pytest.mark.semantic
def test_vectors_agree_with_the_numpy_engines(
    numpy_engine: NumpyE5Embedder, whole: OnnxE5Embedder
) -> None:
    ours, theirs = whole.embed_documents(TEXTS), numpy_engine.embed_documents(TEXTS)
    assert ours.dtype == np.float32 and ours.shape == (len(TEXTS), whole.dim)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1, atol=1e-5)
    # int8 products: vectors move, but not past near-ties (experiments/NOTES.md).
    assert np.min(np.sum(ours * theirs, axis=1)) >= 0.995
    for text in TEXTS[:3]:
        assert whole.embed_query(text) @ numpy_engine.embed_query(text) >= 0.995


@pytest.mark.slow
@pytest.mark.semantic
@pytest.mark.parametrize("text", ["", "graph neural networks", TEXTS[1]])
def test_a_question_alone_is_embedded_as_in_a_batch(whole: OnnxE5Embedder, text: str) -> None:
    alone, batched = whole.embed_query(text), whole.embed_documents([text, TEXTS[0]])[0]
    assert alone.dtype == np.float32 and alone.shape == (whole.dim,)
    assert np.allclose(alone, batched, atol=1e-6)


@pytest.mark.slow
@pytest.mark.semantic
def test_a_question_longer_than_the_model_is_cut_to_512_tokens(whole: OnnxE5Embedder) -> None:
    vector = whole.embed_query("word " * 2000)
    assert vector.shape == (whole.dim,) and np.isfinite(vector).all()


@pytest.mark.slow
@pytest.mark.semantic
def test_threads_share_one_instance(whole: OnnxE5Embedder) -> None:
    expected = whole.embed_documents(TEXTS)
    results: dict[int, np.ndarray] = {}

    def run(i: int) -> None:
        results[i] = (
            whole.embed_documents(TEXTS)
            if i % 2
            else np.stack([whole.embed_query(t) for t in TEXTS])
        )

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    assert all(np.allclose(r, expected, atol=1e-6) for r in results.values())


@pytest.mark.slow
@pytest.mark.semantic
def test_workers_stream_every_run_with_a_batchs_vectors(whole: OnnxE5Embedder) -> None:
    texts = TEXTS * 2
    whole.workers = 2
    try:
        runs = dict(whole.stream_documents(texts))
        split = whole.embed_documents(texts)
    finally:
        whole.workers = 1
    assert sorted(runs) == list(range(0, len(texts), UNIT))
    streamed = np.concatenate([runs[first] for first in sorted(runs)])
    assert np.allclose(streamed, whole.embed_documents(texts), atol=1e-6)
    assert np.allclose(split, streamed, atol=1e-6)


@pytest.mark.slow
@pytest.mark.semantic
def test_each_engine_caches_apart(numpy_engine: NumpyE5Embedder, whole: OnnxE5Embedder) -> None:
    assert whole.name != numpy_engine.name
    assert whole.name.split("/", 1)[1] == numpy_engine.name.split("/", 1)[1]  # same model, cut


@pytest.mark.slow
@pytest.mark.semantic
def test_the_default_is_the_onnxruntime_engine() -> None:
    assert isinstance(load_default_embedder(num_threads=1), OnnxE5Embedder)


@pytest.mark.slow
@pytest.mark.semantic
def test_without_onnxruntime_the_numpy_engine_is_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = embedding.importlib.util.find_spec
    monkeypatch.setattr(
        embedding.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "onnxruntime" else real(name, *a),
    )
    assert type(embedding._default_engine()) is NumpyE5Embedder


@pytest.mark.slow
@pytest.mark.semantic
def test_an_onnxruntime_that_fails_here_falls_back_to_numpy(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def fail(self: OnnxE5Embedder, path: object) -> None:
        raise ort.capi.onnxruntime_pybind11_state.Fail("no kernel for this CPU")

    monkeypatch.setattr(OnnxE5Embedder, "_load", fail)
    with caplog.at_level(logging.WARNING):
        assert type(embedding._default_engine()) is NumpyE5Embedder
    assert "no kernel for this CPU" in caplog.text
