"""The reader registry: a file's suffix chooses the function that reads its records.

A new format is one module here and one line in `READERS`.
"""

from __future__ import annotations

from pathlib import Path

from bot.corpus.readers.base import Reader, Record, decode
from bot.corpus.readers.bibtex import read_bibtex
from bot.corpus.readers.csv_table import read_csv
from bot.corpus.readers.json_records import read_json, read_jsonl
from bot.corpus.readers.seed_text import read_seed_text

__all__ = ["EXTENSIONS", "READERS", "Reader", "Record", "decode", "reader_for"]

READERS: dict[str, Reader] = {
    ".txt": read_seed_text,
    ".md": read_seed_text,
    ".jsonl": read_jsonl,
    ".json": read_json,
    ".csv": read_csv,
    ".bib": read_bibtex,
}
"""Suffix (lower case) -> reader."""

EXTENSIONS = tuple(READERS)
"""File extensions `load_corpus` reads (case-insensitive)."""


def reader_for(path: Path) -> Reader | None:
    """The reader for `path`'s suffix (case-insensitive), or None."""
    return READERS.get(path.suffix.lower())
