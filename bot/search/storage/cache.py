"""The cached load: the corpus and its `Index` read from the cache, else loaded, built and cached.

Anything unexpected on load (another key or version, a short file, a checksum or zip error,
a state the index rejects) is a miss: the index is rebuilt and the file rewritten. A broken
cache is never trusted and never raises. `load_corpus_and_index` is the start-up path: a hit
skips both the loader and the build.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bot.corpus import LoadFilter, LoadReport, Paper, load_corpus
from bot.logs import Progress, progress_reporter
from bot.search.analysis import ANALYZER_VERSION
from bot.search.index import Index
from bot.search.spelling import Lexicon, papers_lexicon
from bot.search.storage.cache_file import CacheMiss, cache_path, prune, read_state, write_state
from bot.search.storage.key import corpus_key, resolve_cache_dir
from bot.search.storage.papers import engine_state, report_from_state, report_state
from bot.search.storage.stamps import STAMPS_FILE

__all__ = ["CACHE_MIN_PAPERS", "load_cached", "load_corpus_and_index"]

logger = logging.getLogger(__name__)

CACHE_MIN_PAPERS = 2000
"""Smaller corpora are built directly: a few hundred ms, about what reading a cache costs."""


def load_corpus_and_index(
    paths: Sequence[str | Path],
    cache_dir: str | Path | None = None,
    *,
    min_papers: int = CACHE_MIN_PAPERS,
    progress: Progress | None = None,
    corpus_filter: str = "",
    venue_timezone: str = "",
) -> tuple[LoadReport, Index]:
    """Load the corpus under `paths` and index it, or read both from a valid cache.

    paths: corpus files or directories, as for `load_corpus` (whose errors propagate).
    cache_dir: where cache files live (the settings' `index_cache_dir`); None means
        `key.DEFAULT_CACHE_DIR`.
    min_papers: smaller corpora are loaded and built without writing a cache.
    progress: build progress callback; None shows a line on a terminal, else logs.
    corpus_filter: keep only the matching records (`bot.corpus.LoadFilter`, CORPUS_FILTER).
    venue_timezone: every presentation's clock (VENUE_TIMEZONE; "" the corpus's own).
    """
    key, path = _corpus_cache(paths, resolve_cache_dir(cache_dir), corpus_filter, venue_timezone)
    cached = _cached_corpus(key, path)
    if cached is not None:
        return cached
    report = load_corpus(paths, keep=LoadFilter.parse(corpus_filter), venue_timezone=venue_timezone)
    index = _build(report.papers, progress, quiet=len(report.papers) < min_papers)
    if path is not None and len(report.papers) >= min_papers:
        lexicon = papers_lexicon(report.papers).to_state()  # the speller's, ready at every start
        _save(path, key, {**index.to_state(), **report_state(report), **lexicon})
    return report, index


def load_cached(
    paths: Sequence[str | Path],
    cache_dir: str | Path | None = None,
    corpus_filter: str = "",
    venue_timezone: str = "",
) -> tuple[LoadReport, Index] | None:
    """The corpus and index under `paths` from a valid cache (memory-mapped), else None.

    Builds nothing: a caller may then build elsewhere (another process) and call it again.
    """
    directory = resolve_cache_dir(cache_dir)
    return _cached_corpus(*_corpus_cache(paths, directory, corpus_filter, venue_timezone))


def _corpus_cache(
    paths: Sequence[str | Path], directory: Path, corpus_filter: str = "", venue_timezone: str = ""
) -> tuple[str, Path | None]:
    """The corpus cache key of `paths` (filter and zone) and its file ("", None if unreadable)."""
    kind = f"corpus+index;filter={' '.join(corpus_filter.split())}" if corpus_filter else ""
    if venue_timezone:
        kind = f"{kind or 'corpus+index'};zone={venue_timezone}"
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
    try:
        state = read_state(path, key=key, analyzer=ANALYZER_VERSION)
        report = report_from_state(state)
        index = Index.from_state(report.papers, engine_state(state))
        # Read only if a question needs correcting: the speller's words, made at the build.
        index.queries.use_known_words(lambda: Lexicon.from_state(state))
    except CacheMiss as miss:
        logger.warning("index cache %s unusable (%s); rebuilding", path, miss)
        return None
    except Exception as error:  # any state the code rejects is a miss, never a crash
        logger.warning("index cache %s rejected (%r); rebuilding", path, error)
        return None
    logger.info(
        "index cache hit: %d papers from %s in %.2f s",
        len(index),
        path,
        time.perf_counter() - started,
    )
    return report, index


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
