"""BM25 index over papers: ranked hits with snippets, more-like-this, confidence.

Scores are exactly those of rank-bm25's `BM25Plus` (chosen by measured quality, see the
README) for the token lists `document_terms` returns, computed the fast way: BM25 is a sum
over query terms of per-(term, paper) contributions, so the index keeps CSR postings
(term -> paper rows int32, term frequency uint16: 6 bytes a posting) plus rank-bm25's own
statistics (df, document lengths, avgdl, k1, b, delta), and a query computes, with
rank-bm25's formulas and operation order, the contributions of its terms' postings only.
`BM25Plus` also gives papers *without* a term `idf * delta`; that share is the same for
every paper, so it is one number per query term added to every score, which keeps
`scores()` equal to rank-bm25's `get_scores`.

Title words count more: a paper's terms are its title's terms `TITLE_WEIGHT` times, then
its abstract's terms (`document_terms`).
"""

from __future__ import annotations

import math
import re
import threading
from array import array
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import count, pairwise
from typing import Any

import numpy as np

from bot.corpus import Paper
from bot.text import ANALYZER_VERSION, Analyzer, analyze_query

TITLE_WEIGHT = 2
"""A paper's title terms are indexed this many times (its abstract's once)."""

MAX_SNIPPET_CHARS = 300
"""Longest snippet, ellipses included."""

CONFIDENT_COVERAGE = 0.4
"""A result is confident when its top paper holds this share of the query's idf weight."""

SIMILAR_TERMS = 25
"""How many of a paper's most distinctive terms make its more-like-this query."""


@dataclass(frozen=True, slots=True)
class Snippet:
    """One or two best-matching sentences, plain text, with matched words marked."""

    text: str
    marks: tuple[tuple[int, int], ...] = ()
    """Character spans `[start, end)` in `text` of the words that matched the query."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked paper."""

    paper: Paper
    score: float
    snippet: Snippet
    coverage: float = 0.0
    """Share (0-1) of the query's idf weight whose terms this paper contains."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A page of hits for one query."""

    query: str
    terms: tuple[str, ...]
    """The analysed query terms; empty when the query had nothing searchable."""
    hits: tuple[Hit, ...]
    total: int
    """How many papers matched at all (contain at least one query term)."""
    confident: bool
    """False when nothing matched well: the hits are only the closest papers."""
    offset: int = 0
    confidence: float = 0.0
    """The best paper's coverage of the query (0-1); `confident` is it ≥ `CONFIDENT_COVERAGE`."""


@dataclass(frozen=True, slots=True)
class IndexStats:
    """Sizes for /stats."""

    papers: int
    sources: int
    terms: int
    postings: int
    memory_bytes: int


# --- BM25 variants: rank-bm25's formulas, vectorised --------------------------------------
# Per variant: its idf, and a term's contribution to the papers that contain it (vectorised
# over a posting list). BM25Plus also gives idf × delta to every paper, with or without the
# term; `Index` adds that constant to all scores.


@dataclass(frozen=True, slots=True)
class BM25Params:
    """A rank-bm25 class and its parameters (rank-bm25's defaults)."""

    variant: str = "BM25Plus"
    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25
    """BM25Okapi only: negative idfs become epsilon × mean idf."""
    delta: float = 1.0
    """BM25L (default 0.5) and BM25Plus (default 1.0) only."""


def _okapi_idf(p: BM25Params, n: int, df: np.ndarray, floor: float) -> np.ndarray:
    """rank_bm25.BM25Okapi's idf: log(N - df + .5) - log(df + .5), negatives -> eps × mean."""
    idf = np.log(n - df + 0.5) - np.log(df + 0.5)
    idf[idf < 0] = floor
    return idf


def _okapi(p: BM25Params, idf: float, tf: np.ndarray, dn: np.ndarray) -> np.ndarray:
    """rank_bm25.BM25Okapi (Robertson et al.); `dn` is k1 × (1 - b + b·dl/avgdl)."""
    return idf * (tf * (p.k1 + 1) / (tf + dn))


def _bm25l_idf(p: BM25Params, n: int, df: np.ndarray, floor: float) -> np.ndarray:
    """rank_bm25.BM25L's idf: log(N + 1) - log(df + .5)."""
    return math.log(n + 1) - np.log(df + 0.5)


