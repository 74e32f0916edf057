"""What every reader shares: the record type, a `Source` to read, the reader signature, decoding."""

from __future__ import annotations

import lzma
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from bot.corpus.model import CorpusError, Paper

__all__ = ["PEEK_BYTES", "Reader", "Record", "Skipped", "Source", "decode", "mapping"]

Record = dict[str, object]  # one raw record as read, for `records.normalise_record`
PEEK_BYTES = 64 * 1024  # how much of a file recognising its format reads

# What a broken file or archive raises while read: gzip and bz2 OSError, xz its own error, a
# zip member BadZipFile (a bad CRC), a truncated stream EOFError.
_READ_ERRORS = (OSError, EOFError, ValueError, lzma.LZMAError, zipfile.BadZipFile)


@dataclass(frozen=True, slots=True)
class Source:
    """One stream of records: a file, or a member of a compressed file or a `.zip`. `name` is
    what reports show (`papers.zip:s2.json`), `suffix` the inner file's (`.jsonl` for
    `papers.jsonl.gz`); `open` gives a fresh decompressed binary stream."""

    path: Path
    name: str
    suffix: str
    open: Callable[[], BinaryIO]

    @classmethod
    def file(cls, path: Path) -> Source:
        return cls(path, str(path), path.suffix.lower(), lambda: path.open("rb"))

    @contextmanager
    def _stream(self) -> Iterator[BinaryIO]:
        """The stream opened; a read error becomes a `CorpusError` naming the source."""
        try:
            with self.open() as stream:
                yield stream
        except _READ_ERRORS as exc:
            why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            raise CorpusError(self.name, None, f"cannot read file: {why}") from exc

    def head(self, size: int = PEEK_BYTES) -> bytes:
        """The first `size` bytes (decompressed), to recognise the format by its content."""
        with self._stream() as stream:
            return stream.read(size)

    def read_bytes(self) -> bytes:
        with self._stream() as stream:
            return stream.read()

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(1-based line, raw line) streamed: a multi-GB JSON Lines file is never held whole."""
        with self._stream() as stream:
            yield from enumerate(stream, start=1)  # binary streams iterate by line


class Skipped(str):
    """What a reader leaves out on purpose (a talk, a rejected submission): a report line,
    not a bad record; at line 0, a line about the whole file."""

    __slots__ = ()


# `reader(source)` yields (1-based line, item): a raw record, a `Paper` the reader made itself,
# a `Skipped` line, or why a record is bad (`str`); an unparsable file raises `CorpusError`.
Reader = Callable[[Source], Iterator[tuple[int, Record | Paper | str]]]


def decode(source: Source) -> str:
    """The whole text of `source` (UTF-8, BOM tolerated, CRLF normalised)."""
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
    """`value` if it is an object, else an empty one (nested fields may be null)."""
    return value if isinstance(value, Mapping) else {}
