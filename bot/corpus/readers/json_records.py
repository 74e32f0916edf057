"""JSON Lines (streamed), a JSON array of objects, and a JSON object holding its records under
a list field (`{"data": [...]}`, `{"results": [...]}`…); a line that is not valid JSON, or a
value that is not an object, is one bad record."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Iterator, Mapping

from bot.corpus.model import CorpusError
from bot.corpus.readers.base import Record, Source, decode

# Fields of a wrapping object that hold its records, most common first.
RECORD_LISTS = ("data", "results", "papers", "items", "hits", "records", "entries", "works",
                "documents", "notes", "publications", "rows", "list")  # fmt: skip
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_MAX_KEYS_SHOWN = 8


def read_jsonl(
    source: Source, keep: Callable[[bytes], bool] | None = None
) -> Iterator[tuple[int, Record | str]]:
    """Records of a JSON Lines file: one object per non-blank line (`keep` pre-filters lines)."""
    seen = False
    for number, raw in source.lines():
        if raw.isspace():  # (no copy of a long line, unlike strip)
            continue
        seen = True
        if keep is not None and not keep(raw):
            continue
        try:
            record = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            yield number, f"malformed JSON: {getattr(exc, 'msg', None) or 'not valid UTF-8'}"
            continue
        yield number, _expect_object(record)
    if not seen:
        raise CorpusError(source.name, 1, "empty file")


def records_key(value: Mapping[str, object]) -> tuple[str, ...] | None:
    """The path to the list of records in a wrapping object (`("hits", "hits")`), or None."""
    if {"title", "abstract"} & {str(k).casefold() for k in value}:
        return None  # a record itself (the arXiv snapshot's lists are `versions`, `authors`)
    for key in RECORD_LISTS:
        inner = value.get(key)
        if isinstance(inner, list) and any(isinstance(item, dict) for item in inner):
            return (key,)
        if isinstance(inner, Mapping):  # Elasticsearch: {"hits": {"total": …, "hits": [...]}}
            deeper = records_key(inner)
            if deeper is not None:
                return (key, *deeper)
    lists = [k for k, v in value.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
    return (max(lists, key=lambda k: len(value[k])),) if lists else None  # type: ignore[arg-type]


def describe_json(value: object) -> str:
    """What a JSON document is, for the message when it holds no records."""
    if isinstance(value, Mapping):
        keys = list(value)
        more = " …" if len(keys) > _MAX_KEYS_SHOWN else ""
        shown = ", ".join(map(str, keys[:_MAX_KEYS_SHOWN])) + more
        return f"a JSON object with keys {shown or '(none)'} — no list of records"
    if isinstance(value, list):
        return "a JSON array with no objects in it"
    return f"a JSON {type(value).__name__}, not records"


def read_json(source: Source) -> Iterator[tuple[int, Record | str]]:
    """Records of a JSON file: an array of objects, or an object wrapping one, with lines."""
    text = decode(source)
    pos = _skip(text, 0)
    if text.startswith("[", pos):
        end = yield from read_array(source.name, text, pos)
        if _skip(text, end + 1) != len(text):
            raise CorpusError(
                source.name,
                _line_at(text, _skip(text, end + 1)),
                "malformed JSON: extra data after array",
            )
        return
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorpusError(source.name, exc.lineno, f"malformed JSON: {exc.msg}") from exc
    path = records_key(whole) if isinstance(whole, Mapping) else None
    if path is None:
        raise CorpusError(source.name, 1, describe_json(whole))
    start = _find_list(text, path)
    if start is not None:
        yield from read_array(source.name, text, start)
        return
    line = 1  # the list could not be located in the text: records keep the object's line
    records: object = whole
    for key in path:
        records = records[key]  # type: ignore[index]
    for record in records:  # type: ignore[attr-defined]
        yield line, _expect_object(record)


def _skip(text: str, pos: int) -> int:
    return _WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _find_list(text: str, path: tuple[str, ...]) -> int | None:
    """Where the wrapped list starts: the `[` after the last key of `path`, checked by parsing."""
    pattern = re.compile(r'"' + re.escape(path[-1]) + r'"\s*:\s*\[')
    for match in pattern.finditer(text):
        start = match.end() - 1
        try:
            value, _ = json.JSONDecoder().raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, list) and any(isinstance(v, dict) for v in value):
            return start
    return None


def read_array(name: str, text: str, pos: int) -> Generator[tuple[int, Record | str], None, int]:
    """The objects of the array starting at `text[pos] == "["`, each with its first line."""
    decoder = json.JSONDecoder()
    pos = _skip(text, pos + 1)
    line, line_pos = 1, 0
    if text.startswith("]", pos):
        raise CorpusError(name, _line_at(text, pos), "empty file: the array has no records")
    while True:
        line += text.count("\n", line_pos, pos)
        line_pos = pos
        try:
            record, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise CorpusError(name, exc.lineno, f"malformed JSON: {exc.msg}") from exc
        yield line, _expect_object(record)
        pos = _skip(text, end)
        if text.startswith(",", pos):
            pos = _skip(text, pos + 1)
        elif text.startswith("]", pos):
            return pos
        else:
            raise CorpusError(name, _line_at(text, pos), "malformed JSON: expected ',' or ']'")


def _expect_object(record: object) -> Record | str:
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    return record
