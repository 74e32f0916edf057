"""`HybridRetriever`: BM25 fused with multilingual embeddings, behind the `Retriever` protocol.

Until an embedding job calls `attach_vectors`, it answers with BM25 alone.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass

import numpy as np

from bot.corpus import Paper
from bot.search.query.pipeline import PreparedQuery, QueryPipeline
from bot.search.rank.hits import CONFIDENT_COVERAGE, page_hits
from bot.search.rank.index import Index
from bot.search.rank.retriever import Hit, IndexStats, SearchResult
from bot.search.semantic import fusion
from bot.search.semantic.calibration import Calibration, verdict
from bot.search.semantic.embedding import Embedder
from bot.textutil import is_latin_text

logger = logging.getLogger(__name__)

RECENT_QUESTIONS = 1024
"""Question vectors remembered (one small vector each), for page turns and repeated questions."""


@dataclass(frozen=True, slots=True)
class _Semantic:
    """The paper vectors, the model that embeds questions like them, the corpus's confidence."""

    embedder: Embedder
    vectors: np.ndarray
    calibration: Calibration | None


@dataclass(frozen=True, slots=True)
class _Scores:
    """One question's per-paper signals and the fused order."""

    bm25: np.ndarray
    coverage: np.ndarray
    cosine: np.ndarray
    fused: np.ndarray
    order: np.ndarray
    latin: bool
    """Every query term is in Latin script (the fusion and the confidence ask)."""
    terms: Sequence[str]
    """The terms BM25 scored: the question's, or its gloss's (`glossed`)."""
    glossed: bool
    """A Chinese question scored through its English gloss (the confidence asks)."""


