"""The query syntax (docs/query-syntax.md), parsed forgivingly: every string is a query.

As in Elasticsearch's `simple_query_string`, whatever cannot be read as syntax is plain
text; a query without syntax is its own free text, exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bot.search.query.dates import DayFilter, YearFilter, read_day, read_years

Field = Literal[
    "author", "title", "venue", "track", "status", "session", "room", "institution", "topic"
]  # fmt: skip

FIELD_ALIASES: dict[str, Field | Literal["year", "day"]] = {
    "author": "author", "au": "author", "作者": "author",
    "title": "title", "ti": "title", "标题": "title", "標題": "title",
    "year": "year", "y": "year", "年份": "year",
    "venue": "venue", "会议": "venue", "會議": "venue",
    "track": "track",
    "status": "status", "tier": "status", "状态": "status", "狀態": "status",
    "session": "session", "场次": "session", "場次": "session",
    "day": "day", "date": "day", "日期": "day", "日": "day",
    "room": "room", "房间": "room", "房間": "room", "会场": "room", "會場": "room",
    "inst": "institution", "institution": "institution", "affil": "institution",
    "affiliation": "institution", "机构": "institution", "機構": "institution",
    "单位": "institution", "單位": "institution",
    "topic": "topic", "主题": "topic", "主題": "topic",
}  # fmt: skip
"""Field names users type (case-insensitive) → the field they filter."""


@dataclass(frozen=True, slots=True)
class Phrase:
    """Words a paper's title or abstract must (or must not) hold in this order."""

    text: str
    """As typed, without its quotes."""
    quoted: bool = True
    """False for a bare word (`-image`, an OR alternative)."""


@dataclass(frozen=True, slots=True)
class FieldFilter:
    """A text field's condition: `author:Bengio`, `venue:ICML`."""

    field: Field
    value: str
    """As typed, without quotes."""


Clause = Phrase | FieldFilter | YearFilter | DayFilter


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """A query read as free text to rank plus the conditions every result must meet."""

    query: str
    """The query as given."""
    text: str
    """Free text to rank (BM25, semantic); `query` itself when it has no syntax."""
    phrases: tuple[Phrase, ...] = ()
    """Required phrases (each must be present)."""
    excluded: tuple[Clause, ...] = ()
    """Words, phrases and fields a result must not match."""
    any_of: tuple[tuple[Clause, ...], ...] = ()
    """OR groups: a result matches at least one clause of each."""
    filters: tuple[FieldFilter | YearFilter | DayFilter, ...] = ()
    """Required field conditions."""

    @property
    def is_plain(self) -> bool:
        """True if the query has no syntax: it is ranked as typed, nothing is filtered."""
        return not (self.phrases or self.excluded or self.any_of or self.filters)

    @property
    def conditions(self) -> int:
        """How many conditions narrow the results (each OR group counts once)."""
        return len(self.phrases) + len(self.excluded) + len(self.any_of) + len(self.filters)


# --- scanning ----------------------------------------------------------------------------------

# One character in, one out (positions stay those of the query): quotes and ｜ to ASCII.
_SCAN = str.maketrans({c: '"' for c in "\u201c\u201d\u201e\u201f\u2033\uff02"} | {"\uff5c": "|"})
_FIELD = re.compile(r"([^\W\d_]+)[:：]")
# What any syntax needs (a quote, "|", "-", a colon or "OR"): a query without one is plain.
_SYNTAX = re.compile("[" + re.escape('"|-:：' + "".join(map(chr, _SCAN))) + "]|OR")
_Kind = Literal["word", "phrase", "field", "or"]


@dataclass(frozen=True, slots=True)
class _Token:
    kind: _Kind
    text: str
    """word: as typed; phrase: inside the quotes; field: the value; or: the operator."""
    negated: bool = False
    clause: Clause | None = None


def _tokens(query: str, now: datetime | None) -> Iterator[_Token]:
    """The query's tokens, left to right; anything unreadable comes out as a word."""
    scan = query.translate(_SCAN)
    i, n = 0, len(scan)
    while i < n:
        if scan[i].isspace():
            i += 1
            continue
        if scan[i] == "|":
            j = i
            while j < n and scan[j] == "|":
                j += 1
            yield _Token("or", query[i:j])
            i = j
            continue
        j = i
        while j < n and not scan[j].isspace() and scan[j] != "|":
            j += 1
        token, i = _read(query, scan, i, j, now)
        yield token


def _closing(scan: str, opener: int) -> int:
    """Index of the quote closing the one at `opener`, or -1."""
    return scan.find('"', opener + 1)


