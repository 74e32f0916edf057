"""The seed text format: an optional header line (naming the venue and year when it starts
"ICML 2026"), then abstracts separated by blank lines. Notes kept beside a corpus (a README,
Markdown) are `NotRecordsError`, recognised by their shape."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath

from bot.corpus.model import CorpusError, NotRecordsError
from bot.corpus.readers.base import Record, Source, decode

_MAX_HEADER_CHARS = 120  # a longer first paragraph is an abstract, not a header line
# Lines no abstract starts with: Markdown headings, list items, quotes, tables, code fences,
# link references and notes to self.
_NOT_PROSE = re.compile(
    r"^(?:#{1,6}\s|[-*+]\s|\d{1,3}[.)]\s|>|\||```|~~~|\[[^\]]*\]:|<!--|"
    r"(?:TODO|FIXME|NOTE|XXX)\b)",
    re.IGNORECASE,
)
_NAMED_LIST = re.compile(r"^(?P<venue>[A-Z][A-Za-z]*[A-Z]\s+(?P<year>(?:19|20)\d\d))(?!\d)")
_NOTE_NAMES = re.compile(r"^(?:readme|changelog|changes|license|licence|notes?|todo|copying|"
                         r"authors|contributing)\b", re.IGNORECASE)  # fmt: skip


def _is_header(paragraph: list[str]) -> bool:
    line = paragraph[0]
    return len(paragraph) == 1 and len(line) <= _MAX_HEADER_CHARS and line[-1] not in ".!?"


def _paragraphs(text: str) -> list[tuple[int, list[str]]]:
    paragraphs: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if line:
            if not current:
                start = number
            current.append(line)
        elif current:
            paragraphs.append((start, current))
            current = []
    if current:
        paragraphs.append((start, current))
    return paragraphs


def notes_reason(name: str, paragraphs: list[tuple[int, list[str]]]) -> str | None:
    """Why a text file is notes rather than a list of abstracts, or None if it has the shape."""
    if _NOTE_NAMES.match(PurePath(name).name):
        return "notes (a README or similar), not a list of abstracts"
    for start, lines in paragraphs:
        for offset, line in enumerate(lines):
            if _NOT_PROSE.match(line):
                return (
                    f"notes, not a list of abstracts (line {start + offset} reads like "
                    f"Markdown or a note: {line[:40]!r})"
                )
    return None


def read_seed_text(source: Source) -> Iterator[tuple[int, Record | str]]:
    """One record per paragraph after the optional header line."""
    paragraphs = _paragraphs(decode(source))
    reason = notes_reason(source.name, paragraphs)
    if reason is not None:
        raise NotRecordsError(source.name, None, reason)
    named: Record = {}
    if paragraphs and _is_header(paragraphs[0][1]):
        header = _NAMED_LIST.match(paragraphs[0][1][0])
        if header is not None:
            named = {"venue": header["venue"], "year": int(header["year"])}
        paragraphs = paragraphs[1:]
    if not paragraphs:
        raise CorpusError(source.name, 1, "no abstracts (only a header line)")
    for start, lines in paragraphs:
        yield start, {"abstract": " ".join(lines), **named}
