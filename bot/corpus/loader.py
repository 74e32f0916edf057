"""`load_corpus`: files and directories to papers (merged versions, stable ids) and a report.
A file named on its own must be readable; in a directory an unreadable file is a bad record."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

from bot.corpus.filter import LoadFilter
from bot.corpus.ids import assign_ids
from bot.corpus.merge import merge_versions
from bot.corpus.model import (
    MERGED,
    NOT_RECORDS,
    TITLE_DERIVED,
    CorpusError,
    LoadReport,
    NotRecordsError,
    Paper,
)
from bot.corpus.readers import Record, Skipped, Source, expand, read_jsonl, recognise
from bot.corpus.readers.programme_feed import sidecar_of
from bot.corpus.records import normalise_record
from bot.corpus.titles import derive_title
from bot.corpus.zones import offset_name
from bot.logs import progress_line

logger = logging.getLogger(__name__)

# A feed writes its times with the offset of the platform that serves it, not the venue's (ICML
# 2026 in Seoul, +09:00, wrote -07:00), so a venue's clock comes from VENUE_TIMEZONE, else this
# table (venue -> IANA zone of its city, as the conference's site says), else the feed's most
# common offset (and the times are then said to be at that offset).
KNOWN_VENUES: dict[str, str] = {
    "ICML 2026": "Asia/Seoul",  # Seoul, 6-11 July (icml.cc/Conferences/2026)
    "ICML 2025": "America/Vancouver",  # Vancouver Convention Center (icml.cc/Conferences/2025)
    "ICML 2024": "Europe/Vienna",  # Messe Wien, Vienna (icml.cc/Conferences/2024)
    "ICLR 2026": "America/Sao_Paulo",  # Rio de Janeiro, Brasilia time (iclr.cc/Conferences/2026)
    "ICLR 2025": "Asia/Singapore",  # Singapore EXPO (iclr.cc/Conferences/2025)
    "ICLR 2024": "Europe/Vienna",  # Messe Wien, Vienna (iclr.cc/Conferences/2024)
    "NeurIPS 2025": "America/Los_Angeles",  # San Diego (neurips.cc/Conferences/2025)
    "NeurIPS 2024": "America/Vancouver",  # Vancouver (neurips.cc/Conferences/2024)
}
PROGRESS_SECONDS = 5.0  # a longer load says how far it got this often
Progress = Callable[[str], None]


@dataclass
class _Load:
    keep: LoadFilter | None
    progress: Progress
    papers: list[Paper] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # where each paper was read
    bad: list[str] = field(default_factory=list)
    first_bad: tuple[str, int, str] | None = None
    skipped: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    first_error: CorpusError | None = None
    records: int = 0
    filtered: int = 0
    started: float = field(default_factory=lambda: time.monotonic())
    shown: float = 0.0

    def count(self, name: str) -> None:
        self.records += 1
        if self.records % 4096 == 0:
            self.tick(name)

    def skim(self, name: str) -> Callable[[bytes], bool]:
        """The filter's test on raw lines, counting the lines it leaves out."""
        assert self.keep is not None
        may_match = self.keep.may_match

        def test(raw: bytes) -> bool:
            if may_match(raw):
                return True
            self.count(name)
            self.filtered += 1
            return False

        return test

    def tick(self, name: str) -> None:
        now = time.monotonic()
        if now - max(self.started, self.shown) >= PROGRESS_SECONDS:
            self.shown = now
            kept = f", {len(self.papers):,} kept" if self.keep else ""
            seconds = now - self.started
            self.progress(
                f"corpus: reading {name}: {self.records:,} records{kept}, {seconds:.0f} s"
            )


def _sources(paths: Iterable[str | Path], load: _Load) -> list[tuple[Source, bool]]:
    """(source, named on its own) for every file under `paths`; a missing path is an error."""
    found: list[tuple[Path, bool]] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for child in sorted(path.iterdir(), key=lambda p: p.name):
                if child.name.startswith("."):
                    continue  # .DS_Store, editor swap files
                if child.is_file():
                    found.append((child, False))
                else:
                    load.skipped.append(f"{child}: directory, not read")
        elif path.is_file():
            found.append((path, True))
        else:
            raise CorpusError(path, None, "no such file or directory")
    unique: dict[Path, tuple[Path, bool]] = {}
    for path, alone in found:
        unique.setdefault(path.resolve(), (path, alone))
    sources = [(Source.file(path), alone) for path, alone in unique.values()]
    return [(source, alone) for source, alone in sources if alone or not _read_with(source, unique)]


def _read_with(source: Source, files: dict[Path, tuple[Path, bool]]) -> bool:
    """Whether `source` is the abstracts file of a feed among `files` (the feed reads it)."""
    feed = sidecar_of(source)
    return feed is not None and feed.resolve() in files


def _numbered(
    records: Iterable[tuple[int, Record | Paper | str]],
) -> Iterator[tuple[int, int | None, Record | Paper | str]]:
    """(line, record number if another record starts on the same line, record), read one ahead."""
    # The record held back: (line, number, record, whether it shares the line before).
    held: tuple[int, int, Record | Paper | str, bool] | None = None
    try:
        for number, (line, record) in enumerate(records, start=1):
            if held is not None:
                yield held[0], held[1] if held[3] or held[0] == line else None, held[2]
            held = (line, number, record, held is not None and held[0] == line)
    except CorpusError:
        if held is not None:  # a reader's error comes after the record before it
            yield held[0], held[1] if held[3] else None, held[2]
        raise
    if held is not None:
        yield held[0], held[1] if held[3] else None, held[2]


