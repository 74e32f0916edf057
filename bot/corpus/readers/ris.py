"""RIS (`.ris`) from Zotero, EndNote and Mendeley, read with rispy: each `TY  - ` … `ER  - `
block is one record; a block without its `ER` line, or unreadable, is a bad record."""

from __future__ import annotations

import re
from collections.abc import Iterator

import rispy

from bot.corpus.readers.base import Record, Source, decode

_START = re.compile(r"^TY  - ", re.MULTILINE)
_END = re.compile(r"^ER  -", re.MULTILINE)
# rispy's names → the loader's (records.FIELD_SYNONYMS); the first present wins.
_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("title", "primary_title", "translated_title"),
    "abstract": ("abstract", "notes_abstract"),
    "authors": ("authors", "first_authors"),
    "venue": ("secondary_title", "journal_name", "alternate_title3", "alternate_title1",
              "tertiary_title", "name_of_database"),
    "year": ("year", "publication_year", "date"),
    "doi": ("doi",),
    "keywords": ("keywords",),
    "id": ("id",),
}  # fmt: skip


def looks_like_ris(head: str) -> bool:
    return _START.search(head[:4096]) is not None


def ris_record(entry: dict[str, object]) -> Record:
    record: Record = {}
    for field, names in _FIELDS.items():
        value = next((entry[n] for n in names if entry.get(n) not in (None, "", [])), None)
        if value is not None:
            record[field] = value
    urls = [u for u in entry.get("urls") or () if isinstance(u, str)]  # type: ignore[attr-defined]
    pdfs = [u for u in urls if u.lower().endswith(".pdf")]
    pages = [u for u in urls if u not in pdfs]
    if pages:
        record["url"] = pages[0]
        record["links"] = pages[1:]
    if pdfs:
        record["pdf"] = pdfs[0]
    if entry.get("type_of_reference"):
        record["entry_type"] = entry["type_of_reference"]
    return record


def read_ris(source: Source) -> Iterator[tuple[int, Record | str]]:
    text = decode(source)
    starts = [m.start() for m in _START.finditer(text)]
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(text)
        block = text[start:end]
        line = text.count("\n", 0, start) + 1
        if not _END.search(block):
            yield line, "malformed RIS: the record has no 'ER  -' line"
            continue
        try:
            entries = rispy.loads(block)
        except (ValueError, TypeError, KeyError, IndexError) as exc:  # rispy's own errors
            yield line, f"malformed RIS: {exc}"
            continue
        if entries:
            yield line, ris_record(entries[0])
