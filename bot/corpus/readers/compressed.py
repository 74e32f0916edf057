"""Compressed files (`.gz`, `.bz2`, `.xz`) and `.zip` archives as the streamed sources inside."""

from __future__ import annotations

import bz2
import gzip
import lzma
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from bot.corpus.model import CorpusError
from bot.corpus.readers.base import Source

__all__ = ["COMPRESSED", "expand"]

COMPRESSED: dict[str, Callable[..., BinaryIO]] = {
    ".gz": gzip.open,  # type: ignore[dict-item]
    ".bz2": bz2.open,  # type: ignore[dict-item]
    ".xz": lzma.open,  # type: ignore[dict-item]
}
_MAX_DEPTH = 2  # a .gz inside a .zip is read; deeper nesting is no export anyone keeps


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
    codec = COMPRESSED.get(source.suffix)
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
