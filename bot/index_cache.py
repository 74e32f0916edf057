"""On-disk cache of a built `Index` (and the papers it was loaded from) for fast restarts.

A cache file is keyed by the corpus files' content (sha256 of their bytes, streamed),
`ANALYZER_VERSION`, `CACHE_FORMAT` and a digest of the loader/analyzer/engine sources, so
any change to the files or to the code that reads and indexes them is a miss. Layout:

    MAGIC | header length (8 bytes, little-endian) | JSON header | np.savez archive

The header carries the key, the archive's length and sha256, and the state's small
values; the archive holds the arrays (loaded with `allow_pickle=False`). Files are
written to a temporary name and `os.replace`d, so a reader never sees half a file.
Anything unexpected on load (another key or version, a short file, a checksum or zip
error, a state the index rejects) is a miss: the index is rebuilt and the file rewritten.
A broken cache is never trusted and never raises.

`load_corpus_and_index` is the start-up path: a hit skips both the loader and the build.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, TextIO, TypeVar

import numpy as np

from bot import corpus as _corpus_module
from bot import search as _search_module
from bot import text as _text_module
from bot.corpus import LoadReport, Paper, load_corpus
from bot.search import Index
from bot.text import ANALYZER_VERSION

logger = logging.getLogger(__name__)

CACHE_FORMAT = 1
"""Bump when the file layout changes."""
CACHE_MIN_PAPERS = 2000
"""Smaller corpora are built directly: a few hundred ms, about what reading a cache costs."""
CACHE_DIR_ENV = "INDEX_CACHE_DIR"
DEFAULT_CACHE_DIR = Path(__file__).resolve().parent.parent / ".cache"
"""`.cache/` at the repository root (gitignored)."""
KEEP_FILES = 3
"""Cache files kept per directory; older ones (other corpora or code) are removed."""

MAGIC = b"ICMLIDX\n"
_PREFIX = "index-"
_SUFFIX = ".idx"
_CHUNK = 1 << 20
_MAX_HEADER_BYTES = 1 << 24
_PAPERS = "papers."  # state keys of the cached papers, apart from the engine's own keys
_INLINE_CHARS = 1024  # longer strings go in the archive, not the JSON header

_T = TypeVar("_T")

Progress = Callable[[int, int], None]
"""`progress(done, total)`, called as papers are indexed."""


class CacheMiss(Exception):
    """A cache file that cannot be used; the message says why."""


def default_cache_dir() -> Path:
    """`$INDEX_CACHE_DIR` if set, else `.cache/` in the repository."""
    configured = os.environ.get(CACHE_DIR_ENV, "").strip()
    return Path(configured) if configured else DEFAULT_CACHE_DIR


def code_digest() -> str:
    """Digest of the sources that turn corpus files into an index (loader, analyzer, engine)."""
    digest = hashlib.sha256()
    for module in (_corpus_module, _text_module, _search_module, sys.modules[__name__]):
        digest.update(Path(module.__file__ or "").read_bytes())
    return digest.hexdigest()


def _file_digest(path: Path) -> bytes:
    """sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as data:
        while chunk := data.read(_CHUNK):
            digest.update(chunk)
    return digest.digest()


def corpus_key(paths: Iterable[str | Path], *, kind: str = "index") -> str:
    """Hex key of the files under `paths` (names and bytes, in order) plus versions and code.

    A directory counts all its visible regular files, not only those the loader reads, so
    the key may change more often than needed but never less.
    """
    digest = hashlib.sha256(
        f"{kind};format={CACHE_FORMAT};analyzer={ANALYZER_VERSION};code={code_digest()}".encode()
    )
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
            digest.update(_file_digest(file))
    return digest.hexdigest()


def cache_path(cache_dir: str | Path, key: str) -> Path:
    """Where the cache for `key` is stored."""
    return Path(cache_dir) / f"{_PREFIX}{key[:32]}{_SUFFIX}"