def _bm25l(p: BM25Params, idf: float, tf: np.ndarray, dn: np.ndarray) -> np.ndarray:
    """rank_bm25.BM25L (Lv & Zhai 2011), with rank-bm25's extra `tf *` factor; `dn` is the norm."""
    ctd = tf / dn
    return idf * tf * (p.k1 + 1) * (ctd + p.delta) / (p.k1 + ctd + p.delta)


def _bm25plus_idf(p: BM25Params, n: int, df: np.ndarray, floor: float) -> np.ndarray:
    """rank_bm25.BM25Plus's idf: log((N + 1) / df)."""
    return np.log((n + 1) / df)


def _bm25plus(p: BM25Params, idf: float, tf: np.ndarray, dn: np.ndarray) -> np.ndarray:
    """rank_bm25.BM25Plus (Lv & Zhai 2011) without its idf × delta, which `Index` adds to all.

    `idf * ((tf * (k1 + 1)) / (dn + tf))`, computed in place in the fresh `dn` (the same
    operations, so the same bits, without four temporary arrays).
    """
    dn += tf
    np.divide(tf * (p.k1 + 1), dn, out=dn)
    dn *= idf
    return dn


_IdfFunction = Callable[[BM25Params, int, np.ndarray, float], np.ndarray]
_ScoreFunction = Callable[[BM25Params, float, np.ndarray, np.ndarray], np.ndarray]
_VARIANTS: dict[str, tuple[_IdfFunction, _ScoreFunction]] = {
    "BM25Okapi": (_okapi_idf, _okapi),
    "BM25L": (_bm25l_idf, _bm25l),
    "BM25Plus": (_bm25plus_idf, _bm25plus),
}
DEFAULT_PARAMS = BM25Params()


def bm25_params(variant: str) -> BM25Params:
    """rank-bm25's default parameters for `variant`; unknown names raise `ValueError`."""
    if variant not in _VARIANTS:
        raise ValueError(f"unknown BM25 variant {variant!r}; valid: {', '.join(_VARIANTS)}")
    return BM25Params(variant=variant, delta=0.5 if variant == "BM25L" else 1.0)


def document_terms(
    paper: Paper, analyzer: Analyzer | None = None, *, title_weight: int = TITLE_WEIGHT
) -> list[str]:
    """The terms indexed for `paper`: title terms `title_weight` times, then the abstract's."""
    analyzer = analyzer or Analyzer(max_cache=10_000)
    return analyzer.analyze(paper.title) * title_weight + analyzer.analyze(paper.abstract)


# --- sentences and snippets ----------------------------------------------------------------

_SENTENCE_END = re.compile(r"[.!?][\"”’')\]]*\s+")
_CHUNK = re.compile(r"\S+")
_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "al.", "vs.", "cf.", "etc.", "fig.", "eq.", "resp."})


def _sentences(text: str) -> list[tuple[int, int]]:
    """`[start, end)` spans of the sentences of `text` (abbreviations do not end one)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        word = text[text.rfind(" ", start, m.start()) + 1 : m.start() + 1].lower()
        nxt = text[m.end() : m.end() + 1]
        if word in _ABBREVIATIONS or not (nxt.isupper() or nxt.isdigit() or not nxt.isalpha()):
            continue
        spans.append((start, m.start() + 1))
        start = m.end()
    if start < len(text.rstrip()):
        spans.append((start, len(text.rstrip())))
    return spans


def _merge(marks: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sorted, non-overlapping spans."""
    merged: list[list[int]] = []
    for s, e in sorted(marks):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return tuple((s, e) for s, e in merged)


def _clip(text: str, marks: tuple[tuple[int, int], ...], limit: int) -> Snippet:
    """Cut `text` to `limit` chars on word boundaries around its first marks, with "…"."""
    if len(text) <= limit:
        return Snippet(text, marks)
    start = 0
    if marks and marks[0][1] > limit - 1:
        start = max(0, marks[0][0] - 40)
        space = text.find(" ", start, marks[0][0])
        start = space + 1 if space != -1 else marks[0][0]
    prefix = "…" if start > 0 else ""
    end = start + limit - len(prefix) - 1
    if end < len(text):
        space = text.rfind(" ", start, end + 1)
        end = space if space > start else end
    body = text[start:end].rstrip(" ,;:")
    suffix = "…" if start + len(body) < len(text) else ""
    shift = len(prefix) - start
    kept = tuple((s + shift, e + shift) for s, e in marks if s >= start and e <= start + len(body))
    return Snippet(prefix + body + suffix, kept)


