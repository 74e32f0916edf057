"""On-disk cache of a built `Index` (and the papers it was loaded from) for fast restarts.

A cache file is keyed by explicit versions (`cache_file.FORMAT_VERSION`, the analyzer's
`version`, the BM25 parameters and title weight, the `Paper` fields) and the corpus content
(sha256 of the files' names and bytes, streamed): a changed file or version is a miss, an
edited comment in the code is not. Whoever changes what the loader or the index produce
bumps `FORMAT_VERSION` (or the analyzer's `version`).

Anything unexpected on load (another key or version, a short file, a checksum or zip error,
a state the index rejects) is a miss: the index is rebuilt and the file rewritten. A broken
cache is never trusted and never raises.

`load_corpus_and_index` is the start-up path: a hit skips both the loader and the build.
"""

from __future__ import annotations

import hashlib
import logging
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, TextIO, TypeVar, get_type_hints

import numpy as np

from bot.corpus import LoadFilter, LoadReport, Paper, load_corpus
from bot.corpus.loader import progress_line
from bot.search.analysis import ANALYZER_VERSION
from bot.search.bm25 import DEFAULT_PARAMS
from bot.search.cache_file import (
    FORMAT_VERSION,
    CacheMiss,
    cache_path,
    prune,
    read_state,
    write_state,
)
from bot.search.columns import (
    PaperColumns,
    grouped_column,
    optional_int_column,
    pairs_column,
    table_column,
)
from bot.search.index import TITLE_WEIGHT, Index
from bot.search.stamps import STAMPS_FILE, file_digest, read_stamps, write_stamps

__all__ = [
    "CACHE_MIN_PAPERS",
    "DEFAULT_CACHE_DIR",
    "STAMPS_FILE",
    "Progress",
    "corpus_key",
    "load_cached",
    "load_corpus_and_index",
    "load_or_build",
    "progress_reporter",
    "resolve_cache_dir",
]

logger = logging.getLogger(__name__)

CACHE_MIN_PAPERS = 2000
"""Smaller corpora are built directly: a few hundred ms, about what reading a cache costs."""
DEFAULT_CACHE_DIR = Path(__file__).resolve().parents[2] / ".cache"
"""`.cache/` at the repository root (gitignored): where the cache goes when the caller's
settings name no directory (`Settings.index_cache_dir` is None)."""

_PAPERS = "papers."  # state keys of the cached papers, apart from the engine's own keys
_PAIRS = tuple[tuple[str, str], ...]  # Paper.links
_PAIR_SEP = "\x1f"  # a control character: clean labels and URLs never contain one
_PAPER_FIELDS = tuple((f.name, get_type_hints(Paper)[f.name]) for f in fields(Paper))

_T = TypeVar("_T")

Progress = Callable[[int, int], None]
"""`progress(done, total)`, called as papers are indexed."""


def resolve_cache_dir(cache_dir: str | Path | None) -> Path:
    """The caller's cache directory, or `DEFAULT_CACHE_DIR` when it names none."""
    return Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR


def _versions(kind: str) -> str:
    """Everything besides the corpus content that decides what a cache file holds."""
    paper_fields = ",".join(name for name, _ in _PAPER_FIELDS)
    return (
        f"{kind};format={FORMAT_VERSION};analyzer={ANALYZER_VERSION};"
        f"params={DEFAULT_PARAMS!r};title_weight={TITLE_WEIGHT};paper={paper_fields}"
    )


