"""Recommendations from a reading list: papers like the saved ones, shaped by dismissals.

Pure and deterministic. Signals: the saved papers' more-like-this centroid; once a paper is
dismissed, a per-user logistic regression instead; and, with vectors, cosines fused by
reciprocal rank. Saved and dismissed papers are never recommended.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from bot.corpus import Paper
from bot.search.rank.hits import page_hits
from bot.search.rank.index import Index
from bot.search.rank.retriever import Hit, Retriever
from bot.search.semantic import fusion

MAX_PROFILE = 50
"""The most recently saved papers that make the profile (a bound on the work per request)."""
MAX_RECOMMENDATIONS = 50
"""Recommendations offered in all (pages reach this far): a feed, not the whole corpus."""
MAX_FEATURES = 200
"""Distinct terms the linear model weighs."""
UNLABELLED_SAMPLE = 256
"""Other papers the model sees as weak negatives (strided, so deterministic)."""
UNLABELLED_WEIGHT = 0.05
STEPS, RATE, L2 = 150, 0.5, 1e-3
"""Full-batch gradient descent of the logistic regression: steps, rate, ridge."""
DISMISSED_COSINE = 0.5
"""How much the mean cosine to dismissed papers pulls a paper down."""


@dataclass(frozen=True, slots=True)
class Recommendation:
    """One recommended paper and the saved paper it is most like."""

    hit: Hit
    like: Paper


@dataclass(frozen=True, slots=True)
class Recommendations:
    """A page of recommendations."""

    items: tuple[Recommendation, ...]
    total: int
    """How many there are in all (at most `MAX_RECOMMENDATIONS`)."""
    offset: int = 0
    profile: int = 0
    """Saved papers still in the corpus that made the profile (0: nothing to go on)."""


_TERMS: weakref.WeakKeyDictionary[Index, dict[int, tuple[str, ...]]] = weakref.WeakKeyDictionary()
_TERMS_LOCK = threading.Lock()


def _similar_terms(index: Index, row: int) -> tuple[str, ...]:
    """`index.similar_terms(row)`, remembered per index (each costs an analysis of the paper)."""
    with _TERMS_LOCK:
        known = _TERMS.setdefault(index, {})
        found = known.get(row)
    if found is None:
        found = tuple(index.similar_terms(row))
        with _TERMS_LOCK:
            known[row] = found
    return found


def _rows(index: Index, ids: Collection[str], cap: int | None = None) -> list[int]:
    """The distinct rows of the ids still in the corpus, in the given order."""
    rows = dict.fromkeys(r for r in map(index.row, ids) if r is not None)
    return list(rows)[:cap]


def _neighbourhoods(index: Index, rows: Sequence[int]) -> np.ndarray:
    """Per saved row, every paper's more-like-this score, scaled to 0-1 (its best match 1)."""
    scores = np.stack([index.scores(_similar_terms(index, row)) for row in rows])
    scores -= scores.min(axis=1, keepdims=True)  # BM25+ gives every paper a constant
    scores[:, rows] = 0.0  # a saved paper is not its own (or another's) neighbour here
    top = scores.max(axis=1, keepdims=True)
    return np.divide(scores, top, out=np.zeros_like(scores), where=top > 0)


def _features(index: Index, terms: Sequence[str], rows: np.ndarray) -> np.ndarray:
    """log(1+tf)·idf of `terms` in `rows`, shape (len(rows), len(terms))."""
    weights = index.term_weights(terms)
    columns = [np.log1p(index.bm25.tf(t, rows)) * weights[t] for t in terms]
    return np.stack(columns, axis=1) if columns else np.zeros((len(rows), 0))


def _model_scores(index: Index, positive: list[int], negative: list[int]) -> np.ndarray:
    """Every paper's decision value under a logistic regression trained on the user's votes."""
    counts = Counter(t for row in (*positive, *negative) for t in _similar_terms(index, row))
    terms = [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))][:MAX_FEATURES]
    n = len(index)
    stride = max(1, n // UNLABELLED_SAMPLE)
    labelled = set(positive) | set(negative)
    others = [r for r in range(0, n, stride) if r not in labelled]
    train = np.array([*positive, *negative, *others], dtype=np.int64)
    y = np.array([1.0] * len(positive) + [0.0] * (len(negative) + len(others)))
    weight = np.array(
        [0.5 / len(positive)] * len(positive)
        + [0.5 / len(negative)] * len(negative)
        + [UNLABELLED_WEIGHT / max(1, len(others))] * len(others)
    )
    x = _features(index, terms, train)
    scale = np.abs(x).max(initial=0.0) or 1.0
    x /= scale
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(STEPS):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        g = weight * (p - y)
        w -= RATE * (x.T @ g + L2 * w)
        b -= RATE * float(g.sum())
    decision = np.full(n, b)
    weights = index.term_weights(terms)
    for t, wt in zip(terms, w, strict=True):  # sparse: only the papers holding each term
        docs = index.bm25.docs(t).astype(np.int64)
        decision[docs] += wt * np.log1p(index.bm25.tf(t, docs)) * weights[t] / scale
    return decision


def _cosines(vectors: np.ndarray, positive: list[int], negative: list[int]) -> np.ndarray:
    """Per paper and saved row, the cosine (N × saved), and the Rocchio score per paper."""
    to_saved = vectors @ vectors[positive].T
    score = to_saved.mean(axis=1)
    if negative:
        score = score - DISMISSED_COSINE * (vectors @ vectors[negative].T).mean(axis=1)
    return np.column_stack([score, to_saved])


def recommend(
    retriever: Retriever,
    saved: Sequence[str],
    dismissed: Collection[str] = (),
    *,
    limit: int = 5,
    offset: int = 0,
) -> Recommendations:
    """Papers like `saved` (ids, newest first), never a saved or dismissed one, best first."""
    index: Index = getattr(retriever, "index", retriever)
    vectors: np.ndarray | None = getattr(retriever, "vectors", None)
    positive = _rows(index, saved, MAX_PROFILE)
    if not positive or limit <= 0:
        return Recommendations((), 0, offset, len(positive))
    negative = _rows(index, dismissed)
    near = _neighbourhoods(index, positive)
    terms = _model_scores(index, positive, negative) if negative else near.mean(axis=0)
    matched = near.max(axis=0) > 0
    closeness = near
    if vectors is not None:
        cosine = _cosines(vectors, positive, negative)
        final = fusion.rrf(np.where(matched, terms, -np.inf), cosine[:, 0], matched=matched)
        closeness = near + cosine[:, 1:].T
        allowed = np.ones(len(index), dtype=bool)
    else:
        final, allowed = terms, matched
    allowed[_rows(index, saved)] = False
    allowed[negative] = False
    candidates = np.flatnonzero(allowed)
    order = candidates[np.lexsort((candidates, -final[candidates]))][:MAX_RECOMMENDATIONS]
    shown = order[offset : offset + limit]
    words = Counter(t for row in positive for t in _similar_terms(index, row))
    hits = page_hits(index, shown, final[shown], [t for t, _ in words.most_common(25)])
    likes = closeness[:, shown].argmax(axis=0) if len(shown) else ()
    items = tuple(
        Recommendation(hit, index.papers[positive[int(k)]])
        for hit, k in zip(hits, likes, strict=True)
    )
    return Recommendations(items, len(order), offset, len(positive))
