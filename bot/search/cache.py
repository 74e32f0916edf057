"""The index cache: the corpus and its `Index` read from disk, else loaded, built and saved.

The key covers the corpus's files and every version that decides what a file holds. Anything
unexpected on load is a miss: the index is rebuilt and the file rewritten, never an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bot.config import REPO_ROOT
from bot.corpus import LoadFilter, LoadReport, Paper, load_corpus, sidecar_path
from bot.logs import Progress, progress_reporter
from bot.search.query.analysis import ANALYZER_VERSION
from bot.search.query.spelling import Lexicon, papers_lexicon
from bot.search.rank.bm25 import DEFAULT_PARAMS
from bot.search.rank.documents import TITLE_WEIGHT
from bot.search.rank.index import Index
from bot.search.storage.cache_file import (
    FORMAT_VERSION,
    CacheMiss,
    read_state,
    replaced,
    write_state,
)
from bot.search.storage.columns import PAPER_FIELDS, engine_state, report_from_state, report_state

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
    cache_dir: where cache files live; None means `DEFAULT_CACHE_DIR`.
    min_papers: smaller corpora are loaded and built without writing a cache.
    progress: build progress callback; None shows a line on a terminal, else logs.
    corpus_filter: keep only the matching records (`bot.corpus.LoadFilter`).
    venue_timezone: every presentation's clock ("": the corpus's own).
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
    """The corpus and index from a valid cache (memory-mapped), else None; builds nothing."""
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


DEFAULT_CACHE_DIR = REPO_ROOT / ".cache"
"""`.cache/` at the repository root (gitignored): where the cache goes when the caller's
settings name no directory (`Settings.index_cache_dir` is None)."""


def resolve_cache_dir(cache_dir: str | Path | None) -> Path:
    """The caller's cache directory, or `DEFAULT_CACHE_DIR` when it names none."""
    return Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR


def _versions(kind: str) -> str:
    """Everything besides the corpus content that decides what a cache file holds."""
    paper_fields = ",".join(name for name, _ in PAPER_FIELDS)
    return (
        f"{kind};format={FORMAT_VERSION};analyzer={ANALYZER_VERSION};"
        f"params={DEFAULT_PARAMS!r};title_weight={TITLE_WEIGHT};paper={paper_fields}"
    )


def corpus_key(
    paths: Iterable[str | Path], *, kind: str = "index", stamps: Path | None = None
) -> str:
    """Hex key of the files under `paths` (names and bytes, in order) plus the versions.

    A directory counts all its visible regular files, so the key may change more often than
    needed but never less. Unchanged files' hashes come from `stamps`.
    """
    known = read_json(stamps) if stamps is not None else None
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
            else [path, *filter(None, [sidecar_path(path)])]  # a feed is read with its sidecar
        )
        for file in files:
            digest.update(f"\x1e{file}\x1f".encode())
            digest.update(file_digest(file, known))
    if stamps is not None and known is not None and known != before:
        write_stamps(stamps, known)
    return digest.hexdigest()


_CHUNK = 1 << 20
_RACY_NS = 2_000_000_000
STAMPS_FILE = "corpus-stamps.json"
"""In the cache directory: each corpus file's sha256 with the stat stamp it was taken at."""


def file_digest(path: Path, stamps: dict[str, list[Any]] | None = None) -> bytes:
    """sha256 of a file's bytes, reused from `stamps` while its stat stamp is unchanged.

    A file changed within `_RACY_NS` of being hashed gets no stamp (its next change could share
    the timestamp), so it is hashed again next time.
    """
    info = path.stat()
    stamp = [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]
    name = str(path.resolve())
    known = stamps.get(name) if stamps is not None else None
    if isinstance(known, list) and known[:-1] == stamp and isinstance(known[-1], str):
        return bytes.fromhex(known[-1])
    digest = hashlib.sha256()
    with path.open("rb") as data:
        while chunk := data.read(_CHUNK):
            digest.update(chunk)
    if stamps is not None:
        if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > _RACY_NS:
            stamps[name] = [*stamp, digest.hexdigest()]
        else:
            stamps.pop(name, None)
    return digest.digest()


def write_stamps(path: Path, stamps: dict[str, list[Any]]) -> None:
    """Replace the stamps file atomically, in an existing cache dir; failing costs a re-hash."""
    if not path.parent.is_dir():
        return
    stamps = {name: stamp for name, stamp in stamps.items() if os.path.exists(name)}
    try:
        write_json(path, stamps)
    except OSError as error:
        logger.debug("index cache: cannot write %s (%s)", path, error)


KEEP_FILES = 3
"""Cache files kept per directory; older ones (other corpora or versions) are removed."""
_PREFIX = "index-"
_SUFFIX = ".idx"


def cache_path(cache_dir: str | Path, key: str) -> Path:
    """Where the cache for `key` is stored."""
    return Path(cache_dir) / f"{_PREFIX}{key[:32]}{_SUFFIX}"


def prune(directory: Path, *, keep: Path) -> None:
    """Remove all but the newest `KEEP_FILES` cache files (always keeping `keep`)."""
    try:
        files = sorted(
            (p for p in directory.glob(f"{_PREFIX}*{_SUFFIX}") if p != keep),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        for old in files[KEEP_FILES - 1 :]:
            old.unlink(missing_ok=True)
        for tmp in directory.glob(f"{_PREFIX}*{_SUFFIX}.*.tmp"):
            if time.time() - tmp.stat().st_mtime > 3600:  # left by a killed writer
                tmp.unlink(missing_ok=True)
    except OSError as error:
        logger.debug("index cache: pruning %s failed: %s", directory, error)


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; {} when the file is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Replace `path` with `data` as JSON (keys sorted); OSError when the disk refuses."""
    with replaced(path) as out:
        json.dump(data, out, indent=1, sort_keys=True)
