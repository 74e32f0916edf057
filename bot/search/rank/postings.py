"""The postings' arrays that `BM25` is made of: built from term lists, checked when loaded."""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from itertools import count, repeat
from typing import Any, ClassVar

import numpy as np

from bot.search.rank.vocabulary import Vocabulary


@dataclass(frozen=True, slots=True)
class Postings:
    """CSR postings: term `t` owns `[indptr[t], indptr[t + 1])`: row, pair number, payload each."""

    vocab: Vocabulary
    indptr: np.ndarray
    doc_ids: np.ndarray
    pair: np.ndarray
    """Per posting, its pair's number: `pair_tf[pair]` is its tf, `pair_len[pair]` its
    document's length."""
    pair_tf: np.ndarray
    pair_len: np.ndarray
    df: np.ndarray
    doc_len: np.ndarray
    payload: np.ndarray

    DTYPES: ClassVar[dict[str, Any]] = {
        "indptr": np.int64, "doc_ids": np.int32, "pair": None, "pair_tf": np.int64,
        "pair_len": np.int64, "df": np.int32, "doc_len": np.int32, "payload": None,
    }  # fmt: skip
    """Each array's dtype once loaded (None: as stored; `consistent` checks it)."""

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays by name (`from_arrays` takes them back)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "vocab"}

    @classmethod
    def from_arrays(cls, vocab: Vocabulary, arrays: Mapping[str, Any], *, size: int) -> Postings:
        """From `arrays()` as stored, for `size` documents; `ValueError` if they do not fit."""
        try:
            loaded = {name: np.asarray(arrays[name], dtype=t) for name, t in cls.DTYPES.items()}
        except (KeyError, TypeError) as error:
            raise ValueError(f"index state is incomplete: {error}") from error
        postings = cls(vocab, **loaded)
        if not postings.consistent(size):
            raise ValueError("index state arrays are inconsistent")
        return postings

    def consistent(self, size: int) -> bool:
        """True if the arrays form valid postings for `size` documents (a cache may be damaged)."""
        p, df, indptr = len(self.doc_ids), self.df, self.indptr
        pair, pair_tf = self.pair, self.pair_tf
        offsets = self.vocab._offsets
        return (
            offsets.ndim == 1
            and len(offsets) >= 1
            and offsets[0] == 0
            and offsets[-1] == len(self.vocab._blob)
            and bool(np.all(np.diff(offsets) >= 1))
            and len(self.vocab) == len(df)
            and indptr.shape == (len(df) + 1,)
            and indptr[0] == 0
            and indptr[-1] == p
            and bool(np.all(np.diff(indptr) == df))
            and pair.shape == (p,)
            and pair.dtype in (np.uint16, np.uint32)
            and pair_tf.ndim == 1
            and self.pair_len.shape == pair_tf.shape
            and (p == 0 or int(pair.max()) < len(pair_tf))
            and self.doc_len.shape == (size,)
            and self.payload.shape == (p,)
            and self.payload.dtype == np.uint16
            and (p == 0 or (int(self.doc_ids.min()) >= 0 and int(self.doc_ids.max()) < size))
        )


def build_postings(
    documents: Iterable[list[str]], payloads: Iterable[Mapping[str, int]] | None = None
) -> Postings:
    """CSR postings of documents as term lists; `payloads`: per document, a uint16 (None: 0)."""
    seen, term_ids, tfs, kept, lengths, unique = _read(documents, payloads)
    n = len(lengths)
    # Term ids become ranks in sorted order, so the vocabulary is a sorted blob.
    by_term = sorted(range(len(seen)), key=seen.__getitem__)
    rank = np.empty(len(seen), dtype=np.int32)
    rank[by_term] = np.arange(len(seen), dtype=np.int32)
    vocab = Vocabulary.from_sorted([seen[i] for i in by_term])
    del seen, by_term
    posting_terms = rank[np.frombuffer(term_ids, dtype=np.int32)]
    order = np.argsort(posting_terms, kind="stable")
    unique_per_doc = np.frombuffer(unique, dtype=np.int64) if n else np.zeros(0, np.int64)
    doc_ids = np.repeat(np.arange(n, dtype=np.int32), unique_per_doc)[order]
    tf = np.frombuffer(tfs, dtype=np.int32)[order]
    payload = np.frombuffer(kept, dtype=np.uint16)[order]
    doc_len = np.frombuffer(lengths, dtype=np.int64) if n else np.zeros(0, np.int64)
    df = np.bincount(posting_terms, minlength=len(vocab)).astype(np.int32)
    del order, posting_terms, term_ids, tfs, kept, rank
    pair, pair_tf, pair_len = number_pairs(tf, doc_len, doc_ids)
    del tf
    indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    return Postings(
        vocab, indptr, doc_ids, pair, pair_tf, pair_len, df, doc_len.astype(np.int32), payload
    )


def _read(
    documents: Iterable[list[str]], payloads: Iterable[Mapping[str, int]] | None
) -> tuple[list[str], array[int], array[int], array[int], array[int], array[int]]:
    """Terms first-seen; per posting its term, tf and payload; per document its size."""
    first_seen: defaultdict[str, int] = defaultdict(count().__next__)
    term_ids, tfs, kept = array("i"), array("i"), array("H")
    lengths, unique = array("q"), array("q")
    pairs = zip(documents, payloads, strict=True) if payloads is not None else None
    for terms, payload in pairs or ((d, {}) for d in documents):
        counts = Counter(terms)
        lengths.append(len(terms))
        unique.append(len(counts))
        term_ids.extend(map(first_seen.__getitem__, counts))
        tfs.extend(counts.values())
        kept.extend(map(payload.get, counts, repeat(0)))
    return list(first_seen), term_ids, tfs, kept, lengths, unique


def number_pairs(
    tf: np.ndarray, doc_len: np.ndarray, doc_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Number the postings' distinct (tf, length) pairs in (length, tf) order: (pair, tf, length).

    A bitmap over a small grid finds them in one pass, in int32 and in place to keep peak memory
    down; a large grid falls back to `np.unique`.
    """
    if not len(tf):
        return np.zeros(0, np.uint16), np.zeros(0, np.int64), np.zeros(0, np.int64)
    width = int(tf.max()) + 1
    span = (int(doc_len.max()) + 1) * width
    if span <= 1 << 22:  # 4 MB of flags and 16 MB of numbers at most
        key = doc_len.astype(np.int32).take(doc_ids)
        key *= width
        key += tf
        present = np.zeros(span, dtype=bool)
        present[key] = True
        keys = np.flatnonzero(present)
        number = np.cumsum(present, dtype=np.int32)
        number -= 1
        pair = number.take(key)
        del key
    else:
        keys, pair = np.unique(
            doc_len.astype(np.int64).take(doc_ids) * width + tf, return_inverse=True
        )
    pair = pair.astype(np.uint16 if len(keys) <= 2**16 else np.uint32)
    return pair, keys % width, keys // width
