"""Papers as typed columns in the cache, read back lazily: a `Paper` is made only when shown."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import astuple, fields
from typing import Any, get_type_hints, overload

import numpy as np

from bot.corpus import LoadReport, Paper, Presentation


class CacheMiss(Exception):
    """A cache file (or a column in it) that cannot be used; the message says why."""


class TextColumn(Sequence[str]):
    """Strings stored as one UTF-8 blob (a uint8 array) and `len + 1` byte offsets."""

    __slots__ = ("_blob", "_ends", "_offsets", "_size")

    def __init__(self, blob: np.ndarray, offsets: np.ndarray) -> None:
        """Wrap `blob` and `offsets`; `ValueError` unless the offsets fit the blob."""
        if blob.dtype != np.uint8 or blob.ndim != 1 or offsets.ndim != 1 or not len(offsets):
            raise ValueError("text column: bad arrays")
        if offsets[0] != 0 or offsets[-1] != len(blob) or np.any(np.diff(offsets) < 0):
            raise ValueError("text column: offsets do not fit the blob")
        self._blob = memoryview(blob)
        self._offsets = offsets
        # Python ints from a memoryview: faster to index than numpy scalars.
        self._ends = memoryview(np.ascontiguousarray(offsets, dtype=np.int64))
        self._size = len(offsets) - 1

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._size))]
        if i < 0:
            i += self._size
        if not 0 <= i < self._size:
            raise IndexError("text column index out of range")
        ends = self._ends
        return str(self._blob[ends[i] : ends[i + 1]], "utf-8", "surrogatepass")

    def at(self, i: int) -> str:
        """String `i`, for a caller that has checked `0 <= i < len(self)` (`PaperColumns`)."""
        ends = self._ends
        return str(self._blob[ends[i] : ends[i + 1]], "utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        text = str(self._blob, "utf-8", "surrogatepass")
        if len(text) == len(self._blob):  # ASCII: byte offsets are character offsets
            ends = self._ends
            for i in range(len(ends) - 1):
                yield text[ends[i] : ends[i + 1]]
        else:
            for i in range(len(self)):
                yield self[i]


class SpansColumn:
    """Per row, a list of `[start, end)` spans, as one flat int array; a row costs a slice."""

    __slots__ = ("_flat", "_offsets", "_pairs", "_rows")

    def __init__(self, flat: np.ndarray, offsets: np.ndarray) -> None:
        """Wrap the arrays; `ValueError` unless they fit (a cache may be damaged)."""
        if flat.ndim != 1 or flat.dtype != np.uint32 or offsets.ndim != 1 or not len(offsets):
            raise ValueError("spans column: bad arrays")
        if offsets.dtype != np.int64:
            raise ValueError("spans column: bad arrays")
        if offsets[0] != 0 or offsets[-1] * 2 != len(flat) or np.any(np.diff(offsets) < 0):
            raise ValueError("spans column: offsets do not fit the spans")
        self._flat = flat
        self._offsets = offsets
        # Python ints from memoryviews (no copy of a mapped array): no numpy scalars a row.
        self._pairs = memoryview(np.ascontiguousarray(flat))
        self._rows = memoryview(np.ascontiguousarray(offsets))

    def __len__(self) -> int:
        return len(self._rows) - 1

    def __getitem__(self, i: int) -> list[tuple[int, int]]:
        """Row `i`'s spans."""
        values = iter(self._pairs[2 * self._rows[i] : 2 * self._rows[i + 1]].tolist())
        return list(zip(values, values, strict=True))  # each start with the end after it

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """`(flat, offsets)`, as `__init__` takes them."""
        return self._flat, self._offsets

    @property
    def nbytes(self) -> int:
        """Bytes held (the flat spans and the offsets)."""
        return self._flat.nbytes + self._offsets.nbytes


Column = tuple[Callable[[int], Any], int]
"""A stored field: `row -> value`, and how many rows (`PaperColumns.from_columns`)."""


