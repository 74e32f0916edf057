"""Answer-time signals that only the confidence-tuning rounds used (issue 10, rounds 5-8).

Moved out of `bot/search/semantic/fusion.py` and `hybrid.py` (issue 18): the bot's
confidence rule of issue 10 (`benchmarks.previous_rules`) reads only the cosine, its z-score, BM25
coverage and BM25 rank, so the other signals and the min-max `weighted` fusion tried in
round 1 are experiment code. `answer_features` prepares the question with the retriever's
query pipeline and reads its private `_scores` and `_semantic`, so it computes exactly what
`search` computes; if the retriever's internals move, this is the one place to follow them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from benchmarks import previous_rules
from bot.search import HybridRetriever
from bot.search.semantic import fusion

RANK_CAP = 20
"""BM25 ranks beyond this, and a top paper matching no query word, count as this rank: on
the 57 seed papers rank 20 is already far from agreeing, and the feature should not grow
with the corpus's size (`previous_rules.decide` reads a rank >= this as "no query word")."""
GAP_RANKS = (5, 10)
"""The cosine gaps `confidence_features` measures: top paper's cosine minus the k-th best's."""
AGREEMENT_TOP = 3
"""How many first papers of each signal `confidence_features` compares (top-k overlap)."""
RARE_TERMS = 2
"""How many of the question's most specific known terms `rare_coverage` looks at."""
FEATURE_NAMES = (
    "cosine",
    "z",
    "coverage",
    "log_bm25_rank",
    "fused_margin",
    "unknown_latin",
    "rare_coverage",
    "cos_gap5",
    "cos_gap10",
    "top3_agreement",
)
"""What `confidence_features` returns, in order: the signals known when answering."""


def weighted(bm25: np.ndarray, cosine: np.ndarray, *, weight: float) -> np.ndarray:
    """`weight` × min-max scaled BM25 + (1 − weight) × min-max scaled cosine."""
    return weight * _unit_range(bm25) + (1 - weight) * _unit_range(cosine)


def _unit_range(scores: np.ndarray) -> np.ndarray:
    """Scores mapped linearly onto [0, 1] (all zero when they are all equal)."""
    scores = np.asarray(scores, dtype=np.float64)
    low, high = scores.min(initial=np.inf), scores.max(initial=-np.inf)
    return (scores - low) / (high - low) if high > low else np.zeros_like(scores)


def confidence_features(
    cosine: np.ndarray,
    fused: np.ndarray,
    top: int,
    coverage: float,
    bm25_rank: int | None,
    *,
    bm25: np.ndarray | None = None,
    unknown_latin: float = 0.0,
    rare_coverage: float = 0.0,
) -> np.ndarray:
    """The fused answer's signals for paper `top` (FEATURE_NAMES order).

    cosine: its cosine with the question; z: that cosine's z-score among all papers;
    coverage: its share of the question's idf weight; log_bm25_rank: log of its BM25 rank
    (capped at RANK_CAP, which also stands for "no query word"); fused_margin: its fused
    score minus the second paper's, times RRF_K (about the gain of one rank near the top);
    unknown_latin and rare_coverage: passed through (`unknown_latin_share`,
    `rare_coverage`); cos_gap5/10: its cosine minus the 5th/10th best; top3_agreement: how
    many of the cosine's first AGREEMENT_TOP papers are among BM25's (`bm25`, None: 0).
    """
    cosine = np.asarray(cosine, dtype=np.float64)
    fused = np.asarray(fused, dtype=np.float64)
    second = -float(np.partition(-fused, 1)[1]) if len(fused) > 1 else 0.0
    rank = RANK_CAP if bm25_rank is None else min(bm25_rank, RANK_CAP)
    gaps = [float(cosine[top]) - _kth_best(cosine, k) for k in GAP_RANKS]
    return np.array(
        [
            float(cosine[top]),
            previous_rules.confidence(cosine, top, 0.0),
            coverage,
            float(np.log(rank)),
            (float(fused[top]) - second) * fusion.RRF_K,
            unknown_latin,
            rare_coverage,
            *gaps,
            float(top_agreement(cosine, bm25)) if bm25 is not None else 0.0,
        ]
    )