def _read(query: str, scan: str, i: int, j: int, now: datetime | None) -> tuple[_Token, int]:
    """The token starting at `i` (its word ends at `j`) and where the next one starts."""
    word = query[i:j]
    negated = scan[i] == "-" and j - i > 1 and (scan[i + 1].isalpha() or scan[i + 1] == '"')
    start = i + 1 if negated else i
    if scan[start] == '"':  # a phrase, or plain text if unclosed
        close = _closing(scan, start)
        if close < 0:
            return _Token("word", word), j
        return _Token("phrase", query[start + 1 : close], negated), close + 1
    field = _FIELD.match(scan, start)
    if field is not None and field[1].casefold() in FIELD_ALIASES:
        read = _field_value(query, scan, field.end(), j)
        name = FIELD_ALIASES[field[1].casefold()]
        clause = _field_clause(name, read[0], now) if read else None
        if read is None or clause is None:
            return _Token("word", word), j
        return _Token("field", read[0], negated, clause), read[1]
    if word == "OR":
        return _Token("or", word), j
    if negated:
        return _Token("word", query[start:j], negated=True), j
    return _Token("word", word), j


def _field_value(query: str, scan: str, at: int, j: int) -> tuple[str, int] | None:
    """A field's value starting at `at` (quoted, or to the word's end `j`) and where it ends."""
    if at < len(scan) and scan[at] == '"':
        close = _closing(scan, at)
        return None if close < 0 else (query[at + 1 : close], close + 1)
    return query[at:j], j


def _field_clause(
    field: Field | Literal["year", "day"], value: str, now: datetime | None
) -> FieldFilter | YearFilter | DayFilter | None:
    """The clause of `field:value`, or None when the value cannot be read (plain text)."""
    if not value.strip():
        return None
    if field == "year":
        return read_years(value)
    if field == "day":
        return read_day(value, now)
    return FieldFilter(field, " ".join(value.split()))


# --- grouping ----------------------------------------------------------------------------------


def _operand(token: _Token | list[_Token] | None) -> bool:
    """True if `token` can stand either side of OR."""
    if isinstance(token, list):
        return True
    return token is not None and token.kind != "or" and not token.negated


def _grouped(tokens: list[_Token]) -> list[_Token | list[_Token]]:
    """Tokens with each `A OR B (OR C…)` run joined into a list; a stray OR stays a token."""
    out: list[_Token | list[_Token]] = []
    k = 0
    while k < len(tokens):
        token = tokens[k]
        right = tokens[k + 1] if k + 1 < len(tokens) else None
        if token.kind == "or" and out and _operand(out[-1]) and _operand(right):
            left = out[-1]
            out[-1] = [*left, right] if isinstance(left, list) else [left, right]  # type: ignore[list-item]
            k += 2
            continue
        out.append(token)
        k += 1
    return out


def _clause(token: _Token) -> Clause:
    """A phrase, word or field token as the clause it asks for."""
    if token.clause is not None:
        return token.clause
    return Phrase(token.text, quoted=token.kind == "phrase")


def _free(text: str) -> str:
    """A phrase's or value's words as plain free text (so that free text has no syntax)."""
    words: list[str] = []
    todo = text.translate(_SCAN).replace("|", " ").replace('"', " ").split()[::-1]
    while todo:
        word = todo.pop().lstrip("-")
        field = _FIELD.match(word)
        if field is not None and field[1].casefold() in FIELD_ALIASES:
            todo.extend(word.replace(":", " ").replace("：", " ").split()[::-1])  # no colon left
        elif word:
            words.append("or" if word == "OR" else word)
    return " ".join(words)


def _ranked_text(token: _Token) -> str:
    """What a token adds to the free text of a query that has syntax (itself without syntax)."""
    if token.negated or token.kind == "or":
        return ""  # a stray OR is no operator: dropped, as its neighbours may be new ones
    if token.kind == "field":
        title = isinstance(token.clause, FieldFilter) and token.clause.field == "title"
        return _free(token.text) if title else ""
    return _free(token.text)


def parse_query(query: str, *, now: datetime | None = None) -> ParsedQuery:
    """`query` read as free text and conditions; never raises. `now` anchors `day:today`."""
    query = query if isinstance(query, str) else ""
    if _SYNTAX.search(query) is None:  # most questions: words only, their own free text
        return ParsedQuery(query=query, text=query)
    items = _grouped(list(_tokens(query, now)))
    phrases: list[Phrase] = []
    excluded: list[Clause] = []
    any_of: list[tuple[Clause, ...]] = []
    filters: list[FieldFilter | YearFilter | DayFilter] = []
    pieces: list[str] = []
    for item in items:
        if isinstance(item, list):
            any_of.append(tuple(_clause(token) for token in item))
            pieces.extend(_ranked_text(token) for token in item)
            continue
        pieces.append(_ranked_text(item))
        if item.kind in ("word", "or") and not item.negated:
            continue
        if item.kind == "phrase" and not item.text.strip():
            continue  # `""` and `-""` ask for nothing: dropped
        if item.negated:
            excluded.append(_clause(item))
        elif item.kind == "phrase":
            phrases.append(Phrase(item.text))
        elif item.clause is not None and not isinstance(item.clause, Phrase):
            filters.append(item.clause)
    if not (phrases or excluded or any_of or filters):
        return ParsedQuery(query=query, text=query)
    return ParsedQuery(
        query=query,
        text=" ".join(piece for piece in pieces if piece),
        phrases=tuple(phrases),
        excluded=tuple(excluded),
        any_of=tuple(any_of),
        filters=tuple(filters),
    )
