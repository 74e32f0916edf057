"""Papers turned into vectors behind a small `Embedder` interface, from the vector cache.

An embedder's `name` keys the vector cache, so two models' vectors never mix.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from bot.corpus import Paper
from bot.logs import Progress
from bot.search.cache import read_json, write_json
from bot.search.storage.cache_file import CacheMiss, read_state, write_state

logger = logging.getLogger(__name__)

UNIT = 4
"""Papers a worker takes at a time: the next is taken as soon as it is done, so no worker
waits for another, and progress and a stop request are seen often."""
CHECKPOINT = 256
"""New vectors between cache writes, so an interrupted run keeps most of its work."""


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors; one instance serves many threads."""

    name: str
    """Model name and version: vectors are cached under it."""
    dim: int
    """Length of each vector."""
    workers: int
    """Threads `embed_papers` calls `embed_documents` from at once."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, shape (len(texts), dim), float32, unit length."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """One vector, shape (dim,), float32, unit length."""
        ...


def paper_text(paper: Paper) -> str:
    """What is embedded for a paper: its title, then its abstract."""
    if paper.abstract.startswith(paper.title.rstrip("…").rstrip()):
        return paper.abstract  # the title is only the abstract's first words
    return f"{paper.title}\n{paper.abstract}"


def papers_in_flight(embedder: Embedder) -> int:
    """Papers `embed_papers` has under way at once with `embedder` (one run per worker)."""
    return max(1, embedder.workers) * UNIT


def embed_papers(
    embedder: Embedder,
    papers: Sequence[Paper],
    *,
    cache_dir: str | Path | None = None,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
) -> np.ndarray | None:
    """Unit vectors of `papers` (one row each), from the cache where possible.

    Blocking: run it in a worker thread. None when `stop` is set first (work so far is cached).
    """
    texts = [paper_text(p) for p in papers]
    digests = [text_digest(t) for t in texts]
    cache = VectorCache(cache_dir, embedder.name) if cache_dir is not None else None
    out = np.zeros((len(papers), embedder.dim), dtype=np.float32)
    missing = _read_cached(cache, digests, out)
    done = len(papers) - len(missing)
    if progress is not None:
        progress(done, len(papers))
    unsaved = 0
    for first, vectors in _runs(embedder, [texts[r] for r in missing], stop):
        rows = missing[first : first + len(vectors)]
        out[rows] = vectors
        if cache is not None:
            for row, vector in zip(rows, vectors, strict=True):
                cache.put(digests[row], vector)
        done += len(rows)
        unsaved += len(rows)
        if cache is not None and unsaved >= CHECKPOINT:
            cache.save()
            unsaved = 0
        if progress is not None:
            progress(done, len(papers))
    if cache is not None and unsaved:
        cache.save()
    return out if done == len(papers) else None


def _read_cached(cache: VectorCache | None, digests: Sequence[bytes], out: np.ndarray) -> list[int]:
    """Fill `out`'s rows whose text `cache` holds a vector of; the other rows, in order."""
    if cache is None:
        return list(range(len(digests)))
    cache.load()
    missing = []
    for row, digest in enumerate(digests):
        cached = cache.get(digest)
        if cached is not None and cached.shape == out.shape[1:]:
            out[row] = cached
        else:
            missing.append(row)
    return missing


def _runs(
    embedder: Embedder, texts: Sequence[str], stop: threading.Event | None
) -> Iterator[tuple[int, np.ndarray]]:
    """`(first, vectors)` for runs of `UNIT` texts as they finish, until all are or `stop` is set.

    Each worker takes the next run as soon as its own is done, so none waits for a slower one.
    """

    def run(first: int) -> np.ndarray | None:
        if stop is not None and stop.is_set():
            return None  # queued when the stop came: the worker is free at once
        return embedder.embed_documents(texts[first : first + UNIT])

    firsts = range(0, len(texts), UNIT)
    threads = min(embedder.workers, len(firsts))
    if threads < 2:
        for first in firsts:
            vectors = run(first)
            if vectors is None:
                return
            yield first, vectors
        return
    with ThreadPoolExecutor(threads, thread_name_prefix="embed") as pool:
        yield from _pooled(pool, run, iter(firsts), threads, stop)


def _pooled(
    pool: ThreadPoolExecutor,
    run: Callable[[int], np.ndarray | None],
    firsts: Iterator[int],
    threads: int,
    stop: threading.Event | None,
) -> Iterator[tuple[int, np.ndarray]]:
    """`_runs` on `threads` workers of `pool`, two runs a worker in hand."""
    running: dict[Future[np.ndarray | None], int] = {}
    try:
        while True:
            while not (stop is not None and stop.is_set()) and len(running) < 2 * threads:
                first = next(firsts, None)
                if first is None:
                    break
                running[pool.submit(run, first)] = first
            if not running:
                return
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=running.__getitem__):
                first, vectors = running.pop(future), future.result()
                if vectors is not None:
                    yield first, vectors
    finally:
        for future in running:
            future.cancel()