def _kth_best(scores: np.ndarray, k: int) -> float:
    """The k-th highest score (the lowest when there are fewer than k)."""
    k = min(k, len(scores))
    return -float(np.partition(-scores, k - 1)[k - 1]) if k else 0.0


def top_agreement(cosine: np.ndarray, bm25: np.ndarray, *, k: int = AGREEMENT_TOP) -> int:
    """How many of the cosine's first `k` papers are among BM25's first `k` that matched.

    A BM25 score at the minimum is "no query word" (BM25+'s constant), never a match.
    """
    bm25 = np.asarray(bm25, dtype=np.float64)
    k = min(k, len(bm25))
    if not k:
        return 0
    by_cosine = np.argsort(-np.asarray(cosine), kind="stable")[:k]
    by_bm25 = np.argsort(-bm25, kind="stable")[:k]
    by_bm25 = by_bm25[bm25[by_bm25] > bm25.min()]
    return len(np.intersect1d(by_cosine, by_bm25))


def is_latin(term: str) -> bool:
    """Whether an analysed term is written in Latin script (ASCII or Latin accents).

    The rule rounds 6 and 8 measured with (digits count), not `textutil.is_latin_letter`'s.
    """
    return bool(term) and all(ch < "\u0250" for ch in term)


def unknown_latin_share(weights: Mapping[str, float], known: Callable[[str], bool]) -> float:
    """Share of the question's idf weight in Latin-script terms no paper holds.

    weights: each distinct term's coverage weight (an unknown term's is the largest). A
    near-miss question often names a topic the corpus never mentions; a Chinese question's
    unknown terms are CJK phrases, so they do not count.
    """
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    unknown = sum(w for t, w in weights.items() if is_latin(t) and not known(t))
    return unknown / total


def rarest_known(
    weights: Mapping[str, float], known: Callable[[str], bool], *, n: int = RARE_TERMS
) -> list[str]:
    """The question's `n` most specific terms the corpus knows (highest weight, then name)."""
    return sorted((t for t in weights if known(t)), key=lambda t: (-weights[t], t))[:n]


def answer_features(retriever: HybridRetriever, query: str) -> np.ndarray | None:
    """The confidence signals `retriever.search` has for its top paper (FEATURE_NAMES).

    None when `search` would answer with BM25 alone (no vectors yet, or no query term).
    Prepares it with `retriever.queries` and reads the private `_scores` and `_semantic`: the
    same cleaning and scoring as `search`, not a copy of it.
    """
    prepared = retriever.queries.prepare(query)
    terms = prepared.terms
    semantic = retriever._semantic
    if semantic is None or not terms or not len(retriever.papers):
        return None
    scores = retriever._scores(semantic, prepared)
    top = int(scores.order[0])
    unknown, rare = _term_signals(retriever, terms, top)
    return confidence_features(
        scores.cosine,
        scores.fused,
        top,
        float(scores.coverage[top]),
        previous_rules.rank_of(scores.bm25, top) if scores.coverage[top] > 0 else None,
        bm25=scores.bm25,
        unknown_latin=unknown,
        rare_coverage=rare,
    )


def _term_signals(
    retriever: HybridRetriever, terms: Sequence[str], top: int
) -> tuple[float, float]:
    """The question's unknown Latin-script weight share, and paper `top`'s share of the
    weight of the question's most specific known terms (`rarest_known`)."""
    index = retriever.index
    weights = index.term_weights(terms)
    unknown = unknown_latin_share(weights, index.knows)
    rare = rarest_known(weights, index.knows)
    held = index.coverage(rare, np.array([top]))[0] if rare else 0.0
    return unknown, float(held)