class Vocabulary:
    """Sorted terms in one UTF-8 blob with offsets: a few bytes a term instead of a dict's ~100."""

    __slots__ = ("_blob", "_offsets", "_starts")

    def __init__(self, blob: bytes, offsets: np.ndarray) -> None:
        """`blob` holds the sorted terms, each followed by a newline, starting at `offsets`."""
        self._blob = blob
        self._offsets = offsets
        # Python ints from a memoryview: ~10× faster to index than numpy scalars, no copy.
        self._starts = memoryview(np.ascontiguousarray(offsets, dtype=np.int64))

    @classmethod
    def from_sorted(cls, terms: Sequence[str]) -> Vocabulary:
        """From terms already in code-point order (the order UTF-8 bytes sort in)."""
        encoded = [t.encode() for t in terms]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) + 1 for e in encoded], out=offsets[1:])
        return cls(b"".join(e + b"\n" for e in encoded), offsets)

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i: int) -> bytes:
        return self._blob[self._starts[i] : self._starts[i + 1] - 1]

    def id(self, term: str) -> int | None:
        """The term's id (its rank in sorted order), or None."""
        key = term.encode("utf-8", "replace")
        i = bisect_left(self, key)
        return i if i < len(self) and self[i] == key else None

    @property
    def nbytes(self) -> int:
        """Bytes held."""
        return len(self._blob) + self._offsets.nbytes


# --- the index -----------------------------------------------------------------------------


