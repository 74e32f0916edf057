"""The one load path (settings -> corpus -> index) for run, search, console, /reload, SIGHUP."""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Settings
from bot.corpus import CorpusError, LoadReport

if TYPE_CHECKING:
    from bot.search import EmbeddingJob, Index, Progress, Retriever

logger = logging.getLogger(__name__)

SEPARATE_BUILD_BYTES = 4_000_000
"""A corpus this large (~2,500 papers) is indexed in a separate process that writes the index
cache; this process then memory-maps the cache. The build's seconds of GIL-bound work and its
peak memory stay out of the bot, which keeps answering meanwhile (a /reload). Smaller corpora
are built in-process: starting a Python costs more than their build."""


class EmptyCorpusError(CorpusError):
    """The corpus paths exist but hold no papers: nothing to serve."""


def corpus_paths(settings: Settings, given: Sequence[str | Path] | None = None) -> list[Path]:
    """`given` paths (a command-line `--corpus`), else the configured CORPUS."""
    if given:
        return [Path(path) for path in given]
    return list(settings.corpus)


def load_index(
    paths: Sequence[Path],
    cache_dir: Path | None = None,
    *,
    strict: bool = False,
    separate_build_bytes: int = SEPARATE_BUILD_BYTES,
    corpus_filter: str = "",
) -> tuple[LoadReport, Index]:
    """Read the corpus and index it through the index cache; raises CorpusError.

    On a cache miss, a corpus of `separate_build_bytes` or more is built in another process
    (`build_in_subprocess`) and then read from the cache it wrote. An empty corpus is an
    `EmptyCorpusError`: every entry point refuses to serve nothing. With `strict`, any bad
    record is a `StrictCorpusError` listing them all (CORPUS_STRICT). `corpus_filter` keeps
    only matching records (CORPUS_FILTER). The index's speller starts building in the
    background. Runs for seconds on a large corpus: call it from a worker thread once serving.
    """
    # Lazy: numpy and the index cache only once the caller has checked its input.
    from bot.search import load_cached, load_corpus_and_index

    loaded = load_cached(paths, cache_dir, corpus_filter)
    if loaded is None and _corpus_bytes(paths) >= separate_build_bytes:
        build_in_subprocess(paths, cache_dir, corpus_filter)
        loaded = load_cached(paths, cache_dir, corpus_filter)
    # Small corpora, and any failure of the separate build: here, with the loader's own errors.
    report, index = loaded or load_corpus_and_index(paths, cache_dir, corpus_filter=corpus_filter)
    if strict:  # checked on the report, so a cached corpus is refused the same way
        report.check_strict()
    if not report.papers:
        raise EmptyCorpusError(", ".join(map(str, paths)), None, "no papers found")
    index.queries.start_speller()  # in a daemon thread: typos are corrected once it is ready
    return report, index


def build_in_subprocess(
    paths: Sequence[Path], cache_dir: Path | None = None, corpus_filter: str = ""
) -> bool:
    """Load, index and cache the corpus in a fresh ('spawn') process; True if it succeeded.

    The loader's `CorpusError` (file, line, reason) is raised here as in-process. Any other
    failure (a killed child, no processes allowed) is logged and gives False: the caller
    builds in-process.
    """
    context = multiprocessing.get_context("spawn")  # no fork of a threaded process
    level = logging.getLogger().getEffectiveLevel()
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            job = pool.submit(
                _build_cache, [str(p) for p in paths], cache_dir, level, corpus_filter
            )
            error = job.result()
    except Exception as failure:
        logger.warning("index build in a separate process failed (%r); building here", failure)
        return False
    if error is not None:
        raise CorpusError(*error)
    return True


def _build_cache(
    paths: list[str], cache_dir: Path | None, level: int, corpus_filter: str = ""
) -> tuple[str, int | None, str] | None:
    """In the child: load, index and cache the corpus whatever its size; the loader's error.

    The error travels as (path, line, reason): `CorpusError` itself does not pickle.
    """
    from bot.search import load_corpus_and_index

    # A spawned child starts without the parent's logging set-up: same level, to stderr.
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        load_corpus_and_index(paths, cache_dir, min_papers=0, corpus_filter=corpus_filter)
    except CorpusError as error:
        return error.path, error.line, error.reason
    return None


def _corpus_bytes(paths: Sequence[Path]) -> int:
    """Bytes in the files under `paths` (0 for what cannot be read: the loader will say)."""
    total = 0
    for path in map(Path, paths):
        try:
            files = [f for f in path.iterdir() if f.is_file()] if path.is_dir() else [path]
            total += sum(f.stat().st_size for f in files)
        except OSError:
            continue
    return total


def semantic_retriever(
    index: Index,
    settings: Settings,
    *,
    progress: Progress | None = None,
    embed_threads: int | None = 1,
) -> tuple[Retriever, EmbeddingJob | None]:
    """What to serve for `index`: itself (SEMANTIC off), or a hybrid and its started job.

    The job embeds the papers in a daemon thread (vectors cached next to the index cache)
    and attaches them when done; until then the hybrid answers with BM25. `embed_threads`:
    the engine's threads (1 leaves the other core to answering; None: all, for the CLI).
    Nothing is embedded here: this returns at once.
    """
    if not settings.semantic:
        return index, None
    from bot.progress import progress_reporter
    from bot.search import resolve_cache_dir
    from bot.search.semantic import EmbeddingJob, HybridRetriever, load_default_embedder

    # One engine thread: OpenMP threads spin against the embedding thread and other processes
    # on a busy machine (a question took 650 ms instead of 30 there). One instance serves
    # questions and papers: the C engine keeps no state between calls and ctypes releases the
    # GIL, so a question does not wait behind papers (benchmarks/model_memory.py).
    model = load_default_embedder(num_threads=embed_threads)
    if model is None:
        return index, None
    retriever = HybridRetriever(index, model)
    if progress is None:
        progress = progress_reporter(len(index), label="embedding papers")
    job = EmbeddingJob(
        retriever,
        model,
        cache_dir=resolve_cache_dir(settings.index_cache_dir),
        progress=progress,
    )
    return retriever, job.start()