class HybridRetriever:
    """BM25 + embeddings fused by reciprocal rank; BM25 alone until the vectors are attached."""

    def __init__(self, index: Index, embedder: Embedder) -> None:
        """Serve `index` now; `embedder` embeds questions once paper vectors are attached."""
        self.index = index
        self.papers: Sequence[Paper] = index.papers
        self.embedder = embedder
        self.queries: QueryPipeline = index.queries
        """The index's own pipeline: both engines search the same prepared question."""
        # Replaced in one assignment by the embedding thread; a search reads it once.
        self._semantic: _Semantic | None = None
        # Recent question vectors: turning a page or retyping a question embeds nothing.
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._recent_lock = threading.Lock()
        self.ready_in: Callable[[], float | None] = _unknown
        """About how many seconds until the vectors are attached (the load path sets it to its
        embedding job's clock); None while unknown. Answers without them say so."""

    def __len__(self) -> int:
        return len(self.papers)

    @property
    def semantic_ready(self) -> bool:
        """Whether answers use the embeddings yet."""
        return self._semantic is not None

    @property
    def vectors(self) -> np.ndarray | None:
        """The papers' unit vectors (one row per paper), or None until they are attached."""
        semantic = self._semantic
        return None if semantic is None else semantic.vectors

    def attach_vectors(self, vectors: np.ndarray, calibration: Calibration | None = None) -> None:
        """Fuse `vectors` (a unit row per paper, in order); `calibration` None: the shipped rule."""
        if vectors.shape[0] != len(self.papers):
            raise ValueError(f"{vectors.shape[0]} vectors for {len(self.papers)} papers")
        vectors = np.ascontiguousarray(vectors, np.float32)
        self._semantic = _Semantic(self.embedder, vectors, calibration)

    def paper_ids(self) -> Set[str]:
        """Every paper's id (the BM25 index's)."""
        return self.index.paper_ids()

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this id, or None."""
        return self.index.get(paper_id)

    def by_author(self, name: str, *, limit: int | None = None) -> tuple[Paper, ...]:
        """Papers with an author `name` names, in load order (the BM25 index's lookup)."""
        return self.index.by_author(name, limit=limit)

    def named_author(self, question: str) -> tuple[Paper, ...]:
        """The papers of the person a question is just the name of (the BM25 index's lookup)."""
        return self.index.named_author(question)

    def stats(self) -> IndexStats:
        """The BM25 index's sizes plus the vectors' memory."""
        stats = self.index.stats()
        semantic = self._semantic
        extra = semantic.vectors.nbytes if semantic is not None else 0
        return dataclasses.replace(stats, memory_bytes=stats.memory_bytes + extra)

    def search(
        self, query: PreparedQuery, *, limit: int = 5, offset: int = 0, snippets: bool = True
    ) -> SearchResult:
        """Rank papers for the prepared `query` by BM25 fused with embeddings; never raises."""
        limit, offset = max(0, int(limit)), max(0, int(offset))
        terms = query.terms
        semantic = self._semantic
        # No terms (emoji, only stopwords): nothing to compare, though e5 would rank papers;
        # BM25's empty answer brings the hint. Any language's words are terms.
        if semantic is None or not terms:
            result = self.index.search(query, limit=limit, offset=offset, snippets=snippets)
            warming = semantic is None  # BM25 alone, for now: other languages come later
            ready_in = self.ready_in() if warming else None
            return dataclasses.replace(result, warming=warming, ready_in=ready_in)
        mask = self.index.candidates(query)
        scores = self._scores(semantic, query, mask)
        coverage, cosine, fused, order = scores.coverage, scores.cosine, scores.fused, scores.order
        top = int(order[0]) if len(order) else 0
        judged = _judged(scores, top, len(query.text.split()), semantic.calibration)
        confident = judged is not None and judged.confident
        # How many papers really match: most of the question's weight, or clearly closest in
        # meaning; not every paper sharing one common word.
        matches = (coverage >= CONFIDENT_COVERAGE) | fusion.semantic_matches(cosine)
        real = int((matches if mask is None else matches & mask).sum())
        rows = order[offset : offset + limit]
        # A glossed question's snippets mark the English words its gloss matched.
        hits = page_hits(
            self.index, rows, fused[rows], scores.terms, coverage=coverage[rows], snippets=snippets
        )
        return SearchResult(
            query=query.typed,
            terms=terms,
            hits=hits,
            # Pages reach as far as the real matches and the rows shown (a stale tap on a later
            # page must not say "6–10 of 5"), confident or not: a weak answer pages too.
            total=max(real, min(offset + limit, len(order))),
            confident=confident,
            offset=offset,
            confidence=float(coverage[top]) if len(order) else 0.0,
            margin=None if judged is None else judged.margin,
            cut=None if judged is None else judged.cut,
            corrected=query.corrected,
            parsed=query.parsed,
        )

    def _scores(
        self, semantic: _Semantic, prepared: PreparedQuery, mask: np.ndarray | None = None
    ) -> _Scores:
        """Every paper's BM25, coverage, cosine and fused score for the prepared question.

        Papers outside `mask` are fused at -inf; a Chinese question is scored on its gloss.
        """
        # A Latin-script question whose BM25 leader covers it well keeps that leader first.
        glossed = bool(prepared.gloss)  # never a Latin-script question (`gloss.gloss_terms`)
        latin = all(is_latin_text(t) for t in prepared.terms)
        terms = prepared.scored
        coverage = self.index.coverage(terms, np.arange(len(self.papers)))
        bm25 = self.index.scores(terms)
        cosine = semantic.vectors @ self._query_vector(semantic.embedder, prepared.text)
        if mask is None:
            fused = fusion.fused_scores(bm25, cosine, coverage, latin=latin, glossed=glossed)
            order = np.argsort(-fused, kind="stable")
            return _Scores(bm25, coverage, cosine, fused, order, latin, terms, glossed)
        rows = np.flatnonzero(mask)
        fused = np.full(len(self.papers), -np.inf)
        fused[rows] = fusion.fused_scores(
            bm25[rows], cosine[rows], coverage[rows], latin=latin, glossed=glossed
        )
        order = rows[np.argsort(-fused[rows], kind="stable")]
        return _Scores(bm25, coverage, cosine, fused, order, latin, terms, glossed)

    def _query_vector(self, embedder: Embedder, text: str) -> np.ndarray:
        """The question's vector, from the recent ones when it was asked lately."""
        with self._recent_lock:
            vector = self._recent.get(text)
            if vector is not None:
                self._recent.move_to_end(text)
                return vector
        vector = embedder.embed_query(text)
        with self._recent_lock:
            self._recent[text] = vector
            while len(self._recent) > RECENT_QUESTIONS:
                self._recent.popitem(last=False)
        return vector

    def similar(self, paper_id: str, *, limit: int = 5) -> tuple[Hit, ...]:
        """Papers most like `paper_id`: its distinctive terms (BM25) fused with its vector."""
        semantic = self._semantic
        row = self.index.row(paper_id)
        if semantic is None or row is None or limit <= 0:
            return self.index.similar(paper_id, limit=limit)
        terms = self.index.similar_terms(row)
        cosine = semantic.vectors @ semantic.vectors[row]
        fused = fusion.rrf(self.index.scores(terms), cosine)
        fused[row] = -np.inf
        rows = np.argsort(-fused, kind="stable")[:limit]
        return page_hits(self.index, rows, fused[rows], terms)


def _judged(
    scores: _Scores, top: int, words: int, calibration: Calibration | None
) -> fusion.Verdict | None:
    """The margin of the first paper `top` against its cut; None when no paper was ranked."""
    if not len(scores.order):
        return None
    coverage, latin, glossed = float(scores.coverage[top]), scores.latin, scores.glossed
    return verdict(scores.cosine, top, coverage, latin=latin, glossed=glossed, words=words,
                   calibration=calibration)  # fmt: skip


def _unknown() -> float | None:
    """No estimate of when the vectors will be ready."""
    return None
