"""Which papers meet a parsed query's conditions: one boolean mask over the corpus's rows.

A clause with no terms is dropped, as Elasticsearch's `simple_query_string` drops what it
cannot read. The columns are built on the first query that needs them; plain queries never do.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar

import numpy as np

from bot.corpus import AuthorIndex, AuthorKey, Paper, author_key, filed_under, key_matches
from bot.search.query.analysis import Analyzer, EnglishAnalyzer
from bot.search.query.syntax import Clause, DayFilter, FieldFilter, ParsedQuery, Phrase, YearFilter
from bot.search.rank.facets import PROGRAMME_FIELDS, ProgrammeColumns, in_a_row, tier_named
from bot.search.rank.phrases import PhraseIndex, phrase_terms
from bot.search.storage.columns import field_values


class Index(Protocol):
    """What the filters read of an index (`bot.search.rank.index.Index` has it)."""

    papers: Sequence[Paper]
    authors: AuthorIndex
    analyzer: Analyzer


LabelField = Literal["venue", "track", "status"]
LABEL_FIELDS: tuple[LabelField, ...] = ("venue", "track", "status")


@dataclass(frozen=True, slots=True, eq=False)
class _Labels:
    """A field of few distinct values (venue, track, status): the values and each row's code."""

    terms: tuple[tuple[str, ...], ...]
    """Each distinct value's phrase terms."""
    codes: np.ndarray
    """Per row, the index of its value in `terms`."""


class _AuthorRows:
    """`AuthorIndex.papers` as rows, fast: each distinct name keyed and matched once per query."""

    __slots__ = ("_names", "_surname_rows")

    def __init__(self, authors: AuthorIndex) -> None:
        self._names: dict[str, tuple[tuple[AuthorKey, np.ndarray], ...]] = {}
        self._surname_rows: dict[str, np.ndarray] = {}
        for surname, entries in authors.by_surname.items():
            rows_of: dict[str, list[int]] = {}
            for row, name in entries:
                rows_of.setdefault(name, []).append(row)
            keyed = ((author_key(name), rows) for name, rows in rows_of.items())
            self._names[surname] = tuple(
                (key, np.array(rows, dtype=np.int64)) for key, rows in keyed if key is not None
            )
            self._surname_rows[surname] = np.array([row for row, _ in entries], dtype=np.int64)

    def rows(self, query: str) -> np.ndarray:
        """Rows of the papers with an author `query` names (may repeat a row)."""
        wanted = author_key(query)
        if wanted is None:
            return np.zeros(0, dtype=np.int64)
        family_first = "," not in query
        found = []
        for surname in filed_under(wanted):
            if surname == wanted.surname and not wanted.given:  # a surname alone: all of them
                found.append(self._surname_rows.get(surname, np.zeros(0, dtype=np.int64)))
                continue
            found.extend(
                rows
                for known, rows in self._names.get(surname, ())
                if key_matches(wanted, known, family_first=family_first)
            )
        return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


T = TypeVar("T")


class _Once(Generic[T]):
    """A value made on first use, once, whichever thread asks first."""

    __slots__ = ("_lock", "_make", "value")

    def __init__(self, make: Callable[[], T]) -> None:
        self._make: Callable[[], T] | None = make
        self._lock = threading.Lock()
        self.value: T | None = None
        """None until made."""

    def get(self) -> T:
        """The value, made now if nothing asked for it before."""
        value = self.value
        if value is None:
            with self._lock:
                if self.value is None:
                    assert self._make is not None
                    self.value = self._make()
                    self._make = None
                value = self.value
        return value