def corpus_key(
    paths: Iterable[str | Path], *, kind: str = "index", stamps: Path | None = None
) -> str:
    """Hex key of the files under `paths` (names and bytes, in order) plus the versions.

    A directory counts all its visible regular files, not only those the loader reads, so
    the key may change more often than needed but never less. `stamps` (a JSON file in the
    cache directory) remembers each file's hash with its stat stamp, so an unchanged
    160 MB corpus is not read again at every start.
    """
    known = read_stamps(stamps) if stamps is not None else None
    before = dict(known) if known is not None else None
    digest = hashlib.sha256(_versions(kind).encode())
    for given in paths:
        path = Path(given)
        files = (
            sorted(
                (c for c in path.iterdir() if not c.name.startswith(".") and c.is_file()),
                key=lambda c: c.name,
            )
            if path.is_dir()
            else [path]
        )
        for file in files:
            digest.update(f"\x1e{file}\x1f".encode())
            digest.update(file_digest(file, known))
    if stamps is not None and known is not None and known != before:
        write_stamps(stamps, known)
    return digest.hexdigest()


def load_corpus_and_index(
    paths: Sequence[str | Path],
    cache_dir: str | Path | None = None,
    *,
    min_papers: int = CACHE_MIN_PAPERS,
    progress: Progress | None = None,
    corpus_filter: str = "",
) -> tuple[LoadReport, Index]:
    """Load the corpus under `paths` and index it, or read both from a valid cache.

    paths: corpus files or directories, as for `load_corpus` (whose errors propagate).
    cache_dir: where cache files live (the settings' `index_cache_dir`); None means
        `DEFAULT_CACHE_DIR`.
    min_papers: smaller corpora are loaded and built without writing a cache.
    progress: build progress callback; None shows a line on a terminal, else logs.
    corpus_filter: keep only the matching records (`bot.corpus.LoadFilter`, CORPUS_FILTER).
    """
    key, path = _corpus_cache(paths, resolve_cache_dir(cache_dir), corpus_filter)
    cached = _cached_corpus(key, path)
    if cached is not None:
        return cached
    report = load_corpus(paths, keep=LoadFilter.parse(corpus_filter))
    index = _build(report.papers, progress, quiet=len(report.papers) < min_papers)
    if path is not None and len(report.papers) >= min_papers:
        _save(path, key, {**index.to_state(), **_report_state(report)})
    return report, index


def load_cached(
    paths: Sequence[str | Path], cache_dir: str | Path | None = None, corpus_filter: str = ""
) -> tuple[LoadReport, Index] | None:
    """The corpus and index under `paths` from a valid cache (memory-mapped), else None.

    Builds nothing: a caller may then build elsewhere (another process) and call it again.
    """
    return _cached_corpus(*_corpus_cache(paths, resolve_cache_dir(cache_dir), corpus_filter))


def _corpus_cache(
    paths: Sequence[str | Path], directory: Path, corpus_filter: str = ""
) -> tuple[str, Path | None]:
    """The corpus cache key of `paths` (and filter) and its file ("", None if unreadable)."""
    kind = f"corpus+index;filter={' '.join(corpus_filter.split())}" if corpus_filter else ""
    try:
        key = corpus_key(paths, kind=kind or "corpus+index", stamps=directory / STAMPS_FILE)
    except OSError:  # a missing or unreadable path: let the loader name the problem
        return "", None
    return key, cache_path(directory, key)


def _cached_corpus(key: str, path: Path | None) -> tuple[LoadReport, Index] | None:
    """The report and index cached at `path`, or None (a miss is logged)."""
    if path is None or not path.exists():
        return None
    started = time.perf_counter()

    def restore(state: dict[str, Any]) -> tuple[LoadReport, Index]:
        report = _report_from_state(state)
        return report, Index.from_state(report.papers, _engine_state(state))

    return _from_cache(path, key, restore, started=started)


