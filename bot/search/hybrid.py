"""`HybridRetriever`: BM25 fused with multilingual embeddings, behind the `Retriever` protocol.

BM25 (`Index`) stays the first stage and its scores stay rank-bm25's. The semantic signal is
the cosine of the question's vector with every paper's; the ranking is their reciprocal rank
fusion (`fusion.fuse`), whose semantic weight depends on the question (`fusion.semantic_weight`:
a Latin-script question BM25 covers well keeps BM25's order). Snippets and confidence come
after ranking. The retriever is served at once: until `attach_vectors` is called (by an
`EmbeddingJob` in a worker thread) it answers with BM25 alone. Questions are cleaned of
request words (`phrasing.topic_text`) and, once `attach_speller` is called, of typos
(`spelling`), before either signal sees them.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.corpus import Paper
from bot.search import fusion, spelling
from bot.search.analysis import analyze
from bot.search.confidence import CONFIDENT_COVERAGE
from bot.search.embedding import Embedder, embed_papers
from bot.search.index import Index
from bot.search.phrasing import topic_text
from bot.search.retriever import Hit, IndexStats, SearchResult

__all__ = ["EmbeddingJob", "HybridRetriever", "Speller"]

logger = logging.getLogger(__name__)

RECENT_QUESTIONS = 1024
"""Question vectors remembered (1.5 KB each), for page turns and repeated questions."""


class Speller:
    """Corrects a question's words the corpus does not know, against the corpus's words."""

    def __init__(self, index: Index) -> None:
        """Collect the corpus's words and load the English dictionary (~0.3 s: off the loop)."""
        self._index = index
        self._lexicon = spelling.lexicon(f"{p.title}\n{p.abstract}" for p in index.papers)
        self._is_word = spelling.english_words()

    def correct(self, query: str) -> spelling.Correction:
        """`query` with unknown words replaced by the corpus words they most likely mean."""
        return spelling.correct_query(
            query,
            self._lexicon,
            known=lambda word: all(self._index.knows(t) for t in analyze(word)),
            is_word=self._is_word,
            same=lambda a, b: analyze(a) == analyze(b),
        )


@dataclass(frozen=True, slots=True)
class _Semantic:
    """The paper vectors and the model that embeds questions like them."""

    embedder: Embedder
    vectors: np.ndarray


@dataclass(frozen=True, slots=True)
class _Scores:
    """One question's per-paper signals and the fused order."""

    bm25: np.ndarray
    coverage: np.ndarray
    cosine: np.ndarray
    fused: np.ndarray
    order: np.ndarray

    def bm25_rank(self, row: int) -> int | None:
        """Paper `row`'s BM25 rank; None when it holds no query term."""
        return fusion.rank_of(self.bm25, row) if self.coverage[row] > 0 else None


