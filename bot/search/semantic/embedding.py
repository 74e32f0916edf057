"""Papers turned into vectors, behind a small `Embedder` interface, from the cache if possible.

The product's embedder is `e5_embedder.OnnxE5Embedder`; another model (or a stand-in in
tests) plugs in by implementing `Embedder`, whose `name` keys the vector cache, so vectors
of two models never mix. `embed_papers` is plain blocking code meant for a worker thread:
onnxruntime's runs release the GIL, so an event loop in the main thread keeps running while
papers embed, and `workers` threads embed at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Protocol

import numpy as np

from bot.corpus import Paper
from bot.logs import Progress
from bot.search.semantic.vector_cache import VectorCache, text_digest

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

    Blocking; run it in a worker thread. Returns None when `stop` is set before the end
    (what was embedded so far is still cached).
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
    """`(first, vectors)` for runs of `UNIT` texts, in the order they are done, until all
    are or `stop` is set; `embedder.workers` threads embed them.

    Each worker takes the next run as soon as its own is done, so none waits at a batch's
    end for a slower one. Once `stop` is set no run starts; those under way finish and are
    yielded.
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
    """`_runs` on `threads` workers of `pool`: two runs a worker in hand, so a worker that
    finishes takes a queued one."""
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
