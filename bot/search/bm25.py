"""BM25 over term lists: rank-bm25's scores, computed from CSR postings.

Scores are exactly those of rank-bm25's classes (`BM25Plus` by default) for the same token
lists, computed the fast way: BM25 is a sum over query terms of per-(term, document)
contributions, so `BM25` keeps CSR postings plus rank-bm25's own statistics (df, document
lengths, avgdl, k1, b, delta), and a query computes the contributions of its terms'
postings only. Every variant's contribution is idf × a weight of the posting's (tf,
document length) pair, and a corpus has few distinct pairs, so a posting is its document
row (int32) and its pair's number (uint16), and the pairs' weights are one small table
computed with rank-bm25's formulas and operation order: a query term costs a lookup in a
cache-resident table and one multiply by idf. rank_bm25.BM25Plus also gives documents
*without* a term `idf * delta`; that share is the same for every document, so
`BM25._constant` adds it once per query term to every score, which keeps `scores()` equal
to rank-bm25's `get_scores`. The variants' formulas are in `scoring`. Each posting also
keeps a uint16 its builder gives (the index: the sentences of the paper's abstract holding
the term), read with its tf by `lookup`.

Nothing here knows about papers, analysis or snippets: rows are document numbers.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from bot.search.postings import build_postings, consistent
from bot.search.scoring import DEFAULT_PARAMS, VARIANTS, BM25Params, bm25_params
from bot.search.vocabulary import Vocabulary

__all__ = ["BM25", "DEFAULT_PARAMS", "BM25Params", "bm25_params"]


class BM25:
    """Immutable BM25 postings and statistics; safe to query from several threads at once."""

    def __init__(
        self,
        *,
        vocab: Vocabulary,
        indptr: np.ndarray,
        doc_ids: np.ndarray,
        pair: np.ndarray,
        pair_tf: np.ndarray,
        pair_len: np.ndarray,
        df: np.ndarray,
        doc_len: np.ndarray,
        payload: np.ndarray,
        params: BM25Params,
    ) -> None:
        """Assemble from arrays (a posting's tf is `pair_tf[pair]`); use `build` or `from_state`.

        payload: a uint16 per posting that the builder kept with it (`lookup` reads it).
        """
        self.vocab = vocab
        self._indptr = indptr
        self._doc_ids = doc_ids
        self._pair = pair
        self._pair_tf = pair_tf
        self._pair_len = pair_len
        self._df = df
        self._doc_len = doc_len
        self._payload = payload
        self.params = params
        self.size = n = len(doc_len)
        self._idf_of, self._score_of = VARIANTS[params.variant]
        # rank-bm25's statistics: avgdl, and per document its length norm (times k1 where the
        # variant multiplies it, so `tf + dn` is computed exactly as rank-bm25 computes it).
        avgdl = int(doc_len.astype(np.int64).sum()) / n if n else 1.0
        norm = 1 - params.b + params.b * pair_len.astype(np.int64) / (avgdl or 1.0)
        dn = norm if params.variant == "BM25L" else params.k1 * norm
        self._weight = self._score_of(params, pair_tf.astype(np.float64), dn)
        self._okapi_floor = 0.0
        if params.variant == "BM25Okapi" and len(df):
            raw = np.log(n - df + 0.5) - np.log(df + 0.5)
            self._okapi_floor = params.epsilon * float(raw.mean())
        # Every contribution is > 0 (BM25Plus, BM25L: idf > 0; Okapi's floored idf may be ≤ 0).
        self._positive = params.variant != "BM25Okapi" and params.k1 > 0
        self._local = threading.local()

    @classmethod
    def build(
        cls,
        documents: Iterable[list[str]],
        *,
        params: BM25Params = DEFAULT_PARAMS,
        payloads: Iterable[Mapping[str, int]] | None = None,
    ) -> BM25:
        """Index documents given as term lists (a document's row is its position).

        payloads: per document, read in step with it, a uint16 to keep with each of its
        terms' postings (`postings.build_postings`).
        """
        if params.variant not in VARIANTS:
            bm25_params(params.variant)
        return cls(**build_postings(documents, payloads), params=params)

    def to_state(self) -> dict[str, Any]:
        """Everything `from_state` needs: numpy arrays and plain values."""
        return {
            "variant": self.params.variant,
            "k1": self.params.k1,
            "b": self.params.b,
            "epsilon": self.params.epsilon,
            "delta": self.params.delta,
            "terms": np.frombuffer(self.vocab._blob, dtype=np.uint8),
            "term_offsets": self.vocab._offsets,
            "indptr": self._indptr,
            "doc_ids": self._doc_ids,
            "pair": self._pair,
            "pair_tf": self._pair_tf,
            "pair_len": self._pair_len,
            "df": self._df,
            "doc_len": self._doc_len,
            "payload": self._payload,
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any], *, size: int) -> BM25:
        """Rebuild from `to_state()` for `size` documents; `ValueError` if it does not fit."""
        try:
            vocab = Vocabulary(
                np.asarray(state["terms"], dtype=np.uint8).tobytes(),
                np.asarray(state["term_offsets"], dtype=np.int64),
            )
            arrays = {
                "indptr": np.asarray(state["indptr"], dtype=np.int64),
                "doc_ids": np.asarray(state["doc_ids"], dtype=np.int32),
                "pair": np.asarray(state["pair"]),
                "pair_tf": np.asarray(state["pair_tf"], dtype=np.int64),
                "pair_len": np.asarray(state["pair_len"], dtype=np.int64),
                "df": np.asarray(state["df"], dtype=np.int32),
                "doc_len": np.asarray(state["doc_len"], dtype=np.int32),
                "payload": np.asarray(state["payload"]),
            }
            params = BM25Params(
                variant=str(state["variant"]),
                k1=float(state["k1"]),
                b=float(state["b"]),
                epsilon=float(state["epsilon"]),
                delta=float(state["delta"]),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"index state is incomplete: {error}") from error
        if params.variant not in VARIANTS or not consistent(vocab, size=size, **arrays):
            raise ValueError("index state arrays are inconsistent")
        return cls(vocab=vocab, params=params, **arrays)

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """Every document's score for these query terms: rank-bm25's `get_scores(terms)`."""
        ids, counts = self._term_ids(terms)
        idf = self._idf(ids)
        scores = np.zeros(self.size)
        for c, docs, contributions in self._postings(ids, counts, idf):
            np.add.at(scores, docs, c * contributions)
        return scores + self._constant(counts, idf)

    def docs(self, term: str) -> np.ndarray:
        """Sorted rows of the documents holding `term` (empty if unknown)."""
        tid = self.vocab.id(term)
        if tid is None:
            return self._doc_ids[:0]
        return self._doc_ids[self._indptr[tid] : self._indptr[tid + 1]]

    def tf(self, term: str, rows: np.ndarray) -> np.ndarray:
        """How often `term` occurs in each of `rows` (0 where it does not), as int64."""
        return self.lookup(term, rows)[0]

    def lookup(self, term: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`tf(term, rows)`, and the payload kept with each row's posting (0 where none)."""
        tid = self.vocab.id(term)
        if tid is None or not len(rows):
            return np.zeros(len(rows), dtype=np.int64), np.zeros(len(rows), dtype=np.uint16)
        lo, hi = self._indptr[tid], self._indptr[tid + 1]
        docs = self._doc_ids[lo:hi]
        # Rows in the postings' dtype: else searchsorted converts every posting of the term.
        rows = np.asarray(rows).astype(docs.dtype)
        pos = np.minimum(docs.searchsorted(rows), len(docs) - 1)  # the place, or the last
        absent = docs.take(pos) != rows
        found = self._pair_tf.take(self._pair[lo:hi].take(pos))
        kept = self._payload[lo:hi].take(pos)
        found[absent] = 0
        kept[absent] = 0
        return found, kept

    def df(self, term: str) -> int:
        """How many documents hold `term`."""
        tid = self.vocab.id(term)
        return 0 if tid is None else int(self._df[tid])

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays and the vocabulary."""
        arrays = (self._indptr, self._doc_ids, self._pair, self._df, self._doc_len)
        arrays += (self._pair_tf, self._pair_len, self._weight, self._payload)
        return sum(a.nbytes for a in arrays) + self.vocab.nbytes

    @property
    def postings(self) -> int:
        """How many (term, document) pairs are indexed."""
        return len(self._doc_ids)

    def _term_ids(self, terms: Sequence[str]) -> tuple[list[int], list[int]]:
        """Known query terms as ids with their multiplicity (rank-bm25 counts repeats)."""
        counts: dict[int, int] = {}  # first-seen order, as a Counter (without its overhead)
        for i in map(self.vocab.id, terms):
            if i is not None:
                counts[i] = counts.get(i, 0) + 1
        return list(counts), list(counts.values())

    def _idf(self, ids: list[int]) -> np.ndarray:
        """The variant's idf of these terms, as rank-bm25 computes it."""
        df = self._df[ids].astype(np.float64)
        return self._idf_of(self.params, self.size, df, self._okapi_floor)

    def _constant(self, counts: list[int], idf: np.ndarray) -> float:
        """What the query adds to every document's score (BM25Plus: idf × delta per term)."""
        if self.params.variant != "BM25Plus" or not counts:
            return 0.0
        return float(np.dot(counts, idf * self.params.delta))

    def _postings(
        self, ids: list[int], counts: list[int], idf: np.ndarray
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Per query term: multiplicity, documents holding it, and its contribution to each."""
        for t, c, term_idf in zip(ids, counts, idf.tolist(), strict=True):
            lo, hi = self._indptr[t], self._indptr[t + 1]
            # The pairs' table scaled (few pairs), then gathered: the same products, one pass
            # over the postings. "wrap" skips the bounds check: `from_state` checked each pair.
            contributions = (self._weight * term_idf).take(self._pair[lo:hi], mode="wrap")
            yield c, self._doc_ids[lo:hi], contributions

    def top(
        self, terms: Sequence[str], k: int, *, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """The `k` best rows (score desc, row asc) holding a query term, and how many hold one.

        mask: one bool per document; only rows it allows are candidates (query syntax's
        conditions), so the `k` best are the best of those, counted among those.
        """
        ids, counts = self._term_ids(terms)
        empty = np.zeros(0, dtype=np.int64)
        if not ids:
            return empty, np.zeros(0), 0
        idf = self._idf(ids)  # once: the constant below needs the same numbers
        if len(ids) == 1:
            # One term: its postings are the candidates, their contributions the scores.
            ((c, rows, scores),) = self._postings(ids, counts, idf)
            if c != 1:
                scores = c * scores
        elif self._positive:
            rows, scores = self._accumulate(ids, counts, idf)
        else:
            rows, scores = self._accumulate_masked(ids, counts, idf)
        if mask is not None:  # before the top-k cut: the best of the allowed, not of all
            keep = mask[rows]
            rows, scores = rows[keep], scores[keep]
        total = len(rows)
        if k <= 0:
            return empty, np.zeros(0), total
        if k < total:
            rows, scores = _at_least_kth(rows, scores, k)
        order = np.lexsort((rows, -scores))[:k]
        constant = self._constant(counts, idf)
        return rows[order].astype(np.int64), scores[order] + constant, total

    def _accumulate(
        self, ids: list[int], counts: list[int], idf: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Documents holding a query term and their summed contributions (all contributions > 0).

        Sums into a zeroed per-thread buffer of one float per document, in query-term order as
        rank-bm25 does; a document is new to the candidates when its sum is still 0, so no
        document-sized mask or scan is needed. The buffer is zeroed again before returning.
        """
        buffer = self._buffer()
        found: list[np.ndarray] = []
        try:
            for c, held, contributions in self._postings(ids, counts, idf):
                docs = held.astype(np.intp)  # numpy indexes with intp; int32 is converted
                add = c * contributions if c != 1 else contributions
                if found:  # a term's documents are distinct: gather, add, scatter back
                    current = buffer.take(docs)
                    # compress, not docs[mask]: faster on a mask of mixed True/False
                    found.append(docs.compress(current == 0))
                    current += add
                    buffer.put(docs, current)
                else:  # into zeros (0.0 + x is x): a plain scatter, cheaper than add.at
                    found.append(docs)
                    buffer[docs] = add
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
        self, ids: list[int], counts: list[int], idf: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """`_accumulate` for variants whose contributions may be 0 or negative (BM25Okapi)."""
        scores = np.zeros(self.size)
        held = np.zeros(self.size, dtype=bool)
        for c, docs, contributions in self._postings(ids, counts, idf):
            np.add.at(scores, docs, c * contributions if c != 1 else contributions)
            held[docs] = True
        rows = np.flatnonzero(held)
        return rows, scores[rows]

    def _buffer(self) -> np.ndarray:
        """This thread's zeroed float per document (searches run in several threads at once)."""
        buffer = getattr(self._local, "buffer", None)
        if buffer is None:
            buffer = self._local.buffer = np.zeros(self.size)
        return buffer


SAMPLE = 1024
"""Scores sampled for a first lower bound of the k-th best (see `_at_least_kth`)."""


def _at_least_kth(rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows (and scores) scoring at least the `k`-th best score, ties included.

    Any subset's k-th best is at most the whole set's, so the k-th best of a strided sample is
    a safe lower bound: it leaves few candidates for the exact partition (one compare pass
    instead of a partition of every candidate's score).
    """
    n = len(scores)
    if n > 4 * SAMPLE and k < SAMPLE:
        sample = scores[:: n // SAMPLE]
        bound = np.partition(sample, len(sample) - k)[len(sample) - k]
        keep = np.flatnonzero(scores >= bound)
        rows, scores = rows.take(keep), scores.take(keep)
        n = len(scores)
    if k < n:
        kth = np.partition(scores, n - k)[n - k]
        keep = np.flatnonzero(scores >= kth)
        rows, scores = rows.take(keep), scores.take(keep)
    return rows, scores
