"""CSV: a header row naming the fields, then one record per row."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from bot.corpus.model import CorpusError
from bot.corpus.readers.base import Record

__all__ = ["read_csv"]


def read_csv(path: Path, text: str) -> Iterator[tuple[int, Record]]:
    """Records of a CSV file: the header names the fields, each row is a record."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise CorpusError(path, 1, "empty file") from None
    except csv.Error as exc:
        raise CorpusError(path, 1, f"malformed CSV: {exc}") from exc
    names = [name.strip().lower() for name in header]
    if "abstract" not in names:
        raise CorpusError(path, 1, "CSV header has no 'abstract' column")
    previous_end = reader.line_num
    seen = False
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise CorpusError(path, reader.line_num, f"malformed CSV: {exc}") from exc
        start, previous_end = previous_end + 1, reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(names):
            raise CorpusError(path, start, f"{len(row)} fields, header has {len(names)}")
        seen = True
        yield start, dict(zip(names, row, strict=False))
    if not seen:
        raise CorpusError(path, 1, "empty file: no records after the header")
