"""CSV: a header row (delimiter `,` `;` or tab, sniffed), then one record per row."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from bot.corpus.model import CorpusError
from bot.corpus.readers.base import Record, Source, decode

DELIMITERS = ",;\t"
RawRow = dict[str, str] | str  # a row's record, or the reason it is skipped


class MissingColumnError(ValueError):
    """The header has neither a title nor an abstract column."""

    def __init__(self, columns: list[str]) -> None:
        self.columns = columns
        found = ", ".join(repr(c) for c in columns) or "none"
        super().__init__(f"CSV header has no title or abstract column (columns found: {found})")


def sniff_delimiter(header: str) -> str:
    """The delimiter of a CSV whose first line is `header`: csv.Sniffer, else the commonest."""
    try:
        return csv.Sniffer().sniff(header, delimiters=DELIMITERS).delimiter
    except csv.Error:  # a one-column header, or one the sniffer finds ambiguous
        counts = {d: header.count(d) for d in DELIMITERS}
        best = max(counts, key=lambda d: counts[d])
        return best if counts[best] else ","


def read_csv_records(text: str) -> Iterator[tuple[int, RawRow]]:
    """(first line of the row, record or skip reason) for each non-empty row after the header."""
    from bot.corpus.records import canonical_field  # lazy: records imports the source shapes

    text = text.removeprefix("\ufeff")
    header_line = text.split("\n", 1)[0]
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sniff_delimiter(header_line))
    try:
        header = [name.strip() for name in next(reader)]
    except StopIteration:
        return
    if not any(canonical_field(name) in ("title", "abstract") for name in header):
        raise MissingColumnError(header)
    previous_end = reader.line_num
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:  # e.g. an unclosed quote: nothing after it can be trusted
            yield previous_end + 1, f"malformed CSV: {exc}"
            break
        start, previous_end = previous_end + 1, reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            yield start, f"{len(row)} cells, the header has {len(header)}"
            continue
        yield start, dict(zip(header, row, strict=True))


def read_csv(source: Source) -> Iterator[tuple[int, Record | str]]:
    """Records of a CSV file (or skip reasons); a header without the columns fails the file."""
    seen = False
    path = source.name
    try:
        for row in read_csv_records(decode(source)):
            seen = True
            yield row
    except MissingColumnError as exc:
        raise CorpusError(path, 1, str(exc)) from exc
    if not seen:
        raise CorpusError(path, 1, "empty file: no records after the header")
