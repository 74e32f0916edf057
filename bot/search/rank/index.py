"""`Index`: papers analysed into BM25 postings; ranked search, more-like-this, lookup by id."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence, Set
from itertools import tee
from operator import itemgetter
from typing import Any

import numpy as np

from bot.corpus import AuthorIndex, Paper, PaperIds
from bot.search.query.analysis import ANALYZER_VERSION, EnglishAnalyzer, analyze_query
from bot.search.query.pipeline import PreparedQuery, QueryPipeline
from bot.search.rank import filters
from bot.search.rank.bm25 import BM25
from bot.search.rank.documents import AbstractLayout, AbstractNotes, document_terms
from bot.search.rank.hits import CONFIDENT_COVERAGE, coverage, is_confident, page_hits, term_weight
from bot.search.rank.retriever import Hit, IndexStats, SearchResult
from bot.search.storage.columns import PaperColumns, field_values

SIMILAR_TERMS = 25
"""How many of a paper's most distinctive terms make its more-like-this query."""

QUERY_CACHE = 50_000
"""Chunks the query-time analyzer remembers (shared by threads)."""


class Index:
    """Immutable search index; build once, share between handlers (and threads)."""

    papers: Sequence[Paper]
    """A tuple, or `PaperColumns` (a `Paper` made per access) when read from the cache."""

    def __init__(self, papers: Sequence[Paper], bm25: BM25, layout: AbstractLayout) -> None:
        """Assemble (`layout`: what snippets read of abstracts); use `build` or `from_state`."""
        self.papers = papers if isinstance(papers, PaperColumns) else tuple(papers)
        self._by_id = {paper_id: i for i, paper_id in enumerate(self._column("id"))}
        self.bm25 = bm25
        self.layout = layout
        self.analyzer = EnglishAnalyzer(max_cache=QUERY_CACHE)
        self.queries = QueryPipeline(self)
        """What a question becomes before it is searched (its speller starts on request)."""

    @classmethod
    def build(cls, papers: Sequence[Paper]) -> Index:
        """Analyse and index `papers` (one analysis each; its big cache is freed after)."""
        notes = AbstractNotes(EnglishAnalyzer())
        # Each paper's terms, and its abstract terms' sentence masks kept with their postings.
        documents, masks = tee(notes.document(paper) for paper in papers)
        bm25 = BM25.build(map(itemgetter(0), documents), payloads=map(itemgetter(1), masks))
        return cls(papers, bm25, notes.layout(bm25.vocab))

    def to_state(self) -> dict[str, Any]:
        """Everything `from_state` needs besides the papers: numpy arrays and plain values."""
        return {
            **self.bm25.to_state(),
            **self.layout.to_state(),
            "analyzer_version": self.analyzer.version,
            "papers": len(self.papers),
        }

    @classmethod
    def from_state(cls, papers: Sequence[Paper], state: Mapping[str, Any]) -> Index:
        """Rebuild from `to_state()` without analysing papers; `ValueError` if it does not fit."""
        try:
            if state["analyzer_version"] != ANALYZER_VERSION:
                raise ValueError("index state is from another analyzer version")
            if int(state["papers"]) != len(papers):
                raise ValueError("index state is for a different number of papers")
        except (KeyError, TypeError) as error:
            raise ValueError(f"index state is incomplete: {error}") from error
        bm25 = BM25.from_state(state, size=len(papers))
        layout = AbstractLayout.from_state(state, papers=len(papers), terms=len(bm25.vocab))
        return cls(papers, bm25, layout)

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
        """Who wrote what, built on first use (off the loop; racing threads build the same)."""
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

    def named_author(self, question: str) -> tuple[Paper, ...]:
        """The papers of the person `question` just names ("J. Schmidhuber"); () if none."""
        return tuple(self.papers[r] for r in self.authors.name_query(question))

    def row(self, paper_id: str) -> int | None:
        """The row of the paper with this id in `papers`, or None."""
        return self._by_id.get(paper_id)

    def knows(self, term: str) -> bool:
        """Whether any paper holds this analysed term."""
        return self.bm25.df(term) > 0

    def query_terms(self, query: str) -> tuple[str, ...]:
        """The analysed terms of a query, as `search` uses them."""
        return tuple(analyze_query(query, self.analyzer))

    def term_weights(self, terms: Iterable[str]) -> dict[str, float]:
        """Each distinct term's coverage weight in this corpus (df 0 for an unknown term)."""
        size = len(self.papers)
        return {t: term_weight(size, self.bm25.df(t)) for t in dict.fromkeys(terms)}

    def coverage(self, terms: Sequence[str], rows: np.ndarray) -> np.ndarray:
        """For each row, the share of the distinct terms' idf weight the paper contains."""
        unique = list(dict.fromkeys(terms))
        rows = np.asarray(rows, dtype=np.int64)
        return coverage(unique, rows, self.term_weights(unique), self.bm25.docs)

    def similar_terms(self, row: int) -> list[str]:
        """The more-like-this query of paper `row`: its most distinctive shared terms."""
        counts = Counter(document_terms(self.papers[row], self.analyzer))
        weights = self.term_weights(t for t in counts if self.bm25.df(t) > 1)
        return sorted(weights, key=lambda t: (-counts[t] * weights[t], t))[:SIMILAR_TERMS]

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """Every paper's score for these query terms: rank-bm25's `get_scores(terms)`."""
        return self.bm25.scores(terms)

    def search(
        self, query: PreparedQuery, *, limit: int = 5, offset: int = 0, snippets: bool = True
    ) -> SearchResult:
        """Rank papers for the prepared `query`; never raises. `snippets=False`: no snippets."""
        terms = query.scored  # a Chinese question's English gloss, if it has one
        limit, offset = max(0, int(limit)), max(0, int(offset))
        mask = self.candidates(query)
        if mask is not None and not terms:  # conditions alone ("author:Bengio"): list them
            return self._listing(query, mask, limit=limit, offset=offset, snippets=snippets)
        ranked, scores, total = self.bm25.top(terms, offset + limit, mask=mask)
        hits = page_hits(self, ranked[offset:], scores[offset:], terms, snippets=snippets)
        if offset:  # the best paper is ranked first whatever page is shown
            best = float(self.coverage(terms, ranked[:1])[0]) if ranked.size else 0.0
        else:
            best = hits[0].coverage if hits else 0.0
        return SearchResult(
            query=query.typed,
            terms=query.terms,
            hits=hits,
            total=total,
            confident=is_confident(best),
            offset=offset,
            confidence=best,
            margin=best if ranked.size else None,
            cut=CONFIDENT_COVERAGE if ranked.size else None,
            corrected=query.corrected,
            parsed=query.parsed,
        )

    def candidates(self, prepared: PreparedQuery) -> np.ndarray | None:
        """One bool per paper: those meeting the query's conditions; None when it sets none."""
        if prepared.parsed is None:
            return None
        return filters.candidates(self, prepared.parsed)

    def _listing(
        self, prepared: PreparedQuery, mask: np.ndarray, *, limit: int, offset: int, snippets: bool
    ) -> SearchResult:
        """Papers meeting conditions without free text, newest first: each a full match."""
        rows = filters.listed(self, mask)
        shown = rows[offset : offset + limit]
        ones = np.ones(len(shown))
        hits = page_hits(self, shown, np.zeros(len(shown)), (), coverage=ones, snippets=snippets)
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
        rows, scores, _ = self.bm25.top(tuple(terms), limit + 1)
        others = np.flatnonzero(rows != row)[:limit]
        return page_hits(self, rows[others], scores[others], terms)

    def stats(self) -> IndexStats:
        """Counts and approximate memory for /stats."""
        return IndexStats(
            papers=len(self.papers),
            sources=len(set(self._column("source"))),
            terms=len(self.bm25.vocab),
            postings=self.bm25.postings,
            memory_bytes=self.bm25.nbytes + self.layout.nbytes,
        )

    def _column(self, name: str) -> Iterable[Any]:
        """One field of every paper (from the columns directly when cached)."""
        return field_values(self.papers, name)
