"""arXiv API answers (Atom XML), one record per `<entry>`; defusedxml refuses hostile entities."""

from __future__ import annotations

import re
from collections.abc import Iterator
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from bot.corpus.model import CorpusError
from bot.corpus.readers.base import Record, Source

ATOM = "http://www.w3.org/2005/Atom"
_ARXIV = "http://arxiv.org/schemas/atom"
_A, _X = f"{{{ATOM}}}", f"{{{_ARXIV}}}"
_ENTRY_START = re.compile(rb"<(?:\w+:)?entry[\s>]")
_ABS_ID = re.compile(r"arxiv\.org/abs/(.+?)(?:v\d+)?$")


def looks_like_atom(head: bytes) -> bool:
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:2048]
    return start.startswith(b"<") and b"<feed" in start and ATOM.encode() in start


def _text(entry: Element, tag: str) -> str:
    node = entry.find(tag)
    return " ".join((node.text or "").split()) if node is not None else ""


def atom_record(entry: Element) -> Record:
    entry_id = _text(entry, _A + "id")
    match = _ABS_ID.search(entry_id)
    record: Record = {
        "title": _text(entry, _A + "title"),
        "abstract": _text(entry, _A + "summary"),
        "authors": [_text(a, _A + "name") for a in entry.findall(_A + "author")],
        "published": _text(entry, _A + "published") or _text(entry, _A + "updated"),
        "venue": _text(entry, _X + "journal_ref") or "arXiv",
        "doi": _text(entry, _X + "doi"),
        "categories": [c.get("term", "") for c in entry.findall(_A + "category")],
    }
    if match:
        record["arxiv"] = record["id"] = match.group(1)
    for link in entry.findall(_A + "link"):
        href, title = link.get("href", ""), link.get("title", "")
        if title == "pdf" or link.get("type") == "application/pdf":
            record.setdefault("pdf", href.replace("http://", "https://", 1))
    return record


def read_arxiv_atom(source: Source) -> Iterator[tuple[int, Record | str]]:
    raw = source.read_bytes()
    try:
        root = fromstring(raw)
    except (ParseError, DefusedXmlException) as exc:
        line = getattr(exc, "position", (None,))[0]
        raise CorpusError(source.name, line, f"malformed XML: {exc}") from exc
    if root.tag != _A + "feed":
        raise CorpusError(source.name, 1, f"an XML document with root <{root.tag}>, not Atom")
    starts = [raw.count(b"\n", 0, m.start()) + 1 for m in _ENTRY_START.finditer(raw)]
    entries = root.findall(_A + "entry")
    if not entries:
        raise CorpusError(source.name, 1, "empty feed: no <entry>")
    for number, entry in enumerate(entries):
        line = starts[number] if number < len(starts) else 1
        yield line, atom_record(entry)
