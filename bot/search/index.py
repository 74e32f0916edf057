"""`Index`: papers analysed into BM25 postings; ranked search, more-like-this, lookup by id.

Ranking is BM25 (`bm25.BM25`, rank-bm25's scores); snippets (`snippets`) and confidence
(`confidence`) are computed afterwards, for the hits shown only. Title words count more: a
paper's terms are its title's terms `TITLE_WEIGHT` times, then its abstract's, keywords' and
authors' terms (`document_terms`), so a title-only paper is found by its keywords and authors.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence, Set
from typing import Any

import numpy as np

from bot.corpus import AuthorIndex, Paper, PaperIds
from bot.search import confidence, filters
from bot.search.analysis import ANALYZERS, analyze_query, analyzer_for
from bot.search.bm25 import BM25, DEFAULT_PARAMS, BM25Params
from bot.search.documents import TITLE_WEIGHT, analysed_documents, document_terms
from bot.search.query import PreparedQuery, QueryPipeline
from bot.search.retriever import Hit, IndexStats, SearchResult
from bot.search.snippets import Snippet, abstract_counts, best_snippet, plain_text
from bot.search.storage.columns import PaperColumns, SpansColumn, field_values
from bot.textutil import Span, sentence_spans

__all__ = ["SIMILAR_TERMS", "TITLE_WEIGHT", "Index", "document_terms"]

SIMILAR_TERMS = 25
"""How many of a paper's most distinctive terms make its more-like-this query."""

QUERY_CACHE = 50_000
"""Chunks the query-time analyzer remembers."""