class HybridRetriever:
    """BM25 + embeddings fused by reciprocal rank; BM25 alone until the vectors are attached."""

    def __init__(self, index: Index, embedder: Embedder) -> None:
        """Serve `index` now; `embedder` embeds questions once paper vectors are attached."""
        self.index = index
        self.papers: Sequence[Paper] = index.papers
        self.embedder = embedder
        # Each slot is replaced in one assignment by the embedding thread; searches read it once.
        self._semantic: _Semantic | None = None
        self._speller: Speller | None = None
        # Recent question vectors: turning a page or retyping a question embeds nothing.
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._recent_lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.papers)

    @property
    def semantic_ready(self) -> bool:
        """Whether answers use the embeddings yet."""
        return self._semantic is not None

    def attach_speller(self, speller: Speller) -> None:
        """Start correcting typos (called from the embedding thread)."""
        self._speller = speller

    def attach_vectors(self, vectors: np.ndarray) -> None:
        """Start fusing: `vectors` has one unit row per paper, in `papers` order."""
        if vectors.shape[0] != len(self.papers):
            raise ValueError(f"{vectors.shape[0]} vectors for {len(self.papers)} papers")
        self._semantic = _Semantic(self.embedder, np.ascontiguousarray(vectors, np.float32))

    def paper_ids(self) -> Set[str]:
        """Every paper's id (the BM25 index's)."""
        return self.index.paper_ids()

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this id, or None."""
        return self.index.get(paper_id)

    def by_author(self, name: str, *, limit: int | None = None) -> tuple[Paper, ...]:
        """Papers with an author `name` names, in load order (the BM25 index's lookup)."""
        return self.index.by_author(name, limit=limit)

    def is_author_question(self, question: str) -> bool:
        """True if a question is just the name of a person among the authors."""
        return self.index.is_author_question(question)

    def stats(self) -> IndexStats:
        """The BM25 index's sizes plus the vectors' memory."""
        stats = self.index.stats()
        semantic = self._semantic
        extra = semantic.vectors.nbytes if semantic is not None else 0
        return dataclasses.replace(stats, memory_bytes=stats.memory_bytes + extra)

    def search(
        self, query: str, *, limit: int = 5, offset: int = 0, snippets: bool = True
    ) -> SearchResult:
        """Rank papers for `query` by BM25 fused with embeddings; never raises on any string."""
        query = query if isinstance(query, str) else ""
        limit, offset = max(0, int(limit)), max(0, int(offset))
        correction, terms = self._clean(query)
        corrected = _shown_correction(query, correction)
        semantic = self._semantic
        # No terms (emoji, only stopwords): nothing to compare, though e5 would rank papers;
        # BM25's empty answer brings the hint. Any language's words are terms.
        if semantic is None or not terms:
            result = self.index.search(
                correction.text, limit=limit, offset=offset, snippets=snippets
            )
            warming = semantic is None  # BM25 alone, for now: other languages come later
            return dataclasses.replace(result, query=query, corrected=corrected, warming=warming)
        scores = self._scores(semantic, terms, correction.text)
        coverage, cosine, fused, order = scores.coverage, scores.cosine, scores.fused, scores.order
        top = int(order[0]) if len(order) else 0
        confident = bool(len(order)) and fusion.is_confident(
            cosine,
            top,
            float(coverage[top]),
            bm25_rank=scores.bm25_rank(top),
        )
        # How many papers really match: most of the question's weight, or clearly closest in
        # meaning; not every paper sharing one common word.
        real = int(((coverage >= CONFIDENT_COVERAGE) | fusion.semantic_matches(cosine)).sum())
        rows = order[offset : offset + limit]
        hits = self.index.hits(rows, fused[rows], terms, coverage=coverage[rows], snippets=snippets)
        return SearchResult(
            query=query,
            terms=terms,
            hits=hits,
            # Pages reach as far as the real matches (a first page is always full).
            total=max(real, min(limit, len(order))) if confident else real,
            confident=confident,
            offset=offset,
            confidence=float(coverage[top]) if len(order) else 0.0,
            corrected=corrected,
        )

    def answer_features(self, query: str) -> np.ndarray | None:
        """The confidence signals `search` has for its top paper (`fusion.FEATURE_NAMES`).

        None when `search` would answer with BM25 alone (no vectors yet, or no query term).
        For calibrating the confidence rule on the dev set (benchmarks/confidence_cv.py).
        """
        correction, terms = self._clean(query if isinstance(query, str) else "")
        semantic = self._semantic
        if semantic is None or not terms or not len(self.papers):
            return None
        scores = self._scores(semantic, terms, correction.text)
        top = int(scores.order[0])
        unknown, rare = self._term_signals(terms, top)
        return fusion.confidence_features(
            scores.cosine,
            scores.fused,
            top,
            float(scores.coverage[top]),
            scores.bm25_rank(top),
            bm25=scores.bm25,
            unknown_latin=unknown,
            rare_coverage=rare,
        )

    def _term_signals(self, terms: Sequence[str], top: int) -> tuple[float, float]:
        """The question's unknown Latin-script weight share, and paper `top`'s share of the
        weight of the question's most specific known terms (`fusion.rarest_known`)."""
        weights = self.index.term_weights(terms)
        unknown = fusion.unknown_latin_share(weights, self.index.knows)
        rare = fusion.rarest_known(weights, self.index.knows)
        held = self.index.coverage(rare, np.array([top]), weights)[0] if rare else 0.0
        return unknown, float(held)

    def _clean(self, query: str) -> tuple[spelling.Correction, tuple[str, ...]]:
        """The question without request words and typos, and its BM25 terms."""
        topic = topic_text(query)
        speller = self._speller
        correction = speller.correct(topic) if speller is not None else spelling.Correction(topic)
        return correction, self.index.query_terms(correction.text)

    def _scores(self, semantic: _Semantic, terms: Sequence[str], text: str) -> _Scores:
        """Every paper's BM25, coverage, cosine and fused score for the cleaned question."""
        coverage = self.index.coverage(terms, np.arange(len(self.papers)))
        bm25 = self.index.scores(terms)
        cosine = semantic.vectors @ self._query_vector(semantic.embedder, text)
        latin = all(fusion.is_latin(t) for t in terms)
        weight = fusion.semantic_weight(bm25, coverage, latin=latin)
        fused = fusion.fuse(bm25, cosine, matched=coverage > 0, weight=weight)
        return _Scores(bm25, coverage, cosine, fused, np.argsort(-fused, kind="stable"))

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
        return self.index.hits(rows, fused[rows], terms)


def _shown_correction(query: str, correction: spelling.Correction) -> str:
    """What to tell the user was searched: the question with its typos fixed, or ""."""
    if not correction.changes:
        return ""
    text = query
    for typed, used in correction.changes:
        text = text.replace(typed, used, 1)
    return text


class EmbeddingJob:
    """Embeds a retriever's papers in a daemon thread, then attaches the vectors.

    The speller is attached first (seconds), the vectors when all papers are embedded (a
    cache hit per known paper; minutes for thousands of new ones). `stop()` ends it early.
    """

    def __init__(
        self,
        retriever: HybridRetriever,
        embedder: Embedder,
        *,
        cache_dir: str | Path | None,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """Prepare the job; `embedder` embeds the papers (it may also answer questions)."""
        self.retriever = retriever
        self._embedder = embedder
        self._cache_dir = cache_dir
        self._progress = progress
        self._stop = threading.Event()
        self.done = threading.Event()
        """Set when the job has ended, whether the vectors were attached or not."""
        self._thread = threading.Thread(target=self._run, name="embedding", daemon=True)

    def start(self) -> EmbeddingJob:
        """Start the thread; returns self."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the thread to end after its current batch (its work so far stays cached)."""
        self._stop.set()

    def _run(self) -> None:
        """Attach the speller, embed, attach the vectors; errors are logged, never raised."""
        started = time.perf_counter()
        try:
            self.retriever.attach_speller(Speller(self.retriever.index))
            vectors = embed_papers(
                self._embedder,
                self.retriever.papers,
                cache_dir=self._cache_dir,
                progress=self._progress,
                stop=self._stop,
            )
            if vectors is not None and not self._stop.is_set():
                self.retriever.attach_vectors(vectors)
                logger.info(
                    "Semantic search ready: %d papers in %.1f s",
                    len(vectors),
                    time.perf_counter() - started,
                )
        except Exception:  # a failed model must not take the bot down: BM25 keeps answering
            logger.exception("Embedding papers failed; answering with BM25 alone")
        finally:
            self.done.set()
