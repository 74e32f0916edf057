"""JSON Lines (one object per line) and JSON (one array of objects).

A line that is not valid JSON, or a value that is not an object, is one skipped record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from bot.corpus.model import CorpusError
from bot.corpus.readers.base import Record

__all__ = ["read_json", "read_jsonl"]


def read_jsonl(path: Path, text: str) -> Iterator[tuple[int, Record | str]]:
    """Records of a JSON Lines file: one object per non-blank line."""
    seen = False
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            seen = True
            yield number, f"malformed JSON: {exc.msg}"
            continue
        seen = True
        yield number, _expect_object(record)
    if not seen:
        raise CorpusError(path, 1, "empty file")


def read_json(path: Path, text: str) -> Iterator[tuple[int, Record | str]]:
    """Records of a JSON file: one array of objects, each with the line it starts on."""
    decoder = json.JSONDecoder()
    whitespace = re.compile(r"[ \t\n\r]*")

    def skip(pos: int) -> int:
        return whitespace.match(text, pos).end()  # type: ignore[union-attr]

    def line_at(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    pos = skip(0)
    if not text.startswith("[", pos):
        raise CorpusError(path, line_at(pos), "malformed JSON: expected an array of records")
    pos = skip(pos + 1)
    line, line_pos = 1, 0
    if text.startswith("]", pos):
        raise CorpusError(path, line_at(pos), "empty file: the array has no records")
    while True:
        line += text.count("\n", line_pos, pos)
        line_pos = pos
        try:
            record, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise CorpusError(path, exc.lineno, f"malformed JSON: {exc.msg}") from exc
        yield line, _expect_object(record)
        pos = skip(end)
        if text.startswith(",", pos):
            pos = skip(pos + 1)
        elif text.startswith("]", pos):
            break
        else:
            raise CorpusError(path, line_at(pos), "malformed JSON: expected ',' or ']'")
    if skip(pos + 1) != len(text):
        raise CorpusError(path, line_at(skip(pos + 1)), "malformed JSON: extra data after array")


def _expect_object(record: object) -> Record | str:
    """The record, or why it is skipped."""
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    return record
