"""Fusing BM25 scores with embedding similarities (the shipped rule), and how confident it is.

Pure numpy over one query's per-paper score vectors; parameters were chosen on the dev
set's tune split only (benchmarks/hybrid_eval.py), never on the held-out split.
"""

from __future__ import annotations

import numpy as np

RRF_K = 60
"""Reciprocal rank fusion's k (Cormack et al., SIGIR 2009: 1 / (k + rank))."""
BM25_WEIGHT = 0.5
"""BM25's share in the fusion (the cosine's is 1): tune sweep 0.3-1.0 (with paper vectors
embedded symmetrically), where 0.5 ranked own-words and Chinese questions' papers first
most often without losing a keyword question's first place (0.3 lost one)."""


LISTEN_COVERAGE = 0.7
"""When BM25's first paper holds at least this share of a Latin-script question's idf weight,
BM25's order is kept (`semantic_weight` 0). Issue 20, chosen on the tune splits of the seed
dev set and the paperlists dev set together (experiments/fusion_q20.py): 0.7-0.8 kept BM25's
recall@1 on English summary, keyword and typo questions and lost nothing elsewhere; 0.5-0.6
lost title paraphrases the model ranks first (experiments/NOTES.md)."""
UNSURE_WEIGHT = 1 / BM25_WEIGHT
"""The model's weight against BM25's 1 otherwise: today's 50/50 blend (tune: 3 gained
otherlang recall@3 and lost an own-words recall@1; a tie, so the blend stays)."""


def semantic_weight(bm25: np.ndarray, coverage: np.ndarray, *, latin: bool) -> float:
    """How much the model's ranking counts against BM25's (whose weight is 1) for one question.

    A Latin-script question whose BM25 leader holds most of its idf weight (`coverage`, per
    paper) is one BM25 answers well: the model only orders the papers BM25 did not match. A
    question in another script, or one no paper covers well, gets the model's full help.
    """
    bm25, coverage = np.asarray(bm25), np.asarray(coverage)
    if not latin or not len(bm25) or not coverage.max(initial=0.0) > 0:
        return UNSURE_WEIGHT
    leader = int(np.argmax(np.where(coverage > 0, bm25, -np.inf)))
    return 0.0 if coverage[leader] >= LISTEN_COVERAGE else UNSURE_WEIGHT


def fuse(
    bm25: np.ndarray,
    cosine: np.ndarray,
    *,
    matched: np.ndarray,
    weight: float,
    k: float = RRF_K,
) -> np.ndarray:
    """1/(k + BM25 rank) for papers with a query term + `weight`/(k + cosine rank).

    The same ranking as `rrf(..., weight=1/weight)` for weight > 0; at weight 0, BM25's order,
    then the papers without a query term by meaning (a vanishing cosine share breaks ties).
    """
    if weight > 0:
        return rrf(bm25, cosine, matched=matched, k=k, weight=1 / weight)
    fused = np.zeros(len(cosine)) + 1e-9 / (k + ranks(cosine))
    fused[matched] += 1.0 / (k + ranks(bm25)[matched])
    return fused


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


# Calibrated for multilingual-e5-small used symmetrically ("query: " on papers too) on the
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


def z_scores(cosine: np.ndarray) -> np.ndarray:
    """Every paper's cosine as a z-score among all papers (all 0 when they are all equal)."""
    cosine = np.asarray(cosine, dtype=np.float64)
    spread = float(cosine.std())
    if spread <= 0:
        return np.zeros(len(cosine))
    return (cosine - float(cosine.mean())) / spread


def semantic_matches(cosine: np.ndarray) -> np.ndarray:
    """Papers whose cosine passes the confidence rule on its own: the floor and the cut."""
    return (np.asarray(cosine) >= COSINE_FLOOR) & (z_scores(cosine) >= CONFIDENCE_CUT)


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