class Index:
    """Immutable search index; build once, share between handlers."""

    papers: tuple[Paper, ...]

    def __init__(
        self,
        papers: Sequence[Paper],
        *,
        vocab: Vocabulary,
        indptr: np.ndarray,
        doc_ids: np.ndarray,
        tf: np.ndarray,
        df: np.ndarray,
        doc_len: np.ndarray,
        params: BM25Params,
        title_weight: int,
    ) -> None:
        """Assemble an index from its arrays; use `build` or `from_state`."""
        self.papers = tuple(papers)
        self._by_id = {p.id: i for i, p in enumerate(self.papers)}
        self._vocab = vocab
        self._indptr = indptr
        self._doc_ids = doc_ids
        self._tf = tf
        self._df = df
        self._doc_len = doc_len
        self.params = params
        self.title_weight = title_weight
        n = len(self.papers)
        self._idf_of, self._score_of = _VARIANTS[params.variant]
        # rank-bm25's statistics: avgdl, and per paper its length norm (times k1 where the
        # variant multiplies it, so `tf + dn` is computed exactly as rank-bm25 computes it).
        avgdl = int(doc_len.astype(np.int64).sum()) / n if n else 1.0
        norm = 1 - params.b + params.b * doc_len.astype(np.int64) / (avgdl or 1.0)
        self._dn = norm if params.variant == "BM25L" else params.k1 * norm
        self._okapi_floor = 0.0
        if params.variant == "BM25Okapi" and len(df):
            raw = np.log(n - df + 0.5) - np.log(df + 0.5)
            self._okapi_floor = params.epsilon * float(raw.mean())
        self._analyzer = Analyzer(max_cache=50_000)
        # Every contribution is > 0 (BM25Plus, BM25L: idf > 0; Okapi's floored idf may be ≤ 0).
        self._positive = params.variant != "BM25Okapi" and params.k1 > 0
        self._local = threading.local()

    @classmethod
    def build(
        cls,
        papers: Sequence[Paper],
        *,
        params: BM25Params = DEFAULT_PARAMS,
        title_weight: int = TITLE_WEIGHT,
    ) -> Index:
        """Analyse and index `papers`."""
        if params.variant not in _VARIANTS:
            bm25_params(params.variant)
        analyzer = Analyzer()
        first_seen: defaultdict[str, int] = defaultdict(count().__next__)
        term_ids = array("i")
        tfs = array("i")
        n = len(papers)
        doc_len = np.zeros(n, dtype=np.int64)
        unique_per_doc = np.zeros(n, dtype=np.int64)
        for row, paper in enumerate(papers):
            terms = document_terms(paper, analyzer, title_weight=title_weight)
            counts = Counter(terms)
            doc_len[row] = len(terms)
            unique_per_doc[row] = len(counts)
            term_ids.extend(map(first_seen.__getitem__, counts))
            tfs.extend(counts.values())
        del analyzer
        # Term ids become ranks in sorted order, so the vocabulary is a sorted blob.
        seen = list(first_seen)
        del first_seen
        by_term = sorted(range(len(seen)), key=seen.__getitem__)
        rank = np.empty(len(seen), dtype=np.int32)
        rank[by_term] = np.arange(len(seen), dtype=np.int32)
        vocab = Vocabulary.from_sorted([seen[i] for i in by_term])
        del seen, by_term
        posting_terms = rank[np.frombuffer(term_ids, dtype=np.int32)]
        order = np.argsort(posting_terms, kind="stable")
        doc_ids = np.repeat(np.arange(n, dtype=np.int32), unique_per_doc)[order]
        tf = np.frombuffer(tfs, dtype=np.int32)[order]
        tf = tf.astype(np.uint16 if not len(tf) or tf.max() < 2**16 else np.uint32)
        df = np.bincount(posting_terms, minlength=len(vocab)).astype(np.int32)
        del order, posting_terms, term_ids, tfs, rank
        indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        return cls(
            papers,
            vocab=vocab,
            indptr=indptr,
            doc_ids=doc_ids,
            tf=tf,
            df=df,
            doc_len=doc_len.astype(np.int32),
            params=params,
            title_weight=title_weight,
        )

    def to_state(self) -> dict[str, Any]:
        """Everything `from_state` needs besides the papers: numpy arrays and plain values."""
        return {
            "analyzer_version": ANALYZER_VERSION,
            "variant": self.params.variant,
            "k1": self.params.k1,
            "b": self.params.b,
            "epsilon": self.params.epsilon,
            "delta": self.params.delta,
            "title_weight": self.title_weight,
            "papers": len(self.papers),
            "terms": np.frombuffer(self._vocab._blob, dtype=np.uint8),
            "term_offsets": self._vocab._offsets,
            "indptr": self._indptr,
            "doc_ids": self._doc_ids,
            "tf": self._tf,
            "df": self._df,
            "doc_len": self._doc_len,
        }

    @classmethod
    def from_state(cls, papers: Sequence[Paper], state: Mapping[str, Any]) -> Index:
        """Rebuild from `to_state()` without analysing papers; `ValueError` if it does not fit."""
        try:
            if state["analyzer_version"] != ANALYZER_VERSION:
                raise ValueError("index state is from another analyzer version")
            if int(state["papers"]) != len(papers):
                raise ValueError("index state is for a different number of papers")
            vocab = Vocabulary(
                np.asarray(state["terms"], dtype=np.uint8).tobytes(),
                np.asarray(state["term_offsets"], dtype=np.int64),
            )
            indptr = np.asarray(state["indptr"], dtype=np.int64)
            doc_ids = np.asarray(state["doc_ids"], dtype=np.int32)
            tf = np.asarray(state["tf"])
            df = np.asarray(state["df"], dtype=np.int32)
            doc_len = np.asarray(state["doc_len"], dtype=np.int32)
            params = BM25Params(
                variant=str(state["variant"]),
                k1=float(state["k1"]),
                b=float(state["b"]),
                epsilon=float(state["epsilon"]),
                delta=float(state["delta"]),
            )
            title_weight = int(state["title_weight"])
        except (KeyError, TypeError) as error:
            raise ValueError(f"index state is incomplete: {error}") from error
        p = len(doc_ids)
        offsets = vocab._offsets
        consistent = (
            params.variant in _VARIANTS
            and offsets.ndim == 1
            and len(offsets) >= 1
            and offsets[0] == 0
            and offsets[-1] == len(vocab._blob)
            and bool(np.all(np.diff(offsets) >= 1))
            and len(vocab) == len(df)
            and indptr.shape == (len(df) + 1,)
            and indptr[0] == 0
            and indptr[-1] == p
            and bool(np.all(np.diff(indptr) == df))
            and tf.shape == (p,)
            and tf.dtype in (np.uint16, np.uint32)
            and doc_len.shape == (len(papers),)
            and (p == 0 or (int(doc_ids.min()) >= 0 and int(doc_ids.max()) < len(papers)))
        )
        if not consistent:
            raise ValueError("index state arrays are inconsistent")
        return cls(
            papers,
            vocab=vocab,
            indptr=indptr,
            doc_ids=doc_ids,
            tf=tf,
            df=df,
            doc_len=doc_len,
            params=params,
            title_weight=title_weight,
        )

    def __len__(self) -> int:
        return len(self.papers)

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this id, or None."""
        row = self._by_id.get(paper_id)
        return None if row is None else self.papers[row]

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """Every paper's score for these query terms: rank-bm25's `get_scores(terms)`."""
        ids, counts = self._term_ids(terms)
        scores = np.zeros(len(self.papers))
        for c, docs, contributions in self._postings(ids, counts):
            np.add.at(scores, docs, c * contributions)
        return scores + self._constant(ids, counts)

    def search(
        self, query: str, *, limit: int = 5, offset: int = 0, snippets: bool = True
    ) -> SearchResult:
        """Rank papers for `query`; never raises on any string.

        `snippets=False` leaves every `Hit.snippet` empty (for evaluations that rank only).
        """
        query = query if isinstance(query, str) else ""
        terms = tuple(analyze_query(query, self._analyzer))
        limit, offset = max(0, int(limit)), max(0, int(offset))
        ranked, scores, total = self._top(terms, offset + limit)
        unique = list(dict.fromkeys(terms))
        # Looked up once per query, not once per hit (analyze_query caps how many there are).
        weights = {t: self._term_weight(t) for t in unique}
        rows, scores = ranked[offset:], scores[offset:]
        coverage = self._coverage(unique, rows, weights)
        hits = self._hits(rows, scores, coverage, unique, weights, snippets=snippets)
        if offset:  # the best paper is ranked first whatever page is shown
            best = float(self._coverage(unique, ranked[:1], weights)[0]) if ranked.size else 0.0
        else:
            best = float(coverage[0]) if rows.size else 0.0
        return SearchResult(
            query=query,
            terms=terms,
            hits=hits,
            total=total,
            confident=best >= CONFIDENT_COVERAGE,
            offset=offset,
            confidence=best,
        )

    def similar(self, paper_id: str, *, limit: int = 5) -> tuple[Hit, ...]:
        """Papers most like `paper_id` (more-like-this); empty for an unknown id."""
        row = self._by_id.get(paper_id)
        if row is None or limit <= 0:
            return ()
        counts = Counter(document_terms(self.papers[row], self._analyzer))
        ids = {t: self._vocab.id(t) for t in counts}
        known = [t for t, i in ids.items() if i is not None and self._df[i] > 1]
        weights = {t: self._term_weight(t) for t in known}
        terms = sorted(known, key=lambda t: (-counts[t] * weights[t], t))[:SIMILAR_TERMS]
        rows, scores, _ = self._top(tuple(terms), limit + 1)
        coverage = self._coverage(terms, rows, weights)
        others = np.flatnonzero(rows != row)[:limit]
        return self._hits(rows[others], scores[others], coverage[others], terms, weights)

    def _hits(
        self,
        rows: np.ndarray,
        scores: np.ndarray,
        coverage: np.ndarray,
        terms: Sequence[str],
        weights: Mapping[str, float],
        *,
        snippets: bool = True,
    ) -> tuple[Hit, ...]:
        """Hits for ranked rows, each with its snippet for `terms` (or an empty one)."""
        return tuple(
            Hit(
                paper=self.papers[r],
                score=float(s),
                snippet=(
                    self.snippet(self.papers[r].abstract, terms, weights=weights)
                    if snippets
                    else Snippet("")
                ),
                coverage=float(c),
            )
            for r, s, c in zip(rows, scores, coverage, strict=True)
        )

    def snippet(
        self, text: str, terms: Sequence[str], *, weights: Mapping[str, float] | None = None
    ) -> Snippet:
        """The one or two sentences of `text` that best match `terms`, matches marked.

        `weights` may hold the terms' coverage weights already looked up (`search` does).
        """
        sentences = _sentences(text) or [(0, len(text))]
        if weights is None:
            weights = {t: self._term_weight(t) for t in terms}
        wanted = {t: weights[t] for t in terms}
        # Sentences end at whitespace, so each analyses as it does inside the whole text.
        found = {
            w: set(self._analyzer.analyze(text[w[0] : w[1]])) & wanted.keys() for w in sentences
        }
        pairs = [(a[0], b[1]) for a, b in pairwise(sentences) if b[1] - a[0] <= MAX_SNIPPET_CHARS]
        found.update({(a[0], b[1]): found[a] | found[b] for a, b in pairwise(sentences)})

        def weight(lo: int, hi: int) -> float:
            return sum(wanted[t] for t in found[lo, hi])

        if any(found.values()):
            # Most matched weight; then a window that fits, one sentence, the earlier one.
            lo, hi = max(
                sentences + pairs,
                key=lambda w: (
                    weight(*w),
                    w[1] - w[0] <= MAX_SNIPPET_CHARS,
                    w in sentences,
                    -w[0],
                ),
            )
            if (lo, hi) in sentences:
                lo, hi = self._add_neighbour(sentences, (lo, hi), weight)
        else:
            lo, hi = sentences[0]
            if len(sentences) > 1 and sentences[1][1] - lo <= MAX_SNIPPET_CHARS:
                hi = sentences[1][1]
        window = text[lo:hi]
        return _clip(window, _merge(self._marks(window, wanted)), MAX_SNIPPET_CHARS)

    def _marks(self, text: str, wanted: Mapping[str, float]) -> list[tuple[int, int]]:
        """Spans of the `wanted` terms in `text`.

        Spans need the slow, uncached `analyze_spans`; ASCII text analyses word by word
        (whitespace-separated chunks) exactly as whole, so only the chunks whose cached terms
        include a wanted one are analysed for spans.
        """
        if not text.isascii():
            return [(s, e) for t, s, e in self._analyzer.analyze_spans(text) if t in wanted]
        analyze, spans = self._analyzer.analyze, self._analyzer.analyze_spans
        return [
            (chunk.start() + s, chunk.start() + e)
            for chunk in _CHUNK.finditer(text)
            if not wanted.keys().isdisjoint(analyze(chunk[0]))
            for t, s, e in spans(chunk[0])
            if t in wanted
        ]

    def stats(self) -> IndexStats:
        """Counts and approximate memory for /stats."""
        arrays = (
            self._indptr,
            self._doc_ids,
            self._tf,
            self._df,
            self._doc_len,
            self._dn,
        )
        return IndexStats(
            papers=len(self.papers),
            sources=len({p.source for p in self.papers}),
            terms=len(self._vocab),
            postings=len(self._doc_ids),
            memory_bytes=sum(a.nbytes for a in arrays) + self._vocab.nbytes,
        )

    # --- internals -------------------------------------------------------------------------

    def _term_ids(self, terms: Sequence[str]) -> tuple[list[int], list[int]]:
        """Known query terms as ids with their multiplicity (rank-bm25 counts repeats)."""
        counts = Counter(i for i in map(self._vocab.id, terms) if i is not None)
        return list(counts), list(counts.values())

    def _term_weight(self, term: str) -> float:
        """Coverage weight of a term: log((N+1)/(df+0.5)), with df=0 for an unknown term."""
        tid = self._vocab.id(term)
        df = 0 if tid is None else int(self._df[tid])
        return math.log((len(self.papers) + 1) / (df + 0.5))

    def _idf(self, ids: list[int]) -> np.ndarray:
        """The variant's idf of these terms, as rank-bm25 computes it."""
        df = self._df[ids].astype(np.float64)
        return self._idf_of(self.params, len(self.papers), df, self._okapi_floor)

    def _constant(self, ids: list[int], counts: list[int]) -> float:
        """What the query adds to every paper's score (BM25Plus: idf × delta per term)."""
        if self.params.variant != "BM25Plus" or not ids:
            return 0.0
        return float(np.dot(counts, self._idf(ids) * self.params.delta))

    def _postings(
        self, ids: list[int], counts: list[int]
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Per query term: multiplicity, papers holding it, and its contribution to each."""
        for t, c, idf in zip(ids, counts, self._idf(ids).tolist(), strict=True):
            lo, hi = self._indptr[t], self._indptr[t + 1]
            docs = self._doc_ids[lo:hi]
            tf = self._tf[lo:hi].astype(np.float64)
            yield c, docs, self._score_of(self.params, idf, tf, self._dn.take(docs))

    def _top(self, terms: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray, int]:
        """The `k` best rows (score desc, row asc) among papers holding a query term."""
        ids, counts = self._term_ids(terms)
        empty = np.zeros(0, dtype=np.int64)
        if not ids:
            return empty, np.zeros(0), 0
        if len(ids) == 1:
            # One term: its postings are the candidates, their contributions the scores.
            ((c, rows, scores),) = self._postings(ids, counts)
            if c != 1:
                scores = c * scores
        elif self._positive:
            rows, scores = self._accumulate(ids, counts)
        else:
            rows, scores = self._accumulate_masked(ids, counts)
        total = len(rows)
        if k <= 0:
            return empty, np.zeros(0), total
        if k < total:
            kth = np.partition(scores, total - k)[total - k]
            keep = scores >= kth
            rows, scores = rows[keep], scores[keep]
        order = np.lexsort((rows, -scores))[:k]
        constant = self._constant(ids, counts)
        return rows[order].astype(np.int64), scores[order] + constant, total

    def _accumulate(self, ids: list[int], counts: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Papers holding a query term and their summed contributions (all contributions > 0).

        Sums into a zeroed per-thread buffer of one float per paper, in query-term order as
        rank-bm25 does; a paper is new to the candidates when its sum is still 0, so no
        paper-sized mask or scan is needed. The buffer is zeroed again before returning.
        """
        buffer = self._buffer()
        found: list[np.ndarray] = []
        try:
            for c, held, contributions in self._postings(ids, counts):
                docs = held.astype(np.intp)  # numpy indexes with intp; int32 is converted
                found.append(docs[buffer.take(docs) == 0] if found else docs)
                np.add.at(buffer, docs, c * contributions if c != 1 else contributions)
            rows = np.concatenate(found)
            scores = buffer.take(rows)
        finally:
            if found and sum(map(len, found)) < len(buffer) // 8:
                for docs in found:
                    buffer[docs] = 0.0
            else:
                buffer.fill(0.0)
        return rows, scores

    def _accumulate_masked(
        self, ids: list[int], counts: list[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """`_accumulate` for variants whose contributions may be 0 or negative (BM25Okapi)."""
        scores = np.zeros(len(self.papers))
        held = np.zeros(len(self.papers), dtype=bool)
        for c, docs, contributions in self._postings(ids, counts):
            np.add.at(scores, docs, c * contributions if c != 1 else contributions)
            held[docs] = True
        rows = np.flatnonzero(held)
        return rows, scores[rows]

    def _buffer(self) -> np.ndarray:
        """This thread's zeroed float per paper (searches run in several threads at once)."""
        buffer = getattr(self._local, "buffer", None)
        if buffer is None:
            buffer = self._local.buffer = np.zeros(len(self.papers))
        return buffer

    def _coverage(
        self, terms: Sequence[str], rows: np.ndarray, weights: Mapping[str, float] | None = None
    ) -> np.ndarray:
        """For each row, the share of the terms' coverage weight that the paper contains."""
        result = np.zeros(len(rows))
        if not len(terms) or not len(rows):
            return result
        total = 0.0
        for term in terms:
            w = weights[term] if weights is not None else self._term_weight(term)
            total += w
            tid = self._vocab.id(term)
            if tid is None:
                continue
            docs = self._doc_ids[self._indptr[tid] : self._indptr[tid + 1]]
            pos = np.searchsorted(docs, rows)
            hit = pos < len(docs)
            hit[hit] = docs[pos[hit]] == rows[hit]
            result += w * hit
        return result / total if total > 0 else result

    @staticmethod
    def _add_neighbour(
        sentences: list[tuple[int, int]],
        chosen: tuple[int, int],
        weight: Callable[[int, int], float],
    ) -> tuple[int, int]:
        """Add the better-matching (else the next) neighbour sentence if the pair still fits."""
        i = sentences.index(chosen)
        options = []
        if i + 1 < len(sentences):
            options.append((chosen[0], sentences[i + 1][1], weight(*sentences[i + 1]), 1))
        if i > 0:
            options.append((sentences[i - 1][0], chosen[1], weight(*sentences[i - 1]), 0))
        fitting = [o for o in options if o[1] - o[0] <= MAX_SNIPPET_CHARS]
        if not fitting:
            return chosen
        lo, hi, _, _ = max(fitting, key=lambda o: (o[2], o[3]))
        return lo, hi
