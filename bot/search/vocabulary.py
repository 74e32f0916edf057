"""The sorted term list of an index, stored compactly."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

import numpy as np

__all__ = ["Vocabulary"]


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
