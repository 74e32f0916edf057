"""The programme's conditions (`session:`, `day:`, `room:`, `inst:`, `topic:`, `status:`).

Each field is a `MultiColumn` of distinct values and their rows, so a condition is decided once
per distinct value and then costs only the rows it keeps.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Hashable, Iterable, Sequence
from datetime import date, tzinfo
from typing import Any, Generic, TypeVar

import numpy as np

from bot.corpus import Paper, Presentation, fold_name, fold_session, sessions_named
from bot.search.query.analysis import Analyzer
from bot.search.query.dates import DayFilter
from bot.search.query.syntax import FieldFilter
from bot.search.rank.phrases import phrase_terms
from bot.search.storage.columns import field_values

PROGRAMME_FIELDS = frozenset({"session", "room", "institution", "topic"})
"""The `FieldFilter` fields `ProgrammeColumns` answers (and `status:` with a tier word)."""
TIER_WORDS: dict[str, str] = {
    "oral": "oral", "spotlight": "spotlight", "poster": "poster",
    "口头": "oral", "口頭": "oral", "口头报告": "oral", "口頭報告": "oral",
    "亮点": "spotlight", "亮點": "spotlight", "焦点": "spotlight", "焦點": "spotlight",
    "海报": "poster", "海報": "poster",
}  # fmt: skip
"""Status values that name a tier (case-insensitive) → the tier."""
_WORDS = re.compile(r"\w+")
_OPTIONAL = frozenset({"of", "the", "at", "and", "for", "in"})
_TOPIC_PARTS = "->"
_FEW = 8  # a condition keeping up to this many of a few-valued field's values compares codes
_PART_GAP = "\x1e"  # between a topic's parts in its terms: no query term equals it

V = TypeVar("V", bound=Hashable)


class MultiColumn(Generic[V]):
    """Per row, any number of values: the distinct values and, grouped by value, the rows."""

    __slots__ = ("_rows", "_starts", "values")

    def __init__(self, per_row: Iterable[Iterable[V]]) -> None:
        """From each row's values, in row order (a value repeated in a row counts once)."""
        flat: list[V] = []
        counts: list[int] = []
        for values in per_row:
            held = len(flat)
            flat.extend(values)
            counts.append(len(flat) - held)
        code_of = {value: code for code, value in enumerate(dict.fromkeys(flat))}
        self.values: tuple[V, ...] = tuple(code_of)
        codes = np.fromiter(map(code_of.__getitem__, flat), np.int32, len(flat))
        rows = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
        order = np.lexsort((rows, codes))  # by value, then row
        codes, rows = codes[order], rows[order]
        new = np.ones(len(rows), dtype=bool)  # a value's first entry in each row
        new[1:] = (codes[1:] != codes[:-1]) | (rows[1:] != rows[:-1])
        self._rows = rows[new]
        self._starts = np.zeros(len(self.values) + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes[new], minlength=len(self.values)), out=self._starts[1:])

    def mask(self, holds: Callable[[V], bool], size: int) -> np.ndarray:
        """Rows holding a value `holds` accepts, as a mask of `size` rows."""
        return self.mask_of([code for code, value in enumerate(self.values) if holds(value)], size)

    def mask_of(self, codes: Iterable[int], size: int) -> np.ndarray:
        """Rows holding any of the values numbered `codes`, as a mask of `size` rows."""
        chosen = np.fromiter(codes, dtype=np.int64)
        mask = np.zeros(size, dtype=bool)
        if not len(chosen):
            return mask
        # The chosen values' runs of rows, gathered in one go (no loop over the values):
        # entry i of the run of value c is row number starts[c] + i.
        first, lengths = self._starts[chosen], self._starts[chosen + 1] - self._starts[chosen]
        ends = np.cumsum(lengths)
        at = np.arange(ends[-1]) + np.repeat(first - (ends - lengths), lengths)
        mask[self._rows[at]] = True
        return mask

    @property
    def counts(self) -> np.ndarray:
        """How many rows hold each value."""
        return np.diff(self._starts)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (the values not counted)."""
        return self._rows.nbytes + self._starts.nbytes


def tier_named(value: str) -> str:
    """The tier a `status:` value names ("Oral", "口头" → "oral"), else ""."""
    return TIER_WORDS.get(unicodedata.normalize("NFKC", value).casefold().strip(), "")


def _words(text: str) -> tuple[str, ...]:
    """Folded words, as institution and room names are compared."""
    return tuple(_WORDS.findall(fold_name(unicodedata.normalize("NFKC", text))))


def in_a_row(words: Sequence[Any], wanted: Sequence[Any]) -> bool:
    """True if `wanted` occurs in `words` as a contiguous run."""
    width = len(wanted)
    return any(tuple(words[i : i + width]) == tuple(wanted) for i in range(len(words) - width + 1))


def topic_terms(topic: str, analyzer: Analyzer) -> tuple[str, ...]:
    """A topic's (or value's) phrase terms, a gap between its "->" parts."""
    terms: list[str] = []
    for part in topic.split(_TOPIC_PARTS):
        words = phrase_terms(part, analyzer)
        if words and terms:
            terms.append(_PART_GAP)
        terms.extend(words)
    return tuple(terms)


def _start_day(shown: Presentation) -> tuple[date, tzinfo] | None:
    """A presentation's date on the venue's clock and that clock (None: untimed)."""
    moment = shown.starts_at
    return None if moment is None or moment.tzinfo is None else (moment.date(), moment.tzinfo)


_Day = tuple[date, tzinfo]


class _Coded:
    """One value per row, of few distinct ones: the values and each row's code."""

    __slots__ = ("codes", "values")

    def __init__(self, per_row: Iterable[str]) -> None:
        code_of: dict[str, int] = {}
        codes = [code_of.setdefault(value, len(code_of)) for value in per_row]
        self.values = tuple(code_of)
        small = len(code_of) <= 2**8
        self.codes = np.array(codes, dtype=np.uint8 if small else np.int32)

    def mask(self, held: list[bool]) -> np.ndarray:
        """Rows whose value is one `held` marks (one flag per distinct value)."""
        chosen = [code for code, flag in enumerate(held) if flag]
        if len(chosen) > _FEW:  # else a few compares of one-byte codes beat one gather
            return np.array(held, dtype=bool)[self.codes]
        mask = np.zeros(len(self.codes), dtype=bool)
        for code in chosen:
            mask |= self.codes == code
        return mask


