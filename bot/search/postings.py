"""The postings' arrays: numbering (tf, document length) pairs at build, checking a loaded set.

Helpers of `bot.search.bm25` kept apart so the index's query path reads on its own.
"""

from __future__ import annotations

import numpy as np

from bot.search.vocabulary import Vocabulary

__all__ = ["consistent", "number_pairs"]


def consistent(
    vocab: Vocabulary,
    *,
    size: int,
    indptr: np.ndarray,
    doc_ids: np.ndarray,
    pair: np.ndarray,
    pair_tf: np.ndarray,
    pair_len: np.ndarray,
    df: np.ndarray,
    doc_len: np.ndarray,
) -> bool:
    """True if the arrays form valid postings for `size` documents (a cache may be damaged)."""
    p = len(doc_ids)
    offsets = vocab._offsets
    return (
        offsets.ndim == 1
        and len(offsets) >= 1
        and offsets[0] == 0
        and offsets[-1] == len(vocab._blob)
        and bool(np.all(np.diff(offsets) >= 1))
        and len(vocab) == len(df)
        and indptr.shape == (len(df) + 1,)
        and indptr[0] == 0
        and indptr[-1] == p
        and bool(np.all(np.diff(indptr) == df))
        and pair.shape == (p,)
        and pair.dtype in (np.uint16, np.uint32)
        and pair_tf.ndim == 1
        and pair_len.shape == pair_tf.shape
        and (p == 0 or int(pair.max()) < len(pair_tf))
        and doc_len.shape == (size,)
        and (p == 0 or (int(doc_ids.min()) >= 0 and int(doc_ids.max()) < size))
    )


def number_pairs(
    tf: np.ndarray, doc_len: np.ndarray, doc_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Number the postings' distinct (tf, document length) pairs: (pair per posting, tf, length).

    Pairs are numbered in (length, tf) order. A bitmap over the (length, tf) grid finds them
    in one pass when the grid is small (it is for real abstracts), else `np.unique` sorts;
    the bitmap path works in int32, in place, to keep the build's peak memory down.
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
