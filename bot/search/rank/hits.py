"""Hits for ranked rows: each paper with its score, its coverage of the query and its snippet.

Made after ranking, for the rows shown only. A result is confident when its best paper covers
at least `CONFIDENT_COVERAGE` of the query's idf weight.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import numpy as np

from bot.corpus import Paper
from bot.search.query.analysis import Analyzer
from bot.search.rank.bm25 import BM25
from bot.search.rank.documents import MASKED_SENTENCES, AbstractLayout
from bot.search.rank.retriever import Hit
from bot.search.snippets.sentences import Snippet, best_snippet


class Index(Protocol):
    """What hits read of the index (`bot.search.rank.index.Index` has it)."""

    papers: Sequence[Paper]
    analyzer: Analyzer
    bm25: BM25
    layout: AbstractLayout

    def term_weights(self, terms: Sequence[str]) -> dict[str, float]:
        """Each distinct term's coverage weight in this corpus."""
        ...


def page_hits(
    index: Index,
    rows: np.ndarray,
    scores: np.ndarray,
    terms: Sequence[str],
    *,
    coverage: np.ndarray | None = None,
    snippets: bool = True,
) -> tuple[Hit, ...]:
    """Hits for ranked `rows`, with snippets for `terms` (unless `snippets=False`) and coverage."""
    rows = np.asarray(rows, dtype=np.int64)
    unique = list(dict.fromkeys(terms))
    weights = index.term_weights(unique)
    # Each term's count in each row, and the sentences of the row's abstract holding it.
    held = {t: index.bm25.lookup(t, rows) for t in unique} if snippets or coverage is None else {}
    if coverage is None:  # from the term frequencies: what holds a term has a count above 0
        coverage = coverage_of(unique, {t: h[0] for t, h in held.items()}, weights, len(rows))
    papers = [index.papers[r] for r in rows.tolist()]  # a cached index makes each from columns
    if snippets:
        shown = _Snippets(index, unique, weights, held).of(rows.tolist(), papers)
    else:
        shown = [Snippet("")] * len(papers)
    return tuple(
        Hit(paper=paper, score=s, snippet=snippet, coverage=c)
        for paper, s, snippet, c in zip(
            papers, np.asarray(scores).tolist(), shown, np.asarray(coverage).tolist(), strict=True
        )
    )


class _Snippets:
    """One query's snippets: its terms, their weights, and each term's count and mask per row."""

    def __init__(
        self,
        index: Index,
        terms: list[str],
        weights: Mapping[str, float],
        held: Mapping[str, tuple[np.ndarray, np.ndarray]],
    ) -> None:
        self._index = index
        self._terms, self._weights = terms, weights
        self._word_marks: dict[str, list[tuple[int, int]]] = {}  # the page's words shared
        self._counts = {t: tf.tolist() for t, (tf, _) in held.items()}
        self._masks = {t: masks.tolist() for t, (_, masks) in held.items()}
        # What every abstract word holding a term contains: the words are found by it and
        # nothing is counted (None: some term has no such prefix; each abstract is counted).
        ids = [index.bm25.vocab.id(t) for t in terms]
        self._prefixes = index.layout.prefixes(terms, ids)

    def of(self, rows: list[int], papers: list[Paper]) -> list[Snippet]:
        """The snippet of each paper, at its row."""
        pairs = enumerate(zip(rows, papers, strict=True))
        return [self._snippet(i, row, paper) for i, (row, paper) in pairs]

    def _snippet(self, i: int, row: int, paper: Paper) -> Snippet:
        """The snippet of `paper`, the `i`-th of the page, at `row`."""
        index, text = self._index, paper.abstract
        sentences, plain = index.layout.row(row, text)
        present = [t for t, counts in self._counts.items() if counts[i]]  # maybe in the title
        prefixes = None if self._prefixes is None else [self._prefixes[t] for t in present]
        masks = None  # a long abstract's sentences are analysed instead
        if sentences is not None and len(sentences) <= MASKED_SENTENCES:
            masks = {t: self._masks[t][i] for t in present}
        return best_snippet(
            text,
            self._terms,
            self._weights,
            index.analyzer,
            sentences=sentences,
            plain=plain,
            prefixes=prefixes,
            masks=masks,
            word_marks=self._word_marks,
        )


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
    """Per row, the share of the terms' weight the paper contains (`docs_of`: `BM25.docs`)."""
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
    """`coverage` from which of `size` rows hold each term (`held`: bools, counts or None)."""
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
