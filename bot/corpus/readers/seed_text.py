"""The seed text format: an optional header line, then abstracts separated by blank lines.

A hard-wrapped abstract is joined into one paragraph.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from bot.corpus.model import CorpusError
from bot.corpus.readers.base import Record

__all__ = ["read_seed_text"]

_MAX_HEADER_CHARS = 120  # a longer first paragraph is an abstract, not a header line


def _is_header(paragraph: list[str]) -> bool:
    line = paragraph[0]
    return len(paragraph) == 1 and len(line) <= _MAX_HEADER_CHARS and line[-1] not in ".!?"


def read_seed_text(path: Path, text: str) -> Iterator[tuple[int, Record | str]]:
    """Records of a seed text file: one per paragraph after the optional header line."""
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
    if paragraphs and _is_header(paragraphs[0][1]):
        paragraphs = paragraphs[1:]
    if not paragraphs:
        raise CorpusError(path, 1, "no abstracts (only a header line)")
    for start, lines in paragraphs:
        yield start, {"abstract": " ".join(lines)}