class PaperColumns(Sequence[Paper]):
    """The papers of a cached corpus, one column per `Paper` field; a `Paper` per access."""

    __slots__ = ("_columns", "_getters", "_size", "_texts")

    def __init__(
        self, columns: dict[str, Callable[[int], Any]], size: int, texts: dict[str, TextColumn]
    ) -> None:
        """`columns`: each `Paper` field to `row -> value`; `texts`: those stored as TextColumn."""
        self._columns = columns
        self._getters = tuple(columns.values())
        self._size = size
        self._texts = texts

    @classmethod
    def from_columns(cls, columns: dict[str, Column | TextColumn]) -> PaperColumns:
        """From each field's column, in `Paper` order; `ValueError` if their lengths differ."""
        texts = {name: c for name, c in columns.items() if isinstance(c, TextColumn)}
        stored = {n: (c.at, len(c)) if isinstance(c, TextColumn) else c for n, c in columns.items()}
        sizes = {size for _, size in stored.values()}
        if len(sizes) > 1:
            raise ValueError("paper columns have different lengths")
        getters = {name: get for name, (get, _) in stored.items()}
        return cls(getters, sizes.pop() if sizes else 0, texts)

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, i: int) -> Paper: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Paper, ...]: ...
    def __getitem__(self, i: int | slice) -> Paper | tuple[Paper, ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(self._size)))
        if i < 0:
            i += self._size
        if not 0 <= i < self._size:
            raise IndexError("paper index out of range")
        return Paper(*[get(i) for get in self._getters])

    def __iter__(self) -> Iterator[Paper]:
        for i in range(self._size):
            yield self[i]

    def column(self, name: str) -> Iterator[Any]:
        """One field's values for every paper, without making `Paper`s (ids, sources)."""
        if name in self._texts:
            return iter(self._texts[name])
        get = self._columns[name]
        return (get(i) for i in range(self._size))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PaperColumns({self._size} papers)"


def field_values(papers: Sequence[Paper], name: str) -> Iterable[Any]:
    """One `Paper` field of every paper, in order; from the columns when `papers` is cached."""
    if isinstance(papers, PaperColumns):
        return papers.column(name)
    return (getattr(paper, name) for paper in papers)


def int_column(values: np.ndarray, *, optional: bool = False) -> Column:
    """An int field (`optional`: 0 stands for None, a year no paper has)."""
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind not in "iu":
        raise ValueError("paper column: bad int array")
    at = memoryview(np.ascontiguousarray(values, dtype=np.int64))
    return ((lambda i: at[i] or None) if optional else at.__getitem__), len(at)


def table_column(table: Sequence[str], indices: np.ndarray) -> Column:
    """A field of few distinct strings: the strings, and each row's index into them."""
    if not isinstance(indices, np.ndarray) or indices.ndim != 1 or indices.dtype.kind not in "iu":
        raise ValueError("paper column: bad rows")
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= len(table)):
        raise ValueError("paper column: row outside its table")
    values, at = list(table), memoryview(np.ascontiguousarray(indices, dtype=np.int64))
    return (lambda i: values[at[i]]), len(indices)


def grouped_column(flat: Sequence[str], counts: np.ndarray) -> Column:
    """A tuple-valued field: every row's items in turn, and how many each row has."""
    if not isinstance(counts, np.ndarray) or counts.ndim != 1 or counts.dtype.kind not in "iu":
        raise ValueError("paper column: bad counts")
    if len(counts) and int(counts.min()) < 0:
        raise ValueError("paper column: negative count")
    ends = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=ends[1:])
    if int(ends[-1]) != len(flat):
        raise ValueError("paper column: counts do not fit the values")
    at = memoryview(ends)

    def group(i: int) -> tuple[Any, ...]:
        start, end = at[i], at[i + 1]
        return tuple(flat[start:end]) if end > start else ()  # most papers: none

    return group, len(counts)


def pairs_column(flat: Sequence[str], counts: np.ndarray, sep: str) -> Column:
    """A field of (label, url) pairs, each stored joined by `sep`."""
    get, size = grouped_column(flat, counts)
    return (lambda i: tuple([tuple(item.split(sep, 1)) for item in get(i)])), size


def presentations_column(flat: Sequence[str], counts: np.ndarray, sep: str) -> Column:
    """A field of presentations, each its fields joined by `sep`."""
    get, size = grouped_column(flat, counts)
    width = len(fields(Presentation))
    if any(item.count(sep) != width - 1 for item in flat):  # checked once, not per access
        raise ValueError("paper column: bad presentation")
    return (lambda i: tuple([Presentation(*item.split(sep)) for item in get(i)])), size


