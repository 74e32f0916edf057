"""`load_corpus`: files and directories to papers: dedupe, stable ids, a skipped-record report."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from bot.corpus.markup import clean_abstract, clean_title
from bot.corpus.model import CorpusError, LoadReport, Paper
from bot.corpus.readers import EXTENSIONS, READERS, Record, decode, reader_for
from bot.corpus.titles import derive_title
from bot.textutil import sendable

__all__ = ["load_corpus"]


def _field(path: Path, line: int, record: Record, name: str) -> str:
    """A record's optional text field as one clean line ("" when absent)."""
    value = record.get(name)
    if value is None:
        return ""
    if isinstance(value, list) and name == "authors":
        names = (" ".join(sendable(str(item), controls="space").split()) for item in value)
        return ", ".join(name for name in names if name)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise CorpusError(path, line, f"field {name!r} must be text, got {type(value).__name__}")
    text = str(value)
    if text.isprintable():  # no controls, no lone surrogates: the common case
        return text.strip()
    return " ".join(sendable(text, controls="space").split())  # one line, like the abstract


def _paper(path: Path, line: int, record: Record) -> tuple[str | None, Paper]:
    """The record's own id (if any) and its paper, still without a number id or derived title."""
    raw_abstract = record.get("abstract")
    if not isinstance(raw_abstract, str) or not raw_abstract.strip():
        raise CorpusError(path, line, "record has no 'abstract'")
    abstract, links = clean_abstract(raw_abstract)
    if not abstract:  # only control characters or markup: nothing to show or search
        raise CorpusError(path, line, "record has no 'abstract'")
    url = _field(path, line, record, "url")
    source_id = _field(path, line, record, "id") or None
    paper = Paper(
        id=source_id or "",
        title=clean_title(_field(path, line, record, "title")),
        abstract=abstract,
        links=links if not url or url in links else (url, *links),
        source=str(path),
        line=line,
        authors=_field(path, line, record, "authors"),
        url=url,
    )
    return source_id, paper


def _files(paths: Iterable[str | Path], skipped: list[str]) -> list[Path]:
    """Expand directories into their supported files; a missing path is an error."""
    files: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for child in sorted(path.iterdir(), key=lambda p: p.name):
                if child.name.startswith("."):
                    continue
                if child.is_file() and reader_for(child) is not None:
                    files.append(child)
                else:
                    kind = "directory" if child.is_dir() else "unsupported file type"
                    skipped.append(f"{child}: {kind}, not read")
        elif path.is_file():
            if reader_for(path) is None:
                raise CorpusError(
                    path, None, f"unsupported file type (expected one of {', '.join(EXTENSIONS)})"
                )
            files.append(path)
        else:
            raise CorpusError(path, None, "no such file or directory")
    unique: dict[Path, Path] = {}
    for path in files:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


def _dedupe_key(abstract: str) -> bytes:
    if not abstract.isascii():
        abstract = unicodedata.normalize("NFKC", abstract)
    folded = " ".join(abstract.casefold().split())
    return hashlib.blake2b(folded.encode(), digest_size=16).digest()


def load_corpus(paths: Iterable[str | Path]) -> LoadReport:
    """Read every supported file under `paths` (files or directories) into papers."""
    skipped: list[str] = []
    files = _files(paths, skipped)
    if not files:
        raise CorpusError(", ".join(str(p) for p in paths) or ".", None, "no corpus files found")
    pending: list[tuple[str | None, Paper]] = []
    seen_abstracts: dict[bytes, Paper] = {}
    source_ids: dict[str, Paper] = {}
    for path in files:
        reader = READERS[path.suffix.lower()]  # _files keeps only files with a reader
        for line, record in reader(path, decode(path)):
            source_id, paper = _paper(path, line, record)
            key = _dedupe_key(paper.abstract)
            first = seen_abstracts.get(key)
            if first is not None:
                skipped.append(
                    f"{path}:{line}: duplicate abstract of {first.source}:{first.line}, skipped"
                )
                continue
            if source_id is not None:
                other = source_ids.get(source_id)
                if other is not None:
                    raise CorpusError(
                        path,
                        line,
                        f"duplicate id {source_id!r} (first at {other.source}:{other.line})",
                    )
                source_ids[source_id] = paper
            seen_abstracts[key] = paper
            pending.append((source_id, paper))
    return LoadReport(
        papers=_finished(pending, source_ids),
        sources=tuple(str(p) for p in files),
        skipped=tuple(skipped),
    )


def _finished(
    pending: list[tuple[str | None, Paper]], source_ids: dict[str, Paper]
) -> tuple[Paper, ...]:
    """Papers with ids (numbers skip the sources' own ids) and titles (derived if missing)."""
    papers: list[Paper] = []
    number = 0
    for source_id, paper in pending:
        if source_id is None:
            number += 1
            while str(number) in source_ids:
                number += 1
            paper = replace(paper, id=str(number))
        if not paper.title:
            paper = replace(paper, title=derive_title(paper.abstract))
        papers.append(paper)
    return tuple(papers)
