"""Forward-pass levers against the shipped forward, in pairs: each trial embeds one run of
`UNIT` ICML papers with the shipped layer and with the variant (order alternating), one
thread, and takes the ratio of thread CPU times; medians over trials (pairs cancel the
drift of a loaded machine). Also the largest vector difference from the shipped forward.

Run: uv run python -m experiments.q20thr_levers [trials]
"""

import itertools
import statistics
import sys
import time

import numpy as np

from benchmarks.embedding_speed import sample_papers
from bot.search.semantic import e5_numpy as m
from bot.search.semantic.embedding import UNIT, NumpyE5Embedder, paper_text, single_blas_thread

ROOT_2_PI = np.float32(np.sqrt(2 / np.pi))


def gelu_doubled(x: np.ndarray) -> None:
    """2 * GELU(x), tanh form, constants folded: 7 passes instead of 9."""
    inner = x * x
    inner *= ROOT_2_PI * np.float32(0.044715)
    inner += ROOT_2_PI
    inner *= x
    np.tanh(inner, out=inner)
    inner += 1
    x *= inner


def make_layer(*, gelu_fold: bool, late_norm: bool, per_head: bool):
    def layer(self, x, bounds, weights):
        qkv_w, qkv_b, ao_w, ao_b, aln, fi_w, fi_b, fo_w, fo_b, oln = weights
        if gelu_fold:
            fo_w = self._half_fo[id(weights)]
        h, heads = self.H, self.heads
        d = h // heads
        qkv = x @ qkv_w
        qkv += qkv_b
        ctx = np.empty_like(x)
        for start, end in itertools.pairwise(bounds):
            n = end - start
            if per_head:
                part = qkv[start:end].reshape(n, 3, heads, d)
                for i in range(heads):
                    scores = part[:, 0, i] @ part[:, 1, i].T
                    scores -= scores.max(axis=1, keepdims=True)
                    np.exp(scores, out=scores)
                    sums = scores.sum(axis=1, keepdims=True)
                    out = ctx[start:end, i * d : (i + 1) * d]
                    np.matmul(scores, part[:, 2, i], out=out)
                    out /= sums
                continue
            part = qkv[start:end].reshape(n, 3, heads, d).transpose(1, 2, 0, 3)
            scores = part[0] @ part[1].transpose(0, 2, 1)
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            if late_norm:
                sums = scores.sum(axis=-1, keepdims=True)
                heads_out = scores @ part[2]
                heads_out /= sums
            else:
                scores *= 1 / scores.sum(axis=-1, keepdims=True)
                heads_out = scores @ part[2]
            ctx[start:end] = heads_out.transpose(1, 0, 2).reshape(n, h)
        attended = ctx @ ao_w
        attended += ao_b
        attended += x
        x = self._layer_norm(attended, aln)
        out = np.empty_like(x)
        for start in range(0, len(x), m._FFN_ROWS):
            block = x[start : start + m._FFN_ROWS]
            middle = block @ fi_w
            middle += fi_b
            if gelu_fold:
                gelu_doubled(middle)
            else:
                m._gelu(middle)
            np.matmul(middle, fo_w, out=out[start : start + m._FFN_ROWS])
        out += fo_b
        out += x
        return self._layer_norm(out, oln)

    return layer


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    single_blas_thread()
    emb = NumpyE5Embedder(document_tokens=510)
    papers = sample_papers(trials * UNIT)
    runs = [
        [emb._sequence(paper_text(p), 510) for p in papers[i : i + UNIT]]
        for i in range(0, len(papers), UNIT)
    ]
    model = emb._model
    model._half_fo = {id(w): w[7] * np.float32(0.5) for w in model._layers}
    shipped = m.E5Numpy._layer
    variants = {
        "GELU 7 passes (0.5 into W_out, exact)": make_layer(
            gelu_fold=True, late_norm=False, per_head=False
        ),
        "softmax: divide after P@V": make_layer(gelu_fold=False, late_norm=True, per_head=False),
        "attention head by head (scores in L2), divide after P@V": make_layer(
            gelu_fold=False, late_norm=True, per_head=True
        ),
        "GELU fold + divide after P@V": make_layer(gelu_fold=True, late_norm=True, per_head=False),
    }

    def cpu(layer, run):  # type: ignore[no-untyped-def]
        m.E5Numpy._layer = layer
        started = time.thread_time()
        vectors = model.encode(run)
        return time.thread_time() - started, vectors

    model.encode(runs[0])
    print(f"{trials} trials of {UNIT} papers, 1 thread; speed = shipped CPU / variant CPU")
    print("| variant | speed, median (min-max) | max abs diff | min cosine |")
    print("|---|---|---|---|")
    for name, layer in variants.items():
        ratios, diffs, cosines = [], [], []
        for i, run in enumerate(runs):
            order = [shipped, layer] if i % 2 == 0 else [layer, shipped]
            results = {id(f): cpu(f, run) for f in order}
            (base, a), (mine, b) = results[id(shipped)], results[id(layer)]
            ratios.append(base / mine)
            diffs.append(np.abs(a - b).max())
            cosines.append(np.sum(a * b, axis=1).min())
        print(
            f"| {name} | {statistics.median(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f}) "
            f"| {max(diffs):.1e} | {min(cosines):.7f} |"
        )
    m.E5Numpy._layer = shipped


if __name__ == "__main__":
    main()
