"""How well a paper covers a query: the share of the query's idf weight it contains.

Computed after ranking, for the ranked rows only; a result is confident when its best paper
covers at least `CONFIDENT_COVERAGE` of the query.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

__all__ = ["CONFIDENT_COVERAGE", "coverage", "coverage_of", "holds", "is_confident", "term_weight"]

CONFIDENT_COVERAGE = 0.4
"""A result is confident when its top paper holds this share of the query's idf weight."""


def term_weight(papers: int, df: int) -> float:
    """Coverage weight of a term held by `df` of `papers` papers: log((N+1)/(df+0.5))."""
    return math.log((papers + 1) / (df + 0.5))


def coverage(
    terms: Sequence[str],
    rows: np.ndarray,
    weights: Mapping[str, float],
    docs_of: Callable[[str], np.ndarray],
) -> np.ndarray:
    """For each row, the share of the terms' weight that the paper contains.

    docs_of: a term's sorted rows (`BM25.docs`).
    """
    if not len(terms) or not len(rows):
        return np.zeros(len(rows))
    return coverage_of(terms, {t: holds(docs_of(t), rows) for t in terms}, weights, len(rows))


def holds(docs: np.ndarray, rows: np.ndarray) -> np.ndarray | None:
    """Which of `rows` are among the sorted `docs` (None when `docs` is empty)."""
    if not len(docs):
        return None
    pos = np.searchsorted(docs, rows)
    hit = pos < len(docs)
    hit[hit] = docs[pos[hit]] == rows[hit]
    return hit


def coverage_of(
    terms: Sequence[str],
    held: Mapping[str, np.ndarray | None],
    weights: Mapping[str, float],
    size: int,
) -> np.ndarray:
    """`coverage` from which of `size` rows hold each term (bools, or counts: 0 is absent).

    held: per term, an array over the rows (None: no row holds it); the index passes the
    term frequencies it looks up for snippets anyway.
    """
    result = np.zeros(size)
    if not len(terms) or not size:
        return result
    total = 0.0
    for term in terms:
        w = weights[term]
        total += w
        hit = held[term]
        if hit is not None:
            result += w * (hit if hit.dtype == bool else hit > 0)
    return result / total if total > 0 else result


def is_confident(best: float) -> bool:
    """True when the best paper's coverage is high enough to call the hits matches."""
    return best >= CONFIDENT_COVERAGE
