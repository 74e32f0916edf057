"""BM25 over term lists: rank-bm25's `BM25Plus` scores, computed from CSR postings.

A contribution is idf × a weight of the posting's (tf, document length) pair, and a corpus has
few distinct pairs, so the weights are one small table computed with rank-bm25's formulas and
operation order: the scores are rank-bm25's to the bit. Rows are document numbers; nothing
here knows about papers.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bot.search.rank.postings import Postings, build_postings
from bot.search.rank.vocabulary import Vocabulary


@dataclass(frozen=True, slots=True)
class BM25Params:
    """rank_bm25.BM25Plus's parameters, with its defaults."""

    k1: float = 1.5
    b: float = 0.75
    delta: float = 1.0


DEFAULT_PARAMS = BM25Params()


class BM25:
    """Immutable BM25 postings and statistics; safe to query from several threads at once."""

    def __init__(self, postings: Postings) -> None:
        """Assemble from postings; use `build` or `from_state`."""
        self.vocab = postings.vocab
        self._csr = postings
        self.size = n = len(postings.doc_len)
        doc_len, pair_len, pair_tf = postings.doc_len, postings.pair_len, postings.pair_tf
        # rank-bm25's avgdl and length norm, then each pair's weight in its operation order
        # (`idf * (tf * (k1 + 1) / (dn + tf))`: idf × this weight gives the same bits).
        k1, b = DEFAULT_PARAMS.k1, DEFAULT_PARAMS.b
        avgdl = int(doc_len.astype(np.int64).sum()) / n if n else 1.0
        dn = k1 * (1 - b + b * pair_len.astype(np.int64) / (avgdl or 1.0))
        tf = pair_tf.astype(np.float64)
        self._weight = tf * (k1 + 1) / (dn + tf)
        self._local = threading.local()

    @classmethod
    def build(
        cls,
        documents: Iterable[list[str]],
        *,
        payloads: Iterable[Mapping[str, int]] | None = None,
    ) -> BM25:
        """Index documents as term lists; `payloads`: a uint16 per document for its postings."""
        return cls(build_postings(documents, payloads))

    def to_state(self) -> dict[str, Any]:
        """Everything `from_state` needs: numpy arrays and plain values."""
        return {
            "terms": np.frombuffer(self.vocab._blob, dtype=np.uint8),
            "term_offsets": self.vocab._offsets,
            **self._csr.arrays(),
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any], *, size: int) -> BM25:
        """Rebuild from `to_state()` for `size` documents; `ValueError` if it does not fit."""
        try:
            vocab = Vocabulary(
                np.asarray(state["terms"], dtype=np.uint8).tobytes(),
                np.asarray(state["term_offsets"], dtype=np.int64),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"index state is incomplete: {error}") from error
        return cls(Postings.from_arrays(vocab, state, size=size))

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
        csr = self._csr
        if tid is None:
            return csr.doc_ids[:0]
        return csr.doc_ids[csr.indptr[tid] : csr.indptr[tid + 1]]

    def tf(self, term: str, rows: np.ndarray) -> np.ndarray:
        """How often `term` occurs in each of `rows` (0 where it does not), as int64."""
        return self.lookup(term, rows)[0]

    def lookup(self, term: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`tf(term, rows)`, and the payload kept with each row's posting (0 where none)."""
        tid = self.vocab.id(term)
        if tid is None or not len(rows):
            return np.zeros(len(rows), dtype=np.int64), np.zeros(len(rows), dtype=np.uint16)
        csr = self._csr
        lo, hi = csr.indptr[tid], csr.indptr[tid + 1]
        docs = csr.doc_ids[lo:hi]
        # Rows in the postings' dtype: else searchsorted converts every posting of the term.
        rows = np.asarray(rows).astype(docs.dtype)
        pos = np.minimum(docs.searchsorted(rows), len(docs) - 1)  # the place, or the last
        absent = docs.take(pos) != rows
        found = csr.pair_tf.take(csr.pair[lo:hi].take(pos))
        kept = csr.payload[lo:hi].take(pos)
        found[absent] = 0
        kept[absent] = 0
        return found, kept

    def df(self, term: str) -> int:
        """How many documents hold `term`."""
        tid = self.vocab.id(term)
        return 0 if tid is None else int(self._csr.df[tid])

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays and the vocabulary."""
        arrays = [*self._csr.arrays().values(), self._weight]
        return sum(a.nbytes for a in arrays) + self.vocab.nbytes

    @property
    def postings(self) -> int:
        """How many (term, document) pairs are indexed."""
        return len(self._csr.doc_ids)

    def _term_ids(self, terms: Sequence[str]) -> tuple[list[int], list[int]]:
        """Known query terms as ids with their multiplicity (rank-bm25 counts repeats)."""
        counts: dict[int, int] = {}  # first-seen order, as a Counter (without its overhead)
        for i in map(self.vocab.id, terms):
            if i is not None:
                counts[i] = counts.get(i, 0) + 1
        return list(counts), list(counts.values())

    def _idf(self, ids: list[int]) -> np.ndarray:
        """rank_bm25.BM25Plus's idf of these terms: log((N + 1) / df)."""
        return np.log((self.size + 1) / self._csr.df[ids].astype(np.float64))

    def _constant(self, counts: list[int], idf: np.ndarray) -> float:
        """What the query adds to every document's score: idf × delta per term."""
        return float(np.dot(counts, idf * DEFAULT_PARAMS.delta)) if counts else 0.0

    def _postings(
        self, ids: list[int], counts: list[int], idf: np.ndarray
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Per query term: multiplicity, documents holding it, and its contribution to each."""
        csr = self._csr
        for t, c, term_idf in zip(ids, counts, idf.tolist(), strict=True):
            lo, hi = csr.indptr[t], csr.indptr[t + 1]
            # The pairs' table scaled (few pairs), then gathered: the same products, one pass
            # over the postings. "wrap" skips the bounds check: `from_state` checked each pair.
            contributions = (self._weight * term_idf).take(csr.pair[lo:hi], mode="wrap")
            yield c, csr.doc_ids[lo:hi], contributions

    def top(
        self, terms: Sequence[str], k: int, *, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """The `k` best rows (score desc, row asc) holding a query term, and how many hold one.

        Only rows `mask` allows are candidates, and are counted.
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
        else:
            rows, scores = self._accumulate(ids, counts, idf)
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
        """Documents holding a query term and their summed contributions.

        Sums in rank-bm25's order into a zeroed per-thread buffer; every contribution is above 0, so
        a sum still 0 marks a new candidate. The buffer is zeroed again before returning.
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

    A strided sample's k-th best is a safe lower bound, leaving few candidates to partition.
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
