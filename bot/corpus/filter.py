"""A load filter (`CORPUS_FILTER`, `search --filter`) like `year:2023-2025`: every term must hold.
Each term first tests a raw line's text cheaply, so most of a huge JSON Lines file skips parsing."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from bot.corpus.authors import author_key
from bot.corpus.model import Paper

# What a filter term may name → the field it tests.
FIELDS = {"categories": "keyword", "category": "keyword", "cat": "keyword",
          "keyword": "keyword", "keywords": "keyword", "year": "year", "venue": "venue",
          "author": "author"}  # fmt: skip
_YEARS = re.compile(r"^(\d{4})(?:-(\d{4}))?$")
_MAX_YEARS = 200


@dataclass(frozen=True)
class LoadFilter:
    """Terms that all must hold; each is (field, alternatives of which one must hold)."""

    text: str
    terms: tuple[tuple[str, tuple[str, ...]], ...]

    @classmethod
    def parse(cls, text: str) -> LoadFilter | None:
        """The filter `field:value[,value…] …`; None if empty; ValueError if bad."""
        terms: list[tuple[str, tuple[str, ...]]] = []
        for word in text.split():
            name, sep, values = word.partition(":")
            field = FIELDS.get(name.casefold())
            alternatives = tuple(v for v in values.split(",") if v)
            if not sep or field is None or not alternatives:
                known = ", ".join(sorted(FIELDS))
                raise ValueError(
                    f"filter term {word!r}: expected FIELD:VALUE with FIELD one of {known}"
                )
            if field == "year":
                alternatives = tuple(str(y) for v in alternatives for y in _years(v))
            terms.append((field, alternatives))
        return cls(" ".join(text.split()), tuple(terms)) if terms else None

    def may_match(self, raw: bytes) -> bool:
        """False if a raw record cannot match (a term's text is nowhere in it): skip parsing."""
        exact, folded = self._needles
        for needles in exact:
            if not any(n in raw for n in needles):
                return False
        if folded:
            lowered = raw.lower()  # one C pass; far cheaper than a case-insensitive regex
            for needles in folded:
                if not any(n in lowered for n in needles):
                    return False
        return True

    @functools.cached_property
    def _needles(self) -> tuple[list[tuple[bytes, ...]], list[tuple[bytes, ...]]]:
        """Per term, the bytes one of which a matching line holds: exact (years) or in lower
        case (words); authors are decided on the parsed paper."""
        exact: list[tuple[bytes, ...]] = []
        folded: list[tuple[bytes, ...]] = []
        for field, alternatives in self.terms:
            if field == "year":
                exact.append(tuple(a.encode() for a in alternatives))
            elif field != "author" and all(a.isascii() for a in alternatives):
                # (JSON may escape other letters as \\uXXXX: those are decided on the paper)
                folded.append(tuple(a.lower().encode() for a in alternatives))
        return exact, folded

    def matches(self, paper: Paper) -> bool:
        return all(_holds(field, alternatives, paper) for field, alternatives in self.terms)


def _years(value: str) -> range:
    match = _YEARS.match(value)
    if not match:
        raise ValueError(f"filter year {value!r}: expected YYYY or YYYY-YYYY")
    first = int(match.group(1))
    last = int(match.group(2) or first)
    if not first <= last < first + _MAX_YEARS:
        raise ValueError(f"filter year {value!r}: the range is empty or too long")
    return range(first, last + 1)


def _holds(field: str, alternatives: tuple[str, ...], paper: Paper) -> bool:
    if field == "year":
        return paper.year is not None and str(paper.year) in alternatives
    if field == "keyword":
        have = {k.casefold() for k in paper.keywords}
        return any(a.casefold() in have for a in alternatives)
    if field == "venue":
        return any(a.casefold() in paper.venue.casefold() for a in alternatives)
    surnames = {key.surname for key in map(author_key, paper.authors) if key is not None}
    return any((key := author_key(a)) is not None and key.surname in surnames for a in alternatives)
