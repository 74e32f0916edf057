"""`load_corpus`: files and directories to papers: dedupe, stable ids, a skipped-record report."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from bot.corpus.ids import assign_ids
from bot.corpus.model import CorpusError, LoadReport, Paper
from bot.corpus.readers import EXTENSIONS, READERS, Record, decode, reader_for
from bot.corpus.records import normalise_record
from bot.corpus.titles import derive_title

__all__ = ["load_corpus"]


def _normalised(record: Record | str) -> Paper | str:
    """A reader's record as a paper (no id yet), or the reason it is skipped."""
    return record if isinstance(record, str) else normalise_record(record)


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


def _dedupe_key(paper: Paper) -> bytes:
    """Papers with the same text (the abstract, else the title) are one paper."""
    text = paper.abstract or paper.title
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    folded = " ".join(text.casefold().split())
    return hashlib.blake2b(folded.encode(), digest_size=16).digest()


def load_corpus(paths: Iterable[str | Path], *, strict: bool = False) -> LoadReport:
    """Read every supported file under `paths` (files or directories) into papers.

    A record that cannot become a paper is skipped with a warning naming file, line and
    reason; with `strict`, any such record fails the load (`StrictCorpusError` lists them all).
    """
    skipped: list[str] = []
    bad: list[str] = []
    files = _files(paths, skipped)
    if not files:
        raise CorpusError(", ".join(str(p) for p in paths) or ".", None, "no corpus files found")
    pending: list[Paper] = []
    seen: dict[bytes, Paper] = {}
    first_bad: tuple[Path, int, str] | None = None
    for path in files:
        reader = READERS[path.suffix.lower()]  # _files keeps only files with a reader
        for line, record in reader(path, decode(path)):
            paper = _normalised(record)
            if isinstance(paper, str):
                first_bad = first_bad or (path, line, paper)
                bad.append(f"{path}:{line}: {paper}")
                continue
            paper = replace(paper, source=str(path), line=line)
            key = _dedupe_key(paper)
            first = seen.get(key)
            if first is not None:
                skipped.append(f"{path}:{line}: duplicate of {first.source}:{first.line}, skipped")
                continue
            seen[key] = paper
            pending.append(paper)
    report = LoadReport(
        papers=_finished(pending),
        sources=tuple(str(p) for p in files),
        skipped=(*bad, *skipped),
        bad_records=len(bad),
    )
    if strict:
        report.check_strict()
    if not pending and first_bad is not None:  # nothing usable: the first bad record is the error
        path, line, reason = first_bad
        raise CorpusError(path, line, f"{reason} (no usable record left)")
    return report


def _finished(pending: list[Paper]) -> tuple[Paper, ...]:
    """Papers with stable ids (source id, else content) and titles (derived if missing)."""
    ids = assign_ids((p.source_id or None, p.title, p.abstract) for p in pending)
    return tuple(
        replace(paper, id=paper_id, title=paper.title or derive_title(paper.abstract))
        for paper, paper_id in zip(pending, ids, strict=True)
    )
