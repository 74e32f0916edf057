"""How well a paper covers a query: the share of the query's idf weight it contains.

Computed after ranking, for the ranked rows only; a result is confident when its best paper
covers at least `CONFIDENT_COVERAGE` of the query.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

__all__ = ["CONFIDENT_COVERAGE", "coverage", "is_confident", "term_weight"]

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
    result = np.zeros(len(rows))
    if not len(terms) or not len(rows):
        return result
    total = 0.0
    for term in terms:
        w = weights[term]
        total += w
        docs = docs_of(term)
        if not len(docs):
            continue
        pos = np.searchsorted(docs, rows)
        hit = pos < len(docs)
        hit[hit] = docs[pos[hit]] == rows[hit]
        result += w * hit
    return result / total if total > 0 else result


def is_confident(best: float) -> bool:
    """True when the best paper's coverage is high enough to call the hits matches."""
    return best >= CONFIDENT_COVERAGE
