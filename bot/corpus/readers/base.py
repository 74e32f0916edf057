"""What every reader shares: the record type, a `Source` to read, the reader signature, decoding."""

from __future__ import annotations

import lzma
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from bot.corpus.model import CorpusError, Paper

__all__ = ["PEEK_BYTES", "Reader", "Record", "Skipped", "Source", "decode", "mapping"]

Record = dict[str, object]
"""One raw record as read; `bot.corpus.records.normalise_record` makes sense of its fields."""

PEEK_BYTES = 64 * 1024
"""How much of a file recognising its format reads (`Source.head`)."""


# What a broken file or archive raises while read: gzip and bz2 raise OSError, xz its own
# error, a zip member BadZipFile (a bad CRC), a truncated stream EOFError.
_READ_ERRORS = (OSError, EOFError, ValueError, lzma.LZMAError, zipfile.BadZipFile)


@dataclass(frozen=True, slots=True)
class Source:
    """One stream of records: a file, or a member of a compressed file or a `.zip`.

    `name` is what reports show (`papers.zip:s2.json`); `suffix` is the inner file's own
    (`.jsonl` for `papers.jsonl.gz`); `open` gives a fresh binary stream, decompressed.
    """

    path: Path
    name: str
    suffix: str
    open: Callable[[], BinaryIO]

    @classmethod
    def file(cls, path: Path) -> Source:
        """A plain file on disk."""
        return cls(path, str(path), path.suffix.lower(), lambda: path.open("rb"))

    def head(self, size: int = PEEK_BYTES) -> bytes:
        """The first `size` bytes (decompressed), to recognise the format by its content."""
        try:
            with self.open() as stream:
                return stream.read(size)
        except _READ_ERRORS as exc:
            raise CorpusError(self.name, None, f"cannot read file: {_why(exc)}") from exc

    def read_bytes(self) -> bytes:
        """The whole (decompressed) content; for formats parsed as a whole (BibTeX, XML)."""
        try:
            with self.open() as stream:
                return stream.read()
        except _READ_ERRORS as exc:
            raise CorpusError(self.name, None, f"cannot read file: {_why(exc)}") from exc

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(1-based line, raw line) streamed: a multi-GB JSON Lines file is never held whole."""
        try:
            with self.open() as raw:
                yield from enumerate(raw, start=1)  # binary streams iterate by line
        except _READ_ERRORS as exc:
            raise CorpusError(self.name, None, f"cannot read file: {_why(exc)}") from exc


def _why(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


class Skipped(str):
    """What a reader leaves out on purpose (a talk in a programme, a rejected submission): a
    report line, never a bad record. Line 0: a line about the whole file."""

    __slots__ = ()


Reader = Callable[[Source], Iterator[tuple[int, Record | Paper | str]]]
"""`reader(source)` yields (1-based line or record number, item): a raw record, a `Paper` a
reader made itself (sources with fields no record names, e.g. presentations), a `Skipped`
line, or why a record is bad (`str`); a file that cannot be parsed as a whole raises
`CorpusError` naming the line."""


def decode(source: Source) -> str:
    """The whole text of `source` (UTF-8, BOM tolerated, CRLF normalised); errors name the line."""
    raw = source.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CorpusError(
            source.name,
            line,
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
        ) from exc
    if not text.strip():
        raise CorpusError(source.name, 1, "empty file")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def mapping(value: object) -> Mapping[str, object]:
    """`value` if it is an object (a JSON `{…}`), else an empty one: nested fields may be null."""
    return value if isinstance(value, Mapping) else {}
