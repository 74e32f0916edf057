"""What every reader shares: the record type, `Source`, the reader signature and decoding."""

from __future__ import annotations

import bz2
import gzip
import lzma
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from bot.corpus.model import CorpusError, Paper

Record = dict[str, object]  # one raw record as read, for `records.normalise_record`
_PEEK_BYTES = 64 * 1024  # how much of a file recognising its format reads

# What a broken file or archive raises while read: gzip and bz2 OSError, xz its own error, a
# zip member BadZipFile (a bad CRC), a truncated stream EOFError.
_READ_ERRORS = (OSError, EOFError, ValueError, lzma.LZMAError, zipfile.BadZipFile)
_COMPRESSED: dict[str, Callable[..., BinaryIO]] = {
    ".gz": gzip.open,  # type: ignore[dict-item]
    ".bz2": bz2.open,  # type: ignore[dict-item]
    ".xz": lzma.open,  # type: ignore[dict-item]
}
_MAX_DEPTH = 2  # a .gz inside a .zip is read; deeper nesting is no export anyone keeps


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

    def head(self, size: int = _PEEK_BYTES) -> bytes:
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


def _decompressed(source: Source, codec: Callable[..., BinaryIO]) -> BinaryIO:
    """A decompressing stream; a file on disk by its path, so closing it closes the file."""
    if source.name == str(source.path):
        return codec(source.path, "rb")
    return codec(source.open(), "rb")  # a member of a .zip: closed with its archive


def _zip_members(source: Source) -> Iterator[Source]:
    """The files in a `.zip`, in name order, without macOS resource forks and hidden files."""
    try:
        with source.open() as raw, zipfile.ZipFile(raw) as archive:
            names = sorted(info.filename for info in archive.infolist() if not info.is_dir())
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise CorpusError(source.name, None, f"not a readable .zip archive: {exc}") from exc
    for name in names:
        member = PurePosixPath(name)
        if name.startswith("__MACOSX/") or any(p.startswith(".") for p in member.parts):
            continue

        def opener(name: str = name) -> BinaryIO:
            archive = zipfile.ZipFile(source.open())  # closed with the member it opens
            stream = archive.open(name)
            stream._fileobj_owner = archive  # type: ignore[attr-defined]  # keep it alive
            return stream  # type: ignore[return-value]

        yield Source(source.path, f"{source.name}:{name}", member.suffix.lower(), opener)


def expand(source: Source, depth: int = 0) -> Iterator[Source]:
    """`source` itself, or the sources inside it when it is compressed or a `.zip`."""
    if depth > _MAX_DEPTH:
        raise CorpusError(source.name, None, "compressed too many times over")
    if source.suffix == ".zip":
        for member in _zip_members(source):
            yield from expand(member, depth + 1)
        return
    codec = _COMPRESSED.get(source.suffix)
    if codec is None:
        yield source
        return
    inner = Path(source.name).stem  # papers.jsonl.gz -> papers.jsonl
    yield from expand(
        Source(
            source.path,
            source.name,
            Path(inner).suffix.lower(),
            lambda: _decompressed(source, codec),
        ),
        depth + 1,
    )