def load_corpus_and_index(
    paths: Sequence[str | Path],
    cache_dir: str | Path | None = None,
    *,
    min_papers: int = CACHE_MIN_PAPERS,
    progress: Progress | None = None,
) -> tuple[LoadReport, Index]:
    """Load the corpus under `paths` and index it, or read both from a valid cache.

    paths: corpus files or directories, as for `load_corpus` (whose errors propagate).
    cache_dir: where cache files live; None means `default_cache_dir()`.
    min_papers: smaller corpora are loaded and built without writing a cache.
    progress: build progress callback; None shows a line on a terminal, else logs.
    """
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    started = time.perf_counter()
    try:
        key = corpus_key(paths, kind="corpus+index")
    except OSError:  # a missing or unreadable path: let the loader name the problem
        key = ""
    path = cache_path(directory, key) if key else None

    def restore(state: dict[str, Any]) -> tuple[LoadReport, Index]:
        report = _report_from_state(state)
        return report, Index.from_state(report.papers, _engine_state(state))

    if path is not None and path.exists():
        cached = _from_cache(path, key, restore, started=started)
        if cached is not None:
            return cached
    report = load_corpus(paths)
    index = _build(report.papers, progress, quiet=len(report.papers) < min_papers)
    if path is not None and len(report.papers) >= min_papers:
        _save(path, key, {**index.to_state(), **_report_state(report)})
    return report, index


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
    cache_dir: where cache files live; None means `default_cache_dir()`.
    min_papers: smaller corpora are built directly, without touching the disk.
    progress: build progress callback; None shows a line on a terminal, else logs.
    """
    if len(papers) < min_papers:
        return _build(papers, progress, quiet=True)
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    started = time.perf_counter()
    try:
        key = corpus_key(corpus_files)
    except OSError as error:  # a corpus file vanished after loading: just build
        logger.warning("index cache: cannot hash the corpus files (%s); building", error)
        return _build(papers, progress)
    path = cache_path(directory, key)

    def restore(state: dict[str, Any]) -> tuple[None, Index]:
        if state.get(_PAPERS + "ids") != [p.id for p in papers]:
            raise CacheMiss("built from other papers")
        return None, Index.from_state(papers, _engine_state(state))

    if path.exists():
        cached = _from_cache(path, key, restore, started=started)
        if cached is not None:
            return cached[1]
    index = _build(papers, progress)
    _save(path, key, {**index.to_state(), _PAPERS + "ids": [p.id for p in papers]})
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
        restored = restore(read_state(path, key=key))
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
        write_state(path, key=key, state=state)
    except (OSError, ValueError, TypeError) as error:  # costs the next start, not this one
        logger.warning("index cache: cannot write %s (%s)", path, error)
    else:
        _prune(path.parent, keep=path)


def _engine_state(state: dict[str, Any]) -> dict[str, Any]:
    """The engine's part of a cached state."""
    return {k: v for k, v in state.items() if not k.startswith(_PAPERS)}


def _report_state(report: LoadReport) -> dict[str, Any]:
    """A `LoadReport` as state entries (lists of strings and int arrays)."""
    papers = report.papers
    sources = list(dict.fromkeys(p.source for p in papers))
    source_row = {s: i for i, s in enumerate(sources)}
    return {
        _PAPERS + "ids": [p.id for p in papers],
        _PAPERS + "titles": [p.title for p in papers],
        _PAPERS + "abstracts": [p.abstract for p in papers],
        _PAPERS + "authors": [p.authors for p in papers],
        _PAPERS + "urls": [p.url for p in papers],
        _PAPERS + "links": [link for p in papers for link in p.links],
        _PAPERS + "link_counts": np.array([len(p.links) for p in papers], dtype=np.int32),
        _PAPERS + "lines": np.array([p.line for p in papers], dtype=np.int64),
        _PAPERS + "paper_sources": sources,
        _PAPERS + "source_rows": np.array([source_row[p.source] for p in papers], dtype=np.int32),
        _PAPERS + "sources": list(report.sources),
        _PAPERS + "skipped": list(report.skipped),
    }


def _report_from_state(state: dict[str, Any]) -> LoadReport:
    """The inverse of `_report_state`; raises `CacheMiss` on inconsistent lengths."""
    try:
        ids = state[_PAPERS + "ids"]
        columns = [state[_PAPERS + name] for name in ("titles", "abstracts", "authors", "urls")]
        link_counts = state[_PAPERS + "link_counts"]
        lines = state[_PAPERS + "lines"].tolist()
        paper_sources = state[_PAPERS + "paper_sources"]
        source_rows = state[_PAPERS + "source_rows"].tolist()
        links = state[_PAPERS + "links"]
        sources, skipped = state[_PAPERS + "sources"], state[_PAPERS + "skipped"]
    except (KeyError, AttributeError) as error:
        raise CacheMiss(f"papers missing: {error}") from error
    n = len(ids)
    if any(len(c) != n for c in (*columns, link_counts, lines, source_rows)) or int(
        link_counts.sum()
    ) != len(links):
        raise CacheMiss("papers inconsistent")
    ends = np.cumsum(link_counts).tolist()
    starts = [0, *ends[:-1]]
    papers = tuple(
        Paper(
            id=ids[i],
            title=columns[0][i],
            abstract=columns[1][i],
            links=tuple(links[starts[i] : ends[i]]),
            source=paper_sources[source_rows[i]],
            line=lines[i],
            authors=columns[2][i],
            url=columns[3][i],
        )
        for i in range(n)
    )
    return LoadReport(papers=papers, sources=tuple(sources), skipped=tuple(skipped))


