"""The reader registry: a file's content (else its suffix) chooses the function that reads its
records. A new format is one module here and a line in `READERS` or `recognise`.

>>> source = Source.file(Path("corpus/icml-2026/icml-2026-orals-posters.json"))
>>> recognise(source).__name__  # chosen by the content; it yields records, Papers or Skipped
'read_programme_feed'
"""

from __future__ import annotations

import json

from bot.corpus.model import NotRecordsError
from bot.corpus.readers.arxiv_atom import looks_like_atom, read_arxiv_atom
from bot.corpus.readers.base import Reader, Record, Skipped, Source, expand
from bot.corpus.readers.bibtex import read_bibtex
from bot.corpus.readers.csv_table import read_csv
from bot.corpus.readers.json_records import describe_json, read_json, read_jsonl, records_key
from bot.corpus.readers.openreview import looks_like_notes, read_openreview
from bot.corpus.readers.programme_feed import looks_like_feed, read_programme_feed, sidecar_of
from bot.corpus.readers.ris import looks_like_ris, read_ris
from bot.corpus.readers.seed_text import read_seed_text

__all__ = [
    "READERS",
    "Reader",
    "Record",
    "Skipped",
    "Source",
    "expand",
    "read_jsonl",
    "recognise",
]

# Suffix (lower case) -> reader, for a file whose content does not say more.
READERS: dict[str, Reader] = {
    ".txt": read_seed_text,
    ".md": read_seed_text,
    ".jsonl": read_jsonl,
    ".ndjson": read_jsonl,
    ".json": read_json,
    ".csv": read_csv,
    ".tsv": read_csv,
    ".bib": read_bibtex,
    ".ris": read_ris,
    ".xml": read_arxiv_atom,
    ".atom": read_arxiv_atom,
}

_BINARY_MAGIC = {b"%PDF": "a PDF document", b"\x89PNG": "a PNG image",
                 b"\xff\xd8\xff": "a JPEG image", b"PK\x03\x04": "a zip archive",
                 b"SQLite format 3": "an SQLite database",
                 b"bplist": "a macOS property list"}  # fmt: skip


def _first_line_object(text: str) -> dict[str, object] | None:
    """The first line as a JSON object, if it is one."""
    first = text.split("\n", 1)[0].strip()
    try:
        value = json.loads(first)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def recognise(source: Source) -> Reader:
    """The reader for `source`, by its first bytes; `NotRecordsError` when no reader fits."""
    head = source.head()
    for magic, kind in _BINARY_MAGIC.items():
        if head.startswith(magic):
            raise NotRecordsError(source.name, None, f"{kind}, not a list of papers")
    if source.suffix not in READERS and b"\x00" in head[:1024]:
        raise NotRecordsError(source.name, None, "binary data, not a list of papers")
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if source.suffix in (".csv", ".tsv", ".bib"):  # their first bytes may be anything
        return READERS[source.suffix]
    feed = sidecar_of(source)
    if feed is not None:
        raise NotRecordsError(source.name, None, f"the abstracts of {feed.name}, read with it")
    if looks_like_feed(head):
        return read_programme_feed
    if looks_like_notes(head):
        return read_openreview
    if text.startswith("["):
        return read_json
    if text.startswith("{"):
        first = _first_line_object(text)
        if first is None or records_key(first) is not None:
            return read_json  # pretty-printed, or one line wrapping a list of records
        if "\n" in text.strip() or source.suffix in (".jsonl", ".ndjson"):
            return read_jsonl  # several objects, one per line (the arXiv snapshot's .json)
        if {"title", "abstract"} & {str(k).casefold() for k in first}:
            return read_jsonl  # one paper on its own
        raise NotRecordsError(source.name, 1, describe_json(first))
    if looks_like_atom(head):
        return read_arxiv_atom
    if text.startswith("<"):
        raise NotRecordsError(source.name, None, "an XML or HTML document that is not an Atom feed")
    if looks_like_ris(text):
        return read_ris
    if text.startswith("@"):
        return read_bibtex
    if source.suffix in READERS:
        return READERS[source.suffix]
    if source.suffix in ("", ".txt", ".md", ".text", ".markdown"):
        return read_seed_text  # which refuses notes by their shape
    raise NotRecordsError(source.name, None, f"unsupported file type {source.suffix!r}")