class Index:
    """Immutable search index; build once, share between handlers (and threads)."""

    papers: Sequence[Paper]
    """A tuple, or `PaperColumns` (a `Paper` made per access) when read from the cache."""

    def __init__(
        self,
        papers: Sequence[Paper],
        bm25: BM25,
        *,
        title_weight: int = TITLE_WEIGHT,
        language: str = "en",
        query_cache: int = QUERY_CACHE,
        sentences: SpansColumn | None = None,
        plain: np.ndarray | None = None,
    ) -> None:
        """Assemble an index; use `build` or `from_state`.

        query_cache: how many text chunks the query analyzer remembers (shared by threads).
        sentences: each paper's abstract's `sentence_spans`, when stored (a cache keeps them:
            a snippet then skips splitting its abstract); else split per snippet.
        plain: with `sentences`, one uint8 per paper: 1 if its abstract is `plain_text` (the
            snippet then skips checking it); else checked per snippet.
        """
        self.papers = papers if isinstance(papers, PaperColumns) else tuple(papers)
        if sentences is not None and len(sentences) != len(self.papers):
            raise ValueError("sentence spans are for a different number of papers")
        if plain is not None and (sentences is None or plain.shape != (len(self.papers),)):
            raise ValueError("plain-text flags need the sentence spans of as many papers")
        self._sentences = sentences
        self._plain = plain
        # Python ints from a memoryview: no numpy scalar a snippet.
        self._plain_at = None if plain is None else memoryview(np.ascontiguousarray(plain))
        self._by_id = {paper_id: i for i, paper_id in enumerate(self._column("id"))}
        self.bm25 = bm25
        self.params = bm25.params
        self.title_weight = title_weight
        self.analyzer = analyzer_for(language, max_cache=query_cache)
        self.queries = QueryPipeline(self, self.query_terms)
        """What a question becomes before it is searched (its speller starts on request)."""

    @classmethod
    def build(
        cls,
        papers: Sequence[Paper],
        *,
        params: BM25Params = DEFAULT_PARAMS,
        title_weight: int = TITLE_WEIGHT,
        language: str = "en",
    ) -> Index:
        """Analyse and index `papers`."""
        documents = analysed_documents(papers, language, title_weight)
        bm25 = BM25.build(documents, params=params)
        return cls(papers, bm25, title_weight=title_weight, language=language)

    def to_state(self) -> dict[str, Any]:
        """Everything `from_state` needs besides the papers: numpy arrays and plain values.

        Includes every abstract's sentence spans and whether it is `plain_text` (found here,
        once, if not already known).
        """
        sentences = (
            self._sentences
            if self._sentences is not None
            else SpansColumn.build(map(sentence_spans, self._column("abstract")))
        )
        plain = self._plain
        if plain is None:
            flags = (
                plain_text(abstract, sentences[row], self.analyzer)
                for row, abstract in enumerate(self._column("abstract"))
            )
            plain = np.fromiter(flags, dtype=np.uint8, count=len(self.papers))
        flat, offsets = sentences.arrays()
        return {
            **self.bm25.to_state(),
            "sentences": flat,
            "sentence_offsets": offsets,
            "abstract_plain": plain,
            "analyzer_language": self.analyzer.language,
            "analyzer_version": self.analyzer.version,
            "title_weight": self.title_weight,
            "papers": len(self.papers),
        }

    @classmethod
    def from_state(cls, papers: Sequence[Paper], state: Mapping[str, Any]) -> Index:
        """Rebuild from `to_state()` without analysing papers; `ValueError` if it does not fit."""
        try:
            language = str(state.get("analyzer_language", "en"))
            if state["analyzer_version"] != ANALYZERS[language].version:
                raise ValueError("index state is from another analyzer version")
            if int(state["papers"]) != len(papers):
                raise ValueError("index state is for a different number of papers")
            title_weight = int(state["title_weight"])
            sentences = SpansColumn(
                np.asarray(state["sentences"]), np.asarray(state["sentence_offsets"])
            )
            plain = np.asarray(state["abstract_plain"])
        except (KeyError, TypeError) as error:
            raise ValueError(f"index state is incomplete: {error}") from error
        if plain.dtype != np.uint8:
            raise ValueError("index state's plain-text flags are not bytes")
        bm25 = BM25.from_state(state, size=len(papers))
        return cls(
            papers,
            bm25,
            title_weight=title_weight,
            language=language,
            sentences=sentences,
            plain=plain,
        )

    def __len__(self) -> int:
        return len(self.papers)

    @functools.cached_property
    def _ids(self) -> PaperIds:
        """What users type for an id (`2402.05678`, any case) -> ids; built on first use."""
        sources = (source or None for source in self._column("source_id"))
        ids = zip(self._column("id"), sources, self._column("aliases"), strict=True)
        return PaperIds.build(ids)  # aliases: a merged paper's other ids, its arXiv id and DOI

    @functools.cached_property
    def authors(self) -> AuthorIndex:
        """Who wrote what: `by_author` and name-only questions; built on first use.

        Lazy: a cached 100k-paper start need not read every author (handlers call it off the
        event loop, and two threads racing to build it build the same index).
        """
        return AuthorIndex.build(self._column("authors"))

    def paper_ids(self) -> Set[str]:
        """Every paper's id, without making a `Paper` (a cached index holds columns)."""
        return self._by_id.keys()

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this id, or None; also what users type (`2402.05678`, any case)."""
        row = self._by_id.get(paper_id)
        if row is None:
            found = self._ids.find(paper_id)
            row = self._by_id.get(found) if found is not None else None
        return None if row is None else self.papers[row]

    def by_author(self, name: str, *, limit: int | None = None) -> tuple[Paper, ...]:
        """Papers with an author `name` names ("J. Schmidhuber", "schmidhuber"), in load order."""
        rows = self.authors.papers(name)
        return tuple(self.papers[r] for r in rows[:limit])

    def is_author_question(self, question: str) -> bool:
        """True if a question is just the name of a person among the authors."""
        return self.authors.is_name_query(question)

    def row(self, paper_id: str) -> int | None:
        """The row of the paper with this id in `papers`, or None."""
        return self._by_id.get(paper_id)

    def knows(self, term: str) -> bool:
        """Whether any paper holds this analysed term."""
        return self.bm25.df(term) > 0

    def query_terms(self, query: str) -> tuple[str, ...]:
        """The analysed terms of a query, as `search` uses them."""
        return tuple(analyze_query(query if isinstance(query, str) else "", self.analyzer))

    def term_weights(self, terms: Iterable[str]) -> dict[str, float]:
        """Each distinct term's coverage weight in this corpus."""
        return {t: self._term_weight(t) for t in dict.fromkeys(terms)}

    def coverage(
        self, terms: Sequence[str], rows: np.ndarray, weights: Mapping[str, float] | None = None
    ) -> np.ndarray:
        """For each row, the share of the distinct terms' idf weight the paper contains."""
        unique = list(dict.fromkeys(terms))
        weights = self.term_weights(unique) if weights is None else weights
        return self._coverage(unique, np.asarray(rows, dtype=np.int64), weights)

    def similar_terms(self, row: int) -> list[str]:
        """The more-like-this query of paper `row`: its most distinctive shared terms."""
        counts = Counter(document_terms(self.papers[row], self.analyzer))
        known = [t for t in counts if self.bm25.df(t) > 1]
        weights = {t: self._term_weight(t) for t in known}
        return sorted(known, key=lambda t: (-counts[t] * weights[t], t))[:SIMILAR_TERMS]

    def hits(
        self,
        rows: np.ndarray,
        scores: np.ndarray,
        terms: Sequence[str],
        *,
        coverage: np.ndarray | None = None,
        snippets: bool = True,
    ) -> tuple[Hit, ...]:
        """Hits for ranked rows with their scores, snippets for `terms` and coverage."""
        unique = list(dict.fromkeys(terms))
        weights = self.term_weights(unique)
        rows = np.asarray(rows, dtype=np.int64)
        if coverage is None:
            coverage = self._coverage(unique, rows, weights)
        return self._hits(rows, np.asarray(scores), coverage, unique, weights, snippets=snippets)

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """Every paper's score for these query terms: rank-bm25's `get_scores(terms)`."""
        return self.bm25.scores(terms)

    def search(
        self,
        query: str | PreparedQuery,
        *,
        limit: int = 5,
        offset: int = 0,
        snippets: bool = True,
    ) -> SearchResult:
        """Rank papers for `query` (prepared by `queries` unless it is); never raises on any string.

        `snippets=False` leaves every `Hit.snippet` empty (for evaluations that rank only).
        """
        prepared = query if isinstance(query, PreparedQuery) else self.queries.prepare(query)
        terms = prepared.scored  # a Chinese question's English gloss, if it has one
        limit, offset = max(0, int(limit)), max(0, int(offset))
        mask = self.candidates(prepared)
        if mask is not None and not terms:  # conditions alone ("author:Bengio"): list them
            return self._listing(prepared, mask, limit=limit, offset=offset, snippets=snippets)
        ranked, scores, total = self.bm25.top(terms, offset + limit, mask=mask)
        unique = list(dict.fromkeys(terms))
        # Looked up once per query, not once per hit (analyze_query caps how many there are).
        weights = {t: self._term_weight(t) for t in unique}
        rows, scores = ranked[offset:], scores[offset:]
        if snippets:  # snippets need each term's frequency in each row; they tell coverage too
            tfs = {t: self.bm25.tf(t, rows) for t in unique}
            coverage = confidence.coverage_of(unique, tfs, weights, len(rows))
        else:
            tfs, coverage = None, self._coverage(unique, rows, weights)
        hits = self._hits(rows, scores, coverage, unique, weights, snippets=snippets, tfs=tfs)
        if offset:  # the best paper is ranked first whatever page is shown
            best = float(self._coverage(unique, ranked[:1], weights)[0]) if ranked.size else 0.0
        else:
            best = float(coverage[0]) if rows.size else 0.0
        return SearchResult(
            query=prepared.typed,
            terms=prepared.terms,
            hits=hits,
            total=total,
            confident=confidence.is_confident(best),
            offset=offset,
            confidence=best,
            margin=best if ranked.size else None,
            cut=confidence.CONFIDENT_COVERAGE if ranked.size else None,
            corrected=prepared.corrected,
            parsed=prepared.parsed,
        )

    def candidates(self, prepared: PreparedQuery) -> np.ndarray | None:
        """One bool per paper: those meeting the query's conditions; None when it sets none."""
        if prepared.parsed is None:
            return None
        return filters.candidates(self, prepared.parsed)

    def _listing(
        self, prepared: PreparedQuery, mask: np.ndarray, *, limit: int, offset: int, snippets: bool
    ) -> SearchResult:
        """The papers meeting conditions without free text: newest year first, then load order.

        Each meets the whole query, so each is a full match (coverage 1) and the answer is
        confident whenever one does.
        """
        rows = filters.listed(self, mask)
        shown = rows[offset : offset + limit]
        hits = self._hits(
            shown, np.zeros(len(shown)), np.ones(len(shown)), (), {}, snippets=snippets
        )
        return SearchResult(
            query=prepared.typed,
            terms=(),
            hits=hits,
            total=len(rows),
            confident=bool(len(rows)),
            offset=offset,
            confidence=1.0 if len(rows) else 0.0,
            parsed=prepared.parsed,
        )

    def similar(self, paper_id: str, *, limit: int = 5) -> tuple[Hit, ...]:
        """Papers most like `paper_id` (more-like-this); empty for an unknown id."""
        row = self._by_id.get(paper_id)
        if row is None or limit <= 0:
            return ()
        terms = self.similar_terms(row)
        weights = self.term_weights(terms)
        rows, scores, _ = self.bm25.top(tuple(terms), limit + 1)
        coverage = self._coverage(terms, rows, weights)
        others = np.flatnonzero(rows != row)[:limit]
        return self._hits(rows[others], scores[others], coverage[others], terms, weights)

    def snippet(
        self, text: str, terms: Sequence[str], *, weights: Mapping[str, float] | None = None
    ) -> Snippet:
        """The one or two sentences of `text` that best match `terms`, matches marked.

        `weights` may hold the terms' coverage weights already looked up (`search` does).
        """
        if weights is None:
            weights = {t: self._term_weight(t) for t in terms}
        return best_snippet(text, terms, weights, self.analyzer)

    def stats(self) -> IndexStats:
        """Counts and approximate memory for /stats."""
        return IndexStats(
            papers=len(self.papers),
            sources=len(set(self._column("source"))),
            terms=len(self.bm25.vocab),
            postings=self.bm25.postings,
            memory_bytes=self.bm25.nbytes
            + (self._sentences.nbytes if self._sentences is not None else 0)
            + (self._plain.nbytes if self._plain is not None else 0),
        )

    def _hits(
        self,
        rows: np.ndarray,
        scores: np.ndarray,
        coverage: np.ndarray,
        terms: Sequence[str],
        weights: Mapping[str, float],
        *,
        snippets: bool = True,
        tfs: Mapping[str, np.ndarray] | None = None,
    ) -> tuple[Hit, ...]:
        """Hits for ranked rows, each with its snippet for `terms` (or an empty one).

        tfs: each term's frequency in each row (`BM25.tf`), if the caller has them.
        """
        # Each term's frequency in each row: the snippet then analyses only likely words.
        if snippets and tfs is None:
            tfs = {t: self.bm25.tf(t, rows) for t in dict.fromkeys(terms)}
        frequencies = {t: f.tolist() for t, f in tfs.items()} if snippets and tfs else {}
        return tuple(
            Hit(
                paper=paper,
                score=float(s),
                snippet=(
                    best_snippet(
                        paper.abstract,
                        terms,
                        weights,
                        self.analyzer,
                        counts=abstract_counts(
                            paper,
                            {t: f[i] for t, f in frequencies.items()},
                            self.analyzer,
                            title_weight=self.title_weight,
                        ),
                        sentences=sentences,
                        plain=plain,
                    )
                    if snippets
                    else Snippet("")
                ),
                coverage=float(c),
            )
            for i, (r, s, c) in enumerate(
                zip(rows.tolist(), scores.tolist(), coverage.tolist(), strict=True)
            )
            # One lookup a hit: a cached index makes each `Paper` from its columns.
            for paper in (self.papers[r],)
            for sentences, plain in (self._abstract_layout(r, paper.abstract),)
        )

    def _abstract_layout(self, row: int, abstract: str) -> tuple[list[Span] | None, bool]:
        """The stored sentence spans of paper `row`'s abstract (None if not stored or unfit)
        and whether it is stored as `plain_text`."""
        if self._sentences is None:
            return None, False
        spans = self._sentences[row]
        if spans and spans[-1][1] > len(abstract):
            return None, False
        return spans, self._plain_at is not None and self._plain_at[row] == 1

    def _column(self, name: str) -> Iterable[Any]:
        """One field of every paper (from the columns directly when cached)."""
        return field_values(self.papers, name)

    def _term_weight(self, term: str) -> float:
        """A term's coverage weight in this corpus (df 0 for an unknown term)."""
        return confidence.term_weight(len(self.papers), self.bm25.df(term))

    def _coverage(
        self, terms: Sequence[str], rows: np.ndarray, weights: Mapping[str, float]
    ) -> np.ndarray:
        """For each row, the share of the terms' weight that the paper contains."""
        return confidence.coverage(terms, rows, weights, self.bm25.docs)