class FilterColumns:
    """What conditions are checked against: term positions, authors, years, labels, programme.

    The term positions (the costly part) and the programme's columns are built on first need.
    """

    __slots__ = ("_phrases", "_programme", "analyzer", "authors", "labels", "years")

    def __init__(
        self,
        phrases: PhraseIndex | Callable[[], PhraseIndex],
        authors: AuthorIndex,
        years: np.ndarray,
        labels: dict[LabelField, _Labels],
        *,
        programme: Callable[[], ProgrammeColumns],
    ) -> None:
        """Assemble; use `build`. `phrases` and `programme` may be builders run on first need."""
        self._phrases = _Once(phrases if callable(phrases) else lambda: phrases)
        self._programme = _Once(programme)
        self.analyzer = EnglishAnalyzer(max_cache=10_000)
        self.authors = _AuthorRows(authors)
        self.years = years
        """Per row, the year, 0 when unknown."""
        self.labels = labels

    @classmethod
    def build(cls, papers: Sequence[Paper], authors: AuthorIndex) -> FilterColumns:
        """From the papers (or cached columns), in row order, and the index's `AuthorIndex`."""
        analyzer = EnglishAnalyzer(max_cache=10_000)
        years = np.fromiter((y or 0 for y in field_values(papers, "year")), np.int32, len(papers))
        labels = {name: cls._labels(field_values(papers, name), analyzer) for name in LABEL_FIELDS}

        def phrases() -> PhraseIndex:
            return PhraseIndex.build(
                field_values(papers, "title"), field_values(papers, "abstract")
            )

        def programme() -> ProgrammeColumns:
            return ProgrammeColumns(papers, analyzer)

        return cls(phrases, authors, years, labels, programme=programme)

    @property
    def phrases(self) -> PhraseIndex:
        """The term positions, built now if no condition needed them before."""
        return self._phrases.get()

    @property
    def programme(self) -> ProgrammeColumns:
        """The programme's columns, built now if no condition needed them before."""
        return self._programme.get()

    def terms(self, text: str) -> tuple[str, ...]:
        """The terms of `text` as a phrase or a label's value (`phrases.phrase_terms`)."""
        return phrase_terms(text, self.analyzer)

    @staticmethod
    def _labels(values: Iterable[str], analyzer: Analyzer) -> _Labels:
        """Codes of one few-valued field, and each distinct value's terms."""
        table: dict[str, int] = {}
        codes = [table.setdefault(value or "", len(table)) for value in values]
        terms = tuple(phrase_terms(value, analyzer) for value in table)
        # The narrowest type: comparing one-byte codes costs far less than int32's gather.
        dtype = np.uint8 if len(table) <= 2**8 else np.uint16 if len(table) <= 2**16 else np.int32
        return _Labels(terms, np.array(codes, dtype=dtype))

    def __len__(self) -> int:
        return len(self.years)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (not the author index or the strings)."""
        codes = sum(labels.codes.nbytes for labels in self.labels.values())
        lazy = (self._phrases.value, self._programme.value)
        return sum(c.nbytes for c in lazy if c is not None) + self.years.nbytes + codes

    def mask(self, parsed: ParsedQuery) -> np.ndarray | None:
        """Rows meeting every condition of `parsed`; None when it sets none that can be read."""
        required: list[np.ndarray] = []
        for clause in (*parsed.phrases, *parsed.filters):
            required.append(self.matches(clause))
        for group in parsed.any_of:
            alternatives = [self.matches(clause) for clause in group]
            either = [m for m in alternatives if m is not None]
            if either:
                required.append(np.logical_or.reduce(either))
        excluded = [self.matches(clause) for clause in parsed.excluded]
        masks = [m for m in required if m is not None]
        unwanted = [m for m in excluded if m is not None]
        if not masks and not unwanted:
            return None
        mask = np.logical_and.reduce(masks) if masks else np.ones(len(self), dtype=bool)
        for m in unwanted:
            mask &= ~m
        return mask

    def matches(self, clause: Clause) -> np.ndarray | None:
        """Rows `clause` holds for, as a mask; None if it has nothing to match (no terms)."""
        if isinstance(clause, YearFilter):
            low = clause.low if clause.low is not None else 1
            high = clause.high if clause.high is not None else np.iinfo(np.int32).max
            return (self.years >= max(low, 1)) & (self.years <= high)
        if isinstance(clause, Phrase):
            return self._rows_mask(self._phrase_rows(clause.text))
        if isinstance(clause, DayFilter):
            return self.programme.day(clause)
        return self._field_matches(clause)

    def _field_matches(self, clause: FieldFilter) -> np.ndarray | None:
        """Mask of a text field's condition."""
        if clause.field == "author":
            return self._rows_mask(self.authors.rows(clause.value))
        if clause.field == "title":
            return self._rows_mask(self._phrase_rows(clause.value, title_only=True))
        if clause.field in PROGRAMME_FIELDS:
            return self.programme.field(clause)
        tier = tier_named(clause.value) if clause.field == "status" else ""
        if tier:
            return self.programme.tier(tier)
        wanted = self.terms(clause.value)
        if not wanted:
            return None
        labels = self.labels[clause.field]
        matching = [code for code, terms in enumerate(labels.terms) if in_a_row(terms, wanted)]
        if len(matching) > 4:  # many values match ("venue:icml" over "ICML 2013" … "ICML 2019")
            hit = np.zeros(len(labels.terms), dtype=bool)
            hit[matching] = True
            return hit[labels.codes]
        mask = np.zeros(len(self), dtype=bool)
        for code in matching:
            mask |= labels.codes == code
        return mask

    def _phrase_rows(self, text: str, *, title_only: bool = False) -> np.ndarray | None:
        """Rows holding `text` as a phrase; None if it has no terms."""
        terms = self.terms(text)
        return self.phrases.rows(terms, title_only=title_only) if terms else None

    def _rows_mask(self, rows: np.ndarray | None) -> np.ndarray | None:
        """`rows` as a mask over every row."""
        if rows is None:
            return None
        mask = np.zeros(len(self), dtype=bool)
        mask[rows] = True
        return mask


_BY_INDEX: weakref.WeakKeyDictionary[Index, FilterColumns] = weakref.WeakKeyDictionary()
_BUILDING = threading.Lock()  # one build at a time: two threads racing would hold two copies


def filter_columns(index: Index) -> FilterColumns:
    """The filter columns of `index`, built on first use and kept while the index lives."""
    with _BUILDING:
        columns = _BY_INDEX.get(index)
        if columns is None:
            columns = _BY_INDEX[index] = FilterColumns.build(index.papers, index.authors)
    return columns


def candidates(index: Index, parsed: ParsedQuery) -> np.ndarray | None:
    """Rows of `index` meeting `parsed`'s conditions; None when it has none (rank them all)."""
    if parsed.is_plain:
        return None
    return filter_columns(index).mask(parsed)


def listed(index: Index, mask: np.ndarray) -> np.ndarray:
    """The rows `mask` allows, newest year first (unknown years last), then in load order."""
    rows = np.flatnonzero(mask)
    years = filter_columns(index).years[rows]
    return rows[np.lexsort((rows, -years.astype(np.int64)))]
