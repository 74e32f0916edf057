"""Fusing BM25 scores with embedding similarities, and how confident the fused answer is.

Pure numpy over one query's per-paper score vectors; parameters were chosen on the dev
set's tune split only (benchmarks/hybrid_eval.py), never on the held-out split.
"""

from __future__ import annotations

import numpy as np

RRF_K = 60
"""Reciprocal rank fusion's k (Cormack et al., SIGIR 2009: 1 / (k + rank))."""
BM25_WEIGHT = 0.5
"""BM25's share in the fusion (the cosine's is 1): tune sweep 0.5-1.0, where 0.5 ranked
own-words and Chinese questions' papers first more often (BM25 misses their words), at the
cost of one keyword question's first place."""


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each paper by descending score (ties in paper order)."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    result = np.empty(len(order), dtype=np.int64)
    result[order] = np.arange(1, len(order) + 1)
    return result


def rrf(
    bm25: np.ndarray,
    cosine: np.ndarray,
    *,
    matched: np.ndarray | None = None,
    k: float = RRF_K,
    weight: float = BM25_WEIGHT,
) -> np.ndarray:
    """Weighted reciprocal rank fusion: 1/(k + cosine rank) + `weight`/(k + BM25 rank).

    A paper with no query term (`matched` False) gets no BM25 share.

    `matched` defaults to a BM25 score above the lowest one: BM25+ gives every paper a
    constant per query term, so "no match" is the minimum, not zero.
    """
    bm25 = np.asarray(bm25, dtype=np.float64)
    if matched is None:
        matched = bm25 > bm25.min(initial=np.inf)
    fused = 1.0 / (k + ranks(cosine))
    fused[matched] += weight / (k + ranks(bm25)[matched])
    return fused


def weighted(bm25: np.ndarray, cosine: np.ndarray, *, weight: float) -> np.ndarray:
    """`weight` × min-max scaled BM25 + (1 − weight) × min-max scaled cosine."""
    return weight * _unit_range(bm25) + (1 - weight) * _unit_range(cosine)


def _unit_range(scores: np.ndarray) -> np.ndarray:
    """Scores mapped linearly onto [0, 1] (all zero when they are all equal)."""
    scores = np.asarray(scores, dtype=np.float64)
    low, high = scores.min(initial=np.inf), scores.max(initial=-np.inf)
    return (scores - low) / (high - low) if high > low else np.zeros_like(scores)


# Calibrated for multilingual-e5-small on the dev set's tune split; another model needs its own.
CONFIDENCE_BETA = 0.0
"""Weight of the top paper's BM25 coverage (0-1) added to its cosine z-score."""
CONFIDENCE_CUT = 2.25
"""Confident when z-score + beta × coverage reaches this (2.0 without the lexical path; with
it, 2.25 is the tune sweep's best that flags ≤ 5% of right top hits)."""
COSINE_FLOOR = 0.82
"""And the top paper's cosine reaches this (e5 cosines of unrelated texts sit near 0.78;
tune: 0.82 flags one more off-topic question than 0.81 and no more on-topic ones)."""
LEXICAL_COVERAGE = 0.6
"""Or, above the floor, the top paper holds this share of the question's idf weight: a
textbook question in the paper's own words need not stand out in meaning as well (tune:
no off-topic or near-miss question's top paper covers more than 0.42)."""


def confidence(
    cosine: np.ndarray, top: int, coverage: float, *, beta: float = CONFIDENCE_BETA
) -> float:
    """How clearly paper `top` stands out: its cosine's z-score among all papers + beta × coverage.

    An off-topic question is about equally (dis)similar to every paper, so its best cosine
    is barely above the rest; a question about a paper lifts that paper well clear of them.
    """
    cosine = np.asarray(cosine, dtype=np.float64)
    spread = float(cosine.std())
    z = (float(cosine[top]) - float(cosine.mean())) / spread if spread > 0 else 0.0
    return z + beta * coverage


def is_confident(
    cosine: np.ndarray,
    top: int,
    coverage: float,
    *,
    beta: float = CONFIDENCE_BETA,
    cut: float = CONFIDENCE_CUT,
    floor: float = COSINE_FLOOR,
    lexical: float = LEXICAL_COVERAGE,
) -> bool:
    """Whether to present paper `top` as a match rather than "nothing matched well".

    Combined signals: the top paper's cosine clears the floor, and it stands out in
    meaning (z-score + beta × coverage ≥ cut) or holds most of the question's words.
    """
    if float(cosine[top]) < floor:
        return False
    return coverage >= lexical or confidence(cosine, top, coverage, beta=beta) >= cut
