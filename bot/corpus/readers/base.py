"""What every reader shares: the record type, the reader signature, decoding a file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from bot.corpus.model import CorpusError

__all__ = ["Reader", "Record", "decode"]

Record = dict[str, object]
"""One raw record as read; `bot.corpus.records.normalise_record` makes sense of its fields."""

Reader = Callable[[Path, str], Iterator[tuple[int, Record | str]]]
"""`reader(path, text)` yields (1-based line, record or why it is skipped); a file that cannot
be parsed as a whole raises `CorpusError` naming the line."""


def decode(path: Path) -> str:
    """The file's text (UTF-8, BOM tolerated, CRLF normalised); errors name the line."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(path, None, f"cannot read file: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CorpusError(
            path, line, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from exc
    if not text.strip():
        raise CorpusError(path, 1, "empty file")
    return text.replace("\r\n", "\n").replace("\r", "\n")
