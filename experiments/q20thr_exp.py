"""np.exp on real attention scores (row max subtracted): their range, ns per element, and
whether clamping them (no subnormal results) would change or speed anything.

Run: uv run python -m experiments.q20thr_exp
"""

import itertools
import time

import numpy as np

from benchmarks.embedding_speed import sample_papers
from bot.search.semantic import e5_numpy as m
from bot.search.semantic.embedding import NumpyE5Embedder, paper_text, single_blas_thread

FLOOR = np.float32(-87.3)
"""exp(-87.3) is about float32's smallest normal number."""


def main() -> None:
    single_blas_thread()
    emb = NumpyE5Embedder(document_tokens=510)
    sequences = [emb._sequence(paper_text(p), 510) for p in sample_papers(4)]
    captured: list[np.ndarray] = []
    shipped = m.E5Numpy._layer

    def layer(self, x, bounds, weights):  # type: ignore[no-untyped-def]
        qkv = x @ weights[0]
        qkv += weights[1]
        h, heads = self.H, self.heads
        for start, end in itertools.pairwise(bounds):
            part = qkv[start:end].reshape(end - start, 3, heads, h // heads).transpose(1, 2, 0, 3)
            scores = part[0] @ part[1].transpose(0, 2, 1)
            scores -= scores.max(axis=-1, keepdims=True)
            captured.append(scores)
        return shipped(self, x, bounds, weights)

    m.E5Numpy._layer = layer
    try:
        emb._model.encode(sequences)
    finally:
        m.E5Numpy._layer = shipped
    values = np.concatenate([c.ravel() for c in captured])
    quantiles = ", ".join(f"{q}: {np.quantile(values, q):.1f}" for q in (0.01, 0.1, 0.5, 0.9))
    print(f"{values.size:,} scores after the row max is subtracted; quantiles {quantiles}")
    print(f"share below {FLOOR} (a subnormal or zero exp): {np.mean(values < FLOOR):.4%}")
    buffers = [np.empty_like(c) for c in captured]

    def ns(clamp: bool) -> float:
        best = float("inf")
        for _ in range(5):
            started = time.thread_time()
            for scores, out in zip(captured, buffers, strict=True):
                np.exp(np.maximum(scores, FLOOR, out=out) if clamp else scores, out=out)
            best = min(best, time.thread_time() - started)
        return best / values.size * 1e9

    print(f"np.exp: {ns(False):.2f} ns/element; clamped first: {ns(True):.2f} ns/element")
    same = all(
        np.array_equal(np.exp(c).sum(axis=-1), np.exp(np.maximum(c, FLOOR)).sum(axis=-1))
        for c in captured
    )
    print(f"row sums identical when clamped: {same}")


if __name__ == "__main__":
    main()