PAPER_FIELDS = tuple((f.name, get_type_hints(Paper)[f.name]) for f in fields(Paper))
"""Each `Paper` field's name and type: a column each, stored as its type says."""

_PAPERS = "papers."  # state keys of the cached papers, apart from the engine's own keys
_PAIRS = tuple[tuple[str, str], ...]  # Paper.links
_PAIR_SEP = "\x1f"  # a control character: clean labels and URLs never contain one
_PRESENTATIONS = tuple[Presentation, ...]  # Paper.presentations: fields joined like pairs


def engine_state(state: dict[str, Any]) -> dict[str, Any]:
    """The engine's part of a cached state (everything but the papers)."""
    return {k: v for k, v in state.items() if not k.startswith(_PAPERS)}


def report_state(report: LoadReport) -> dict[str, Any]:
    """A `LoadReport` as state entries: one column per `Paper` field, typed by the field."""
    state: dict[str, Any] = {
        _PAPERS + "sources": list(report.sources),
        _PAPERS + "skipped": list(report.skipped),
        _PAPERS + "bad_records": int(report.bad_records),
    }
    papers = report.papers
    for name, kind in PAPER_FIELDS:
        column = [getattr(p, name) for p in papers]
        key = _PAPERS + name
        if kind is int:
            state[key] = np.array(column, dtype=np.int64)
        elif kind == int | None:  # a year: 0 stands for "unknown" (no paper is from year 0)
            state[key] = np.array([v or 0 for v in column], dtype=np.int64)
        elif kind is str:
            distinct = list(dict.fromkeys(column))
            if len(distinct) * 2 <= len(column):  # few values, many papers (`source`): a table
                row = {value: i for i, value in enumerate(distinct)}
                state[key] = distinct
                state[key + ":rows"] = np.array([row[v] for v in column], dtype=np.int32)
            else:
                state[key] = column
        elif kind == _PAIRS:  # (label, url) pairs: joined by a separator neither can hold
            state[key] = [_PAIR_SEP.join(pair) for items in column for pair in items]
            state[key + ":counts"] = np.array([len(items) for items in column], dtype=np.int32)
        elif kind == _PRESENTATIONS:  # each presentation's fields, one clean line each
            state[key] = [_PAIR_SEP.join(astuple(p)) for items in column for p in items]
            state[key + ":counts"] = np.array([len(items) for items in column], dtype=np.int32)
        else:  # tuple[str, ...]: flattened, with a count per paper
            state[key] = [item for items in column for item in items]
            state[key + ":counts"] = np.array([len(items) for items in column], dtype=np.int32)
    return state


def report_from_state(state: dict[str, Any]) -> LoadReport:
    """The inverse of `report_state`, papers as lazy `PaperColumns`; `CacheMiss` if broken."""
    try:
        columns = {name: _column(state, _PAPERS + name, kind) for name, kind in PAPER_FIELDS}
        papers = PaperColumns.from_columns(columns)
        sources, skipped = state[_PAPERS + "sources"], state[_PAPERS + "skipped"]
        sources, skipped = tuple(map(str, sources)), tuple(map(str, skipped))
        bad_records = int(state[_PAPERS + "bad_records"])
    except (KeyError, AttributeError, IndexError, TypeError, ValueError) as error:
        raise CacheMiss(f"papers missing or inconsistent: {error!r}") from error
    # A LoadReport's papers: any Sequence[Paper] reads the same (the cached ones are columns).
    return LoadReport(
        papers=papers,  # type: ignore[arg-type]
        sources=sources,
        skipped=skipped,
        bad_records=bad_records,
    )


def _column(state: dict[str, Any], key: str, kind: object) -> Column | TextColumn:
    """One field's stored column, as `PaperColumns.from_columns` takes it."""
    values = state[key]
    if kind is int or kind == int | None:
        return int_column(values, optional=kind is not int)
    if kind is str:
        rows = state.get(key + ":rows")
        if rows is not None:
            return table_column(values, rows)
        if not isinstance(values, TextColumn):
            raise ValueError(f"{key}: not a text column")
        return values
    if kind == _PAIRS:
        return pairs_column(values, state[key + ":counts"], _PAIR_SEP)
    if kind == _PRESENTATIONS:
        return presentations_column(values, state[key + ":counts"], _PAIR_SEP)
    return grouped_column(values, state[key + ":counts"])
