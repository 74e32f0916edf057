"""The confidence rule the bot served before issue 20's round 3, kept for comparison.

Issue 10's rule: the first paper's cosine z-score among all papers (with a floor), or its
BM25 coverage, or BM25's agreement. It was calibrated on the 57 seed papers; among 3,017 an
off-topic question's best z already reaches 2.5-5.6, so it flagged nothing there
(experiments/NOTES.md). `bot.search.semantic.fusion.is_confident` replaced it.
"""

from __future__ import annotations

import numpy as np

from bot.search.semantic.fusion import z_scores

# Were calibrated for multilingual-e5-small used symmetrically ("query: " on papers too) on the
# dev set's tune split (benchmarks/hybrid_eval.py); another model needs its own. How each
# tuning round chose the rule and constants: experiments/NOTES.md.
CONFIDENCE_BETA = 0.0
"""Weight of the top paper's BM25 coverage (0-1) added to its cosine z-score."""
CONFIDENCE_CUT = 2.125
"""Confident when z-score + beta × coverage reaches this (tune sweep 1.75-3.0: the lowest
cut that flags ≥ 80% of off-topic and near-miss questions together)."""
COSINE_FLOOR = 0.81
"""And the top paper's cosine reaches this (tune: off-topic questions' best cosines reach
0.80, on-topic ones' start at 0.815; 0.805-0.815 flag the same, 0.81 is their middle)."""
LEXICAL_COVERAGE = 0.6
"""Or, above the floor, the top paper holds this share of the question's idf weight: a
textbook question in the paper's own words need not stand out in meaning as well (tune:
no off-topic or near-miss question's top paper covers more than 0.42)."""
AGREEMENT_RANK = 2
"""Or, above the floor, the top paper is among BM25's first this many and its z-score
reaches AGREEMENT_Z: both signals point at it. Tune: an own-words question whose right
paper stands out only a little in meaning (z 1.3-2.1) usually has BM25 on its side, a
near-miss question (an ML topic no paper covers) usually not; on-topic questions flagged
0.11 -> 0.02 with off-topic and near-miss flagged 0.91 either way (rank 2 and 3 the same,
1 flags 0.05)."""
AGREEMENT_Z = 1.0
"""The z-score the agreement path still asks for (tune: 0 to 1.25 flag the same questions;
a question nothing stands out for at all is not taken on one shared word)."""

RANK_CAP = 20
"""A top paper matching no query word counts as this BM25 rank in `decide`, which reads any
rank from here on as "no query word" (on the 57 seed papers rank 20 is far from agreeing)."""


def confidence(
    cosine: np.ndarray, top: int, coverage: float, *, beta: float = CONFIDENCE_BETA
) -> float:
    """How clearly paper `top` stands out: its cosine's z-score among all papers + beta × coverage.

    An off-topic question is about equally (dis)similar to every paper, so its best cosine
    is barely above the rest; a question about a paper lifts that paper well clear of them.
    """
    return float(z_scores(cosine)[top]) + beta * coverage


def is_confident(
    cosine: np.ndarray,
    top: int,
    coverage: float,
    *,
    bm25_rank: int | None = None,
    beta: float = CONFIDENCE_BETA,
    cut: float = CONFIDENCE_CUT,
    floor: float = COSINE_FLOOR,
    lexical: float = LEXICAL_COVERAGE,
    agreement: int = AGREEMENT_RANK,
    agreement_z: float = AGREEMENT_Z,
) -> bool:
    """Whether to present paper `top` as a match rather than "nothing matched well".

    Combined signals: the top paper's cosine clears the floor, and it stands out in
    meaning (z-score + beta × coverage ≥ cut), or holds most of the question's words, or
    BM25 ranks it among its first `agreement` (`bm25_rank`, None when it matched no query
    term) while it stands out at least a little (z ≥ `agreement_z`).
    """
    rank = RANK_CAP if bm25_rank is None else bm25_rank
    score = confidence(cosine, top, coverage, beta=beta)
    return bool(
        decide(
            float(cosine[top]),
            score,
            coverage,
            rank,
            cut=cut,
            floor=floor,
            lexical=lexical,
            agreement=agreement,
            agreement_z=agreement_z,
        )
    )


def decide(
    cosine: np.ndarray | float,
    score: np.ndarray | float,
    coverage: np.ndarray | float,
    bm25_rank: np.ndarray | int,
    *,
    cut: float = CONFIDENCE_CUT,
    floor: float = COSINE_FLOOR,
    lexical: float = LEXICAL_COVERAGE,
    agreement: int = AGREEMENT_RANK,
    agreement_z: float = AGREEMENT_Z,
) -> np.ndarray:
    """`is_confident`'s decision from the top paper's signals, elementwise over arrays.

    cosine: the top paper's cosine; score: its `confidence`; bm25_rank: its BM25 rank,
    RANK_CAP or more standing for "no query word" (so `agreement` must stay below RANK_CAP).
    """
    score = np.asarray(score)
    rank = np.asarray(bm25_rank)
    agreed = (rank <= agreement) & (rank < RANK_CAP) & (score >= agreement_z)
    return (np.asarray(cosine) >= floor) & (
        (np.asarray(coverage) >= lexical) | (score >= cut) | agreed
    )


def rank_of(scores: np.ndarray, row: int) -> int:
    """1-based rank of paper `row` by descending score (a tie counts in its favour)."""
    scores = np.asarray(scores)
    return int((scores > scores[row]).sum()) + 1