def load_or_build(
    papers: Sequence[Paper],
    corpus_files: Sequence[str | Path],
    cache_dir: str | Path | None = None,
    *,
    min_papers: int = CACHE_MIN_PAPERS,
    progress: Progress | None = None,
) -> Index:
    """The index of `papers`: read from the cache when valid, else built (and cached).

    papers: the papers loaded from `corpus_files` (`LoadReport.papers`).
    corpus_files: the files they were read from (`LoadReport.sources`), in load order.
    cache_dir: where cache files live; None means `DEFAULT_CACHE_DIR`.
    min_papers: smaller corpora are built directly, without touching the disk.
    progress: build progress callback; None shows a line on a terminal, else logs.
    """
    if len(papers) < min_papers:
        return _build(papers, progress, quiet=True)
    directory = resolve_cache_dir(cache_dir)
    started = time.perf_counter()
    try:
        key = corpus_key(corpus_files, stamps=directory / STAMPS_FILE)
    except OSError as error:  # a corpus file vanished after loading: just build
        logger.warning("index cache: cannot hash the corpus files (%s); building", error)
        return _build(papers, progress)
    path = cache_path(directory, key)

    def restore(state: dict[str, Any]) -> tuple[None, Index]:
        if list(state.get(_PAPERS + "id", ())) != [p.id for p in papers]:
            raise CacheMiss("built from other papers")
        return None, Index.from_state(papers, _engine_state(state))

    if path.exists():
        cached = _from_cache(path, key, restore, started=started)
        if cached is not None:
            return cached[1]
    index = _build(papers, progress)
    _save(path, key, {**index.to_state(), _PAPERS + "id": [p.id for p in papers]})
    return index


def _from_cache(
    path: Path,
    key: str,
    restore: Callable[[dict[str, Any]], tuple[_T, Index]],
    *,
    started: float,
) -> tuple[_T, Index] | None:
    """`restore` applied to the state cached at `path`, or None (logged) if it is a miss."""
    try:
        restored = restore(read_state(path, key=key, analyzer=ANALYZER_VERSION))
    except CacheMiss as miss:
        logger.warning("index cache %s unusable (%s); rebuilding", path, miss)
        return None
    except Exception as error:  # any state the code rejects is a miss, never a crash
        logger.warning("index cache %s rejected (%r); rebuilding", path, error)
        return None
    logger.info(
        "index cache hit: %d papers from %s in %.2f s",
        len(restored[1]),
        path,
        time.perf_counter() - started,
    )
    return restored