def _read(source: Source, load: _Load) -> None:
    reader = recognise(source)
    records = (
        read_jsonl(source, load.skim(source.name) if load.keep else None)
        if reader is read_jsonl
        else reader(source)
    )
    for line, number, record in _numbered(records):
        load.count(source.name)
        where = f"{source.name}:{line}" + (f", record {number}" if number else "")
        if isinstance(record, Skipped):
            load.skipped.append(f"{where if line else source.name}: {record}")
            continue
        paper = record if isinstance(record, str | Paper) else normalise_record(record)
        if isinstance(paper, str):
            load.bad.append(f"{where}: {paper}")
            load.first_bad = load.first_bad or (source.name, line, paper)
            continue
        if load.keep is not None and not load.keep.matches(paper):
            load.filtered += 1
            continue
        load.papers.append(replace(paper, source=source.name, line=line))
        load.labels.append(where)


def _read_file(source: Source, alone: bool, load: _Load) -> None:
    """A file's sources (a `.zip` holds several); errors are raised if `alone`, else reported."""
    try:
        inner = list(expand(source))
    except CorpusError as error:
        if alone:
            raise
        load.bad.append(f"{error}; file skipped")
        load.first_error = load.first_error or error
        return
    for member in inner:
        before = len(load.papers)
        try:
            _read(member, load)
        except NotRecordsError as error:
            if alone and len(inner) == 1:
                raise
            load.skipped.append(f"{error}{NOT_RECORDS}")
            continue
        except CorpusError as error:
            if alone and len(inner) == 1:
                raise
            kept = len(load.papers) - before
            rest = f"; the {kept} records before it are kept" if kept else "; file skipped"
            load.bad.append(f"{error}{rest}")
            load.first_error = load.first_error or error
        load.sources.append(member.name)


def load_corpus(
    paths: Iterable[str | Path],
    *,
    strict: bool = False,
    keep: LoadFilter | None = None,
    progress: Progress | None = None,
    venue_timezone: str = "",
) -> LoadReport:
    """Every file under `paths` as papers, one per paper; a bad record is skipped and reported
    (with `strict`, any fails the load). `keep` loads only the records matching it. Every
    presentation gets its venue's clock (`venue_timezone`, else `KNOWN_VENUES`' rule).

    >>> report = load_corpus(["corpus/seeds"])
    >>> len(report.papers), report.skipped  # the papers, and what was left out and why
    (57, ())
    """
    paths = list(paths)
    load = _Load(keep=keep, progress=progress or (lambda line: progress_line(line, logger)))
    files = _sources(paths, load)
    for source, alone in files:
        _read_file(source, alone, load)
    if not load.sources and load.first_error is None:
        raise CorpusError(", ".join(str(p) for p in paths) or ".", None, "no corpus files found")
    papers, merges = merge_versions(_finished(load.papers), load.labels)
    papers = _with_venue_zones(papers, venue_timezone)
    if keep is not None:
        load.skipped.append(f"filter {keep.text!r}: {load.filtered:,} records left out")
    # Merged versions last: what a user should read first is what was not loaded at all.
    merged = [*merges, *(line for line in load.skipped if line.endswith(MERGED))]
    others = [line for line in load.skipped if not line.endswith(MERGED)]
    report = LoadReport(
        papers=tuple(papers),
        sources=tuple(load.sources),
        skipped=(*load.bad, *others, *merged),
        bad_records=len(load.bad),
    )
    if strict:
        report.check_strict()
    if not papers and load.first_error is not None:  # nothing usable: the first error is it
        raise load.first_error
    if not papers and load.first_bad is not None:
        name, line, reason = load.first_bad
        raise CorpusError(name, line, f"{reason} (no usable record left)")
    return report


def _finished(pending: list[Paper]) -> list[Paper]:
    """Papers with stable ids (source id, else content) and titles (derived if missing)."""
    ids = assign_ids((p.source_id or None, p.title, p.abstract) for p in pending)
    return [
        replace(paper, id=paper_id)
        if paper.title
        else replace(
            paper,
            id=paper_id,
            title=derive_title(paper.abstract),
            marks=(*paper.marks, TITLE_DERIVED),
        )
        for paper, paper_id in zip(pending, ids, strict=True)
    ]


def _feed_offset(papers: Sequence[Paper]) -> str:
    """The offset most of `papers`' presentation times carry, else ""."""
    counts: Counter[timedelta] = Counter()
    for paper in papers:
        for shown in paper.presentations:
            offset = _offset(shown.start)
            if offset is not None:
                counts[offset] += 1
    if not counts:
        return ""
    best = min(counts, key=lambda o: (-counts[o], o))
    return offset_name(best)


def _offset(text: str) -> timedelta | None:
    try:
        return datetime.fromisoformat(text).utcoffset() if text else None
    except ValueError:
        return None


def _with_venue_zones(papers: Iterable[Paper], setting: str = "") -> list[Paper]:
    """`papers` with each presentation's `zone` set by the `KNOWN_VENUES` rule."""
    papers = list(papers)
    by_venue: dict[str, list[int]] = {}
    for row, paper in enumerate(papers):
        if paper.presentations:
            by_venue.setdefault(paper.venue, []).append(row)
    for venue, rows in by_venue.items():
        zone = setting or KNOWN_VENUES.get(venue, "") or _feed_offset([papers[row] for row in rows])
        for row in rows:
            paper = papers[row]
            shown = tuple(replace(p, zone=zone) for p in paper.presentations)
            papers[row] = replace(paper, presentations=shown)
    return papers