VECTOR_FORMAT = 1
"""What a vector cache file holds (text digests and unit vectors per model): bump when that
changes. The index cache's FORMAT_VERSION is not part of it, so a new index format keeps the
vectors."""
_DIGEST_BYTES = 32


def text_digest(text: str) -> bytes:
    """The cache key of one embedded text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class VectorCache:
    """Vectors of one model on disk, looked up by the digest of the embedded text."""

    def __init__(self, directory: str | Path, model: str) -> None:
        """The cache file of `model` under `directory` (read lazily, written atomically)."""
        self.model = model
        slug = hashlib.sha256(model.encode()).hexdigest()[:16]
        self.path = Path(directory) / f"vectors-{slug}.vec"
        self._key = f"vectors;{model}"
        self._vectors: dict[bytes, np.ndarray] = {}

    def load(self) -> int:
        """Read the file; a missing, foreign or damaged one counts as empty. Returns its size."""
        try:
            state = read_state(self.path, key=self._key, analyzer=self.model, version=VECTOR_FORMAT)
            digests = np.asarray(state["digests"], dtype=np.uint8)
            vectors = np.asarray(state["vectors"], dtype=np.float32)
            if digests.ndim != 2 or digests.shape[1] != _DIGEST_BYTES:
                raise CacheMiss("bad digests")
            if vectors.ndim != 2 or len(vectors) != len(digests):
                raise CacheMiss("bad vectors")
        except CacheMiss as error:
            if self.path.exists():
                logger.warning("vector cache %s not used (%s); re-embedding", self.path, error)
            self._vectors = {}
            return 0
        except KeyError as error:
            logger.warning("vector cache %s lacks %s; re-embedding", self.path, error)
            self._vectors = {}
            return 0
        self._vectors = {d.tobytes(): v for d, v in zip(digests, vectors, strict=True)}
        return len(self._vectors)

    def get(self, digest: bytes) -> np.ndarray | None:
        """The cached vector of a text digest, if any."""
        return self._vectors.get(digest)

    def put(self, digest: bytes, vector: np.ndarray) -> None:
        """Remember a vector (in memory until `save`)."""
        self._vectors[digest] = np.asarray(vector, dtype=np.float32)

    def save(self) -> None:
        """Write all vectors atomically; a failure is logged, never raised (it is a cache)."""
        if not self._vectors:
            return
        digests = np.frombuffer(b"".join(self._vectors), dtype=np.uint8).reshape(-1, _DIGEST_BYTES)
        state = {
            "model": self.model,
            "digests": digests,
            "vectors": np.stack(list(self._vectors.values())),
        }
        try:
            write_state(
                self.path, key=self._key, analyzer=self.model, state=state, version=VECTOR_FORMAT
            )
        except OSError as error:
            logger.warning("vector cache %s not written: %s", self.path, error)


RATES_FILE = "embedding-rates.json"
MIN_TIMED_PAPERS = 16
"""A rate timed on fewer papers is noise (the first batch also pays the engine's warm-up)."""


@dataclass(frozen=True, slots=True)
class Rate:
    """Papers a second one model embedded, over how many papers, and when (Unix time)."""

    papers_per_second: float
    papers: int
    when: float


def _entry(model: str, threads: int | None) -> str:
    return f"{model};threads={threads if threads is not None else 'all'}"


def read_rate(cache_dir: Path, model: str, threads: int | None) -> Rate | None:
    """The last recorded rate of `model` on `threads` engine threads, or None."""
    try:
        entry = read_json(cache_dir / RATES_FILE)[_entry(model, threads)]
        rate = Rate(float(entry["papers_per_second"]), int(entry["papers"]), float(entry["when"]))
    except (ValueError, KeyError, TypeError):
        return None
    return rate if rate.papers_per_second > 0 else None


def write_rate(
    cache_dir: Path, model: str, threads: int | None, papers_per_second: float, papers: int
) -> None:
    """Record a rate timed on `papers` papers (fewer than `MIN_TIMED_PAPERS`: ignored)."""
    if papers < MIN_TIMED_PAPERS or papers_per_second <= 0:
        return
    path = cache_dir / RATES_FILE
    rates = read_json(path)
    rates[_entry(model, threads)] = {
        "papers_per_second": papers_per_second,
        "papers": papers,
        "when": time.time(),
    }
    try:
        write_json(path, rates)
    except OSError as error:  # a read-only volume: the next start measures again
        logger.debug("embedding rate not recorded in %s: %s", path, error)