class ProgrammeColumns:
    """Per row: sessions, presentation days, rooms, institutions, topic and tier."""

    __slots__ = (
        "_analyzer", "_by_word", "_sessions", "_topic_terms", "days", "institutions",
        "rooms", "sessions", "size", "tiers", "topics",
    )  # fmt: skip

    def __init__(self, papers: Sequence[Paper], analyzer: Analyzer) -> None:
        """Built from `papers` (a tuple or an index's cached columns), in row order."""
        self._analyzer = analyzer
        self.size = len(papers)
        sessions: list[list[str]] = []
        days: list[list[_Day]] = []
        rooms: list[list[str]] = []
        day_of: dict[tuple[str, str], _Day | None] = {}  # a programme has few distinct times
        for shown in field_values(papers, "presentations"):
            sessions.append([p.session for p in shown if p.session])
            rooms.append([p.room for p in shown if p.room])
            for p in shown:
                if (p.start, p.zone) not in day_of:
                    day_of[p.start, p.zone] = _start_day(p)
            days.append([d for d in (day_of[p.start, p.zone] for p in shown) if d is not None])
        self.sessions: MultiColumn[str] = MultiColumn(sessions)
        self.days: MultiColumn[_Day] = MultiColumn(days)
        self.rooms: MultiColumn[str] = MultiColumn(rooms)
        self.institutions: MultiColumn[str] = MultiColumn(
            (a for a in affiliations if a) for affiliations in field_values(papers, "affiliations")
        )
        self.topics = _Coded(field_values(papers, "topic"))
        tier_of: dict[tuple[str, str], str] = {}
        labels = zip(field_values(papers, "status"), field_values(papers, "venue"), strict=True)
        self.tiers = _Coded(_tier(label, tier_of) for label in labels)
        self._sessions = [fold_session(name) for name in self.sessions.values]
        self._topic_terms = [topic_terms(topic, analyzer) for topic in self.topics.values]
        self._by_word: dict[str, set[int]] = {}
        for code, name in enumerate(self.institutions.values):
            for word in _words(name):
                self._by_word.setdefault(word, set()).add(code)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays."""
        columns = (self.sessions, self.days, self.rooms, self.institutions)
        return sum(c.nbytes for c in columns) + self.topics.codes.nbytes + self.tiers.codes.nbytes

    def day(self, clause: DayFilter) -> np.ndarray | None:
        """Papers presented on the day `clause` names; None if it cannot say which day."""
        if not clause.readable:
            return None
        return self.days.mask(lambda d: clause.holds(d[0], d[1]), self.size)

    def tier(self, tier: str) -> np.ndarray:
        """Papers of `tier` ("oral", "spotlight", "poster")."""
        return self.tiers.mask([value == tier for value in self.tiers.values])

    def field(self, clause: FieldFilter) -> np.ndarray | None:
        """Papers meeting a `PROGRAMME_FIELDS` condition; None if its value has no words."""
        value = clause.value
        if clause.field == "session":
            return self.sessions.mask_of(sessions_named(value, self._sessions), self.size)
        if clause.field == "room":
            wanted = _words(value)
            holds = lambda room: in_a_row(_words(room), wanted)  # noqa: E731
            return self.rooms.mask(holds, self.size) if wanted else None
        if clause.field == "topic":
            terms = topic_terms(value, self._analyzer)
            if not terms:
                return None
            return self.topics.mask([in_a_row(known, terms) for known in self._topic_terms])
        return self._institution(value)

    def _institution(self, value: str) -> np.ndarray | None:
        """Papers with an author at an institution whose name holds every word of `value`."""
        words = _words(value)
        wanted = [w for w in words if w not in _OPTIONAL] or list(words)
        if not wanted:
            return None
        codes: set[int] | None = None
        for word in wanted:
            if word.isascii():
                found = self._by_word.get(word, set())
            else:  # a Chinese name is one word: its characters match inside a name
                names = self.institutions.values
                found = {i for i, name in enumerate(names) if word in fold_name(name)}
            codes = found if codes is None else codes & found
        return self.institutions.mask_of(sorted(codes or ()), self.size)


def _tier(label: tuple[str, str], known: dict[tuple[str, str], str]) -> str:
    """`Paper.tier` of a (status, venue) pair, each distinct pair worked out once."""
    tier = known.get(label)
    if tier is None:
        status, venue = label
        tier = known[label] = Paper("", "", "", status=status, venue=venue).tier
    return tier