def write_state(path: str | Path, *, key: str, state: dict[str, Any]) -> None:
    """Store `state` at `path` atomically (temporary file, then `os.replace`)."""
    path = Path(path)
    arrays, values, texts, string_lists = _split_state(state)
    archive = io.BytesIO()
    np.savez(archive, **arrays)
    payload = archive.getbuffer()
    header = {
        "format": CACHE_FORMAT,
        "analyzer": ANALYZER_VERSION,
        "key": key,
        "archive_bytes": payload.nbytes,
        "archive_sha256": hashlib.sha256(payload).hexdigest(),
        "values": values,
        "texts": texts,
        "string_lists": string_lists,
    }
    header_bytes = json.dumps(header, sort_keys=True).encode()
    if len(header_bytes) >= _MAX_HEADER_BYTES:
        raise ValueError("index cache header too large")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC)
            out.write(len(header_bytes).to_bytes(8, "little"))
            out.write(header_bytes)
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    logger.info("index cache written: %s (%.1f MB)", path, path.stat().st_size / 1e6)


def read_state(path: str | Path, *, key: str) -> dict[str, Any]:
    """The state stored at `path` under `key`; raises `CacheMiss` if it is not usable."""
    try:
        with open(path, "rb") as data:
            if data.read(len(MAGIC)) != MAGIC:
                raise CacheMiss("not an index cache file")
            size = int.from_bytes(data.read(8), "little")
            if not 0 < size < _MAX_HEADER_BYTES:
                raise CacheMiss("bad header length")
            header = json.loads(data.read(size))
            _check_header(header, key=key)
            payload = data.read(header["archive_bytes"] + 1)
    except OSError as error:
        raise CacheMiss(f"cannot read: {error}") from error
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise CacheMiss(f"bad header: {error!r}") from error
    if len(payload) != header["archive_bytes"]:
        raise CacheMiss("truncated" if len(payload) < header["archive_bytes"] else "trailing bytes")
    if hashlib.sha256(payload).hexdigest() != header["archive_sha256"]:
        raise CacheMiss("checksum mismatch")
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        return _join_state(arrays, header["values"], header["texts"], header["string_lists"])
    except Exception as error:  # numpy/zipfile raise many types on a malformed archive
        raise CacheMiss(f"bad archive: {error!r}") from error


def _check_header(header: Any, *, key: str) -> None:
    """Raise `CacheMiss` unless the header belongs to this key, analyzer and format."""
    if not isinstance(header, dict):
        raise CacheMiss("header is not an object")
    if header.get("format") != CACHE_FORMAT:
        raise CacheMiss(f"cache format {header.get('format')!r}, want {CACHE_FORMAT}")
    if header.get("analyzer") != ANALYZER_VERSION:
        raise CacheMiss(f"analyzer {header.get('analyzer')!r}, want {ANALYZER_VERSION}")
    if header.get("key") != key:
        raise CacheMiss("built from other corpus files or code")
    size = header.get("archive_bytes")
    if not isinstance(size, int) or size < 0:
        raise CacheMiss("bad archive length")


def _split_state(
    state: dict[str, Any],
) -> tuple[dict[str, np.ndarray], dict[str, Any], list[str], list[str]]:
    """Arrays for the archive, JSON values for the header, and which arrays hold strings.

    Long strings become UTF-8 byte arrays; lists of strings become one UTF-8 array plus
    character offsets (`<name>:offsets`), far smaller than numpy's fixed-width unicode.
    """
    arrays: dict[str, np.ndarray] = {}
    values: dict[str, Any] = {}
    texts: list[str] = []
    string_lists: list[str] = []
    for name, value in state.items():
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise TypeError(f"state {name!r}: object arrays would need pickle")
            arrays[name] = value
        elif isinstance(value, str) and len(value) > _INLINE_CHARS:
            arrays[name] = np.frombuffer(value.encode("utf-8", "surrogatepass"), dtype=np.uint8)
            texts.append(name)
        elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            joined = "".join(value)
            arrays[name] = np.frombuffer(joined.encode("utf-8", "surrogatepass"), dtype=np.uint8)
            offsets = np.zeros(len(value) + 1, dtype=np.int64)
            np.cumsum([len(v) for v in value], out=offsets[1:])
            arrays[name + ":offsets"] = offsets
            string_lists.append(name)
        else:
            values[name] = value
    return arrays, json.loads(json.dumps(values)), texts, string_lists


def _join_state(
    arrays: dict[str, np.ndarray], values: dict[str, Any], texts: list[str], string_lists: list[str]
) -> dict[str, Any]:
    """The inverse of `_split_state`."""
    state: dict[str, Any] = dict(values)
    for name in texts:
        state[name] = arrays.pop(name).tobytes().decode("utf-8", "surrogatepass")
    for name in string_lists:
        joined = arrays.pop(name).tobytes().decode("utf-8", "surrogatepass")
        offsets = arrays.pop(name + ":offsets").tolist()
        if not offsets or offsets[0] != 0 or offsets[-1] != len(joined):
            raise ValueError(f"bad offsets for {name!r}")
        state[name] = [joined[a:b] for a, b in pairwise(offsets)]
    state.update(arrays)
    return state


def _prune(directory: Path, *, keep: Path) -> None:
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
            shown[1] = percent // 10
            logger.info("%s: %d/%d (%d%%) %.1f s", label, done, total_, percent, now - started)

    return report