class _Reporting(Sequence[Paper]):
    """`papers` that report progress the first time they are iterated through."""

    def __init__(self, papers: Sequence[Paper], progress: Progress) -> None:
        self._papers = papers
        self._progress = progress
        self._reported = False

    def __len__(self) -> int:
        return len(self._papers)

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        return self._papers[i]

    def __iter__(self) -> Iterator[Paper]:
        if self._reported:
            yield from self._papers
            return
        total = len(self._papers)
        step = max(1, total // 200)
        for done, paper in enumerate(self._papers):
            if done % step == 0:
                self._progress(done, total)
            yield paper
        self._reported = True
        self._progress(total, total)


def _build(papers: Sequence[Paper], progress: Progress | None, *, quiet: bool = False) -> Index:
    """Build the index with progress reports (none when `quiet`) and log the time taken."""
    started = time.perf_counter()
    if quiet:
        index = Index.build(papers)
    else:
        report = progress if progress is not None else progress_reporter(len(papers))
        index = Index.build(_Reporting(papers, report))
    logger.info("indexed %d papers in %.2f s", len(papers), time.perf_counter() - started)
    return index


def _save(path: Path, key: str, state: dict[str, Any]) -> None:
    """Write the cache, logging (not raising) when the disk refuses."""
    try:
        write_state(path, key=key, analyzer=ANALYZER_VERSION, state=state)
    except (OSError, ValueError, TypeError) as error:  # costs the next start, not this one
        logger.warning("index cache: cannot write %s (%s)", path, error)
    else:
        prune(path.parent, keep=path)


def _engine_state(state: dict[str, Any]) -> dict[str, Any]:
    """The engine's part of a cached state."""
    return {k: v for k, v in state.items() if not k.startswith(_PAPERS)}


def _report_state(report: LoadReport) -> dict[str, Any]:
    """A `LoadReport` as state entries: one column per `Paper` field, typed by the field."""
    state: dict[str, Any] = {
        _PAPERS + "sources": list(report.sources),
        _PAPERS + "skipped": list(report.skipped),
        _PAPERS + "bad_records": int(report.bad_records),
    }
    papers = report.papers
    for name, kind in _PAPER_FIELDS:
        column = [getattr(p, name) for p in papers]
        key = _PAPERS + name
        if kind is int:
            state[key] = np.array(column, dtype=np.int64)
        elif kind == int | None:  # a year: 0 stands for "unknown" (no paper is from year 0)
            state[key] = np.array([v or 0 for v in column], dtype=np.int64)
        elif kind is str:
            distinct = list(dict.fromkeys(column))
            if len(distinct) * 2 <= len(column):  # few values, many papers (`source`): a table
                row = {value: i for i, value in enumerate(distinct)}
                state[key] = distinct
                state[key + ":rows"] = np.array([row[v] for v in column], dtype=np.int32)
            else:
                state[key] = column
        elif kind == _PAIRS:  # (label, url) pairs: joined by a separator neither can hold
            state[key] = [_PAIR_SEP.join(pair) for items in column for pair in items]
            state[key + ":counts"] = np.array([len(items) for items in column], dtype=np.int32)
        else:  # tuple[str, ...]: flattened, with a count per paper
            state[key] = [item for items in column for item in items]
            state[key + ":counts"] = np.array([len(items) for items in column], dtype=np.int32)
    return state


def _report_from_state(state: dict[str, Any]) -> LoadReport:
    """The inverse of `_report_state`, papers as lazy `PaperColumns`; `CacheMiss` if broken."""
    try:
        columns = {name: _column(state, _PAPERS + name, kind) for name, kind in _PAPER_FIELDS}
        papers = PaperColumns.from_columns(columns)
        sources, skipped = state[_PAPERS + "sources"], state[_PAPERS + "skipped"]
        sources, skipped = tuple(map(str, sources)), tuple(map(str, skipped))
        bad_records = int(state[_PAPERS + "bad_records"])
    except (KeyError, AttributeError, IndexError, TypeError, ValueError) as error:
        raise CacheMiss(f"papers missing or inconsistent: {error!r}") from error
    # A LoadReport's papers: any Sequence[Paper] reads the same (the cached ones are columns).
    return LoadReport(
        papers=papers,  # type: ignore[arg-type]
        sources=sources,
        skipped=skipped,
        bad_records=bad_records,
    )


def _column(state: dict[str, Any], key: str, kind: object) -> Any:
    """One field's stored column, as `PaperColumns.from_columns` takes it."""
    values = state[key]
    if kind is int:
        return values
    if kind == int | None:
        return optional_int_column(values)
    if kind is str:
        rows = state.get(key + ":rows")
        return values if rows is None else table_column(values, rows)
    if kind == _PAIRS:
        return pairs_column(values, state[key + ":counts"], _PAIR_SEP)
    return grouped_column(values, state[key + ":counts"])


def progress_reporter(
    total: int, *, stream: TextIO | None = None, label: str = "indexing papers"
) -> Progress:
    """A progress callback: a live line on a terminal, else a log line every 10%."""
    out = stream if stream is not None else sys.stderr
    live = out.isatty()
    started = time.perf_counter()
    shown = [0.0, -1.0]  # last time a live line was drawn, last decile logged

    def report(done: int, total_: int = total) -> None:
        total_ = max(total_, 1)
        now = time.perf_counter()
        percent = 100 * done // total_
        if live:
            if now - shown[0] < 0.1 and done < total_:
                return
            shown[0] = now
            end = "\n" if done >= total_ else ""
            out.write(f"\r{label}: {done:,}/{total_:,} ({percent}%) {now - started:.1f} s{end}")
            out.flush()
        elif percent // 10 > shown[1]:
            shown[1] = percent // 10  # a pipe too: the log if it shows, else stderr (issue 19)
            progress_line(f"{label}: {done}/{total_} ({percent}%) {now - started:.1f} s", logger)

    return report
