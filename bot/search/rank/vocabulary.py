"""The sorted term list of an index, stored compactly."""

from __future__ import annotations

import sys
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

TERM_CACHE = 4096
"""Term -> id lookups each vocabulary remembers (a search looks each term up several times)."""


class Vocabulary:
    """Sorted terms in one UTF-8 blob with offsets: a few bytes a term, far less than a dict."""

    __slots__ = ("_blob", "_find", "_offsets", "_sorted")

    def __init__(self, blob: bytes, offsets: np.ndarray) -> None:
        """`blob` holds the sorted terms, each followed by a newline, starting at `offsets`."""
        self._blob = blob
        self._offsets = offsets
        # Python ints from a memoryview: faster to index than numpy scalars, and no copy.
        self._sorted = _Sorted(blob, memoryview(np.ascontiguousarray(offsets, dtype=np.int64)))
        # Ranking, coverage and snippets each look up the same terms; cached over the arrays,
        # not `self`, so no reference cycle keeps an old index's maps alive.
        self._find = lru_cache(maxsize=TERM_CACHE)(self._sorted.id)

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
        return self._sorted[i]

    def id(self, term: str) -> int | None:
        """The term's id (its rank in sorted order), or None."""
        return self._find(term)

    @property
    def nbytes(self) -> int:
        """Bytes held."""
        return len(self._blob) + self._offsets.nbytes + self._sorted.nbytes


class _Sorted:
    """Bisection over a vocabulary's blob: every `_STEP`-th term in a list `bisect` scans in C."""

    __slots__ = ("_blob", "_sample", "_size", "_starts")

    def __init__(self, blob: bytes, starts: memoryview) -> None:
        self._blob = blob
        self._starts = starts
        self._size = len(starts) - 1
        self._sample = [self[i] for i in range(0, self._size, _STEP)]

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, i: int) -> bytes:
        return self._blob[self._starts[i] : self._starts[i + 1] - 1]

    @property
    def nbytes(self) -> int:
        """Bytes held by the sampled terms (the blob and offsets are the vocabulary's)."""
        return sys.getsizeof(self._sample) + sum(map(sys.getsizeof, self._sample))

    def id(self, term: str) -> int | None:
        """The term's rank in sorted order, or None."""
        key = term.encode("utf-8", "replace")
        # sample[j - 1] <= key < sample[j]: the key's place is in that stretch (or its end).
        j = bisect_right(self._sample, key)
        i = bisect_left(self, key, max(0, (j - 1) * _STEP), min(self._size, j * _STEP))
        return i if i < self._size and self[i] == key else None


_STEP = 64
"""Terms between two sampled ones (the sample is a small share of the vocabulary)."""
