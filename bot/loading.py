"""The one way to load the corpus and index it (the bot, its /reload and every command), and
to start semantic search over the index."""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Settings
from bot.corpus import CorpusError, LoadReport
from bot.logs import EtaClock, Progress, progress_reporter

if TYPE_CHECKING:
    from bot.search import EmbeddingJob, EmbeddingProcess, HybridRetriever, Index

logger = logging.getLogger(__name__)

# A corpus this large is indexed in a separate process that writes the index cache, which
# this process then maps: the bot keeps answering during a /reload. Smaller ones are built
# here, where starting a second Python would cost more than the build.
SEPARATE_BUILD_BYTES = 4_000_000


class EmptyCorpusError(CorpusError):
    """The corpus paths exist but hold no papers: nothing to serve."""


def corpus_paths(settings: Settings, given: Sequence[str | Path] | None = None) -> list[Path]:
    """The `given` paths (from `--corpus`), else the configured CORPUS."""
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
    venue_timezone: str = "",
    cache_min_papers: int | None = None,
) -> tuple[LoadReport, Index]:
    """Read the corpus at `paths` and index it, through the index cache.

    >>> report, index = load_index([Path("corpus/seeds")], strict=True)
    >>> len(report.papers), len(index)
    (57, 57)

    Raises `CorpusError`, and `EmptyCorpusError` when there are no papers. `strict` refuses
    any bad record; `corpus_filter` and `venue_timezone` are the settings of those names;
    `cache_min_papers` is the smallest corpus worth caching (None: the cache's default). A
    large corpus is built in a separate process. The speller starts building in the
    background; the Chinese glossary is left to the caller. Takes seconds on a large corpus:
    once serving, call it from a worker thread.
    """
    # Lazy: numpy and the index cache only once the caller has checked its input.
    from bot.search import load_cached, load_corpus_and_index

    loaded = load_cached(paths, cache_dir, corpus_filter, venue_timezone)
    if loaded is None and _corpus_bytes(paths) >= separate_build_bytes:
        build_in_subprocess(paths, cache_dir, corpus_filter, venue_timezone)
        loaded = load_cached(paths, cache_dir, corpus_filter, venue_timezone)
    # Small corpora, and any failure of the separate build: here, with the loader's own errors.
    if loaded is None:
        sizes = {} if cache_min_papers is None else {"min_papers": cache_min_papers}
        loaded = load_corpus_and_index(
            paths, cache_dir, corpus_filter=corpus_filter, venue_timezone=venue_timezone, **sizes
        )
    report, index = loaded
    if strict:  # checked on the report, so a cached corpus is refused the same way
        report.check_strict()
    if not report.papers:
        raise EmptyCorpusError(", ".join(map(str, paths)), None, "no papers found")
    index.queries.start_speller()  # in a daemon thread: typos are corrected once it is ready
    return report, index


def build_in_subprocess(
    paths: Sequence[Path],
    cache_dir: Path | None = None,
    corpus_filter: str = "",
    venue_timezone: str = "",
) -> bool:
    """Load, index and cache the corpus in a fresh process; whether it worked.

    The loader's `CorpusError` is raised here as if built in this process; any other failure
    (a killed child, no processes allowed) is logged and gives False, so the caller builds here.
    """
    context = multiprocessing.get_context("spawn")  # no fork of a threaded process
    level = logging.getLogger().getEffectiveLevel()
    options = {"corpus_filter": corpus_filter, "venue_timezone": venue_timezone}
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            job = pool.submit(_build_cache, [str(p) for p in paths], cache_dir, level, options)
            error = job.result()
    except Exception as failure:
        logger.warning("index build in a separate process failed (%r); building here", failure)
        return False
    if error is not None:
        raise CorpusError(*error)
    return True


def _build_cache(
    paths: list[str], cache_dir: Path | None, level: int, options: dict[str, str]
) -> tuple[str, int | None, str] | None:
    """In the child: load, index and cache the corpus whatever its size. Returns the loader's
    error as (path, line, reason), because `CorpusError` itself does not pickle."""
    from bot.search import load_corpus_and_index

    # A spawned child starts without the parent's logging set-up: same level, to stderr.
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        load_corpus_and_index(paths, cache_dir, min_papers=0, **options)
    except CorpusError as error:
        return error.path, error.line, error.reason
    return None


def _corpus_bytes(paths: Sequence[Path]) -> int:
    """The size of the files at `paths`; what cannot be read counts 0 (the loader will say)."""
    total = 0
    for path in map(Path, paths):
        try:
            files = [f for f in path.iterdir() if f.is_file()] if path.is_dir() else [path]
            total += sum(f.stat().st_size for f in files)
        except OSError:
            continue
    return total


def model_in_background(settings: Settings) -> threading.Thread | None:
    """Start loading the embedding model in a thread (when SEMANTIC is on). Join it before
    serving: its imports hold the GIL for long stretches, which would hold up answers."""
    if not settings.semantic:
        return None
    from bot.search import load_default_embedder

    thread = threading.Thread(target=load_default_embedder, name="model", daemon=True)
    thread.start()
    return thread


@dataclass(frozen=True, slots=True)
class SemanticStart:
    """Semantic search being made ready: the retriever to serve now, the job embedding its
    papers, and the clock measuring that job (papers left, rate, time to go)."""

    retriever: HybridRetriever
    job: EmbeddingJob | EmbeddingProcess
    clock: EtaClock


def start_semantic(
    index: Index,
    settings: Settings,
    *,
    progress: Progress | None = None,
    embed_threads: int | None = 1,
    separate: bool = False,
    start: bool = True,
) -> SemanticStart | None:
    """Start embedding `index`'s papers behind a hybrid retriever, and return at once; None
    when SEMANTIC is off or the model did not load.

    With `separate` (the bot) the papers embed in a child process at the lowest CPU priority,
    so answers never wait for them; else in a thread here on `embed_threads` (None: all
    cores). The clock starts from the rate the last run recorded. With `start` False the job
    is made but not started, so the caller holds it before a Ctrl-C could leave it running.
    """
    if not settings.semantic:
        return None
    from bot.search import (
        HybridRetriever,
        load_default_embedder,
        papers_in_flight,
        read_rate,
        resolve_cache_dir,
    )

    threads = None if separate else embed_threads
    # One engine thread a worker: more would spin against each other on a busy machine. The
    # engine runs outside the GIL, so one model serves questions and papers alike.
    model = load_default_embedder(num_threads=threads)
    if model is None:
        return None
    cache_dir = resolve_cache_dir(settings.index_cache_dir)
    retriever = HybridRetriever(index, model)
    if progress is None:
        progress = progress_reporter(len(index), label="embedding papers")
    last = read_rate(cache_dir, model.name, threads)
    clock = EtaClock(
        progress,
        prior_rate=last.papers_per_second if last else None,
        in_flight=papers_in_flight(model),
    )
    retriever.ready_in = clock.seconds_left
    record = _rate_recorder(clock, cache_dir, model.name, threads)
    job = _job(retriever, settings, cache_dir, record, separate=separate)
    return SemanticStart(retriever, job.start() if start else job, clock)


def _job(
    retriever: HybridRetriever,
    settings: Settings,
    cache_dir: Path,
    progress: Progress,
    *,
    separate: bool,
) -> EmbeddingJob | EmbeddingProcess:
    """The job that embeds `retriever`'s papers: in a child process, or in a thread here."""
    from bot.search import CorpusSource, EmbeddingJob, EmbeddingProcess

    if not separate:
        return EmbeddingJob(retriever, retriever.embedder, cache_dir=cache_dir, progress=progress)
    paths = tuple(map(str, settings.corpus))
    source = CorpusSource(paths, str(cache_dir), settings.corpus_filter, settings.venue_timezone)
    return EmbeddingProcess(retriever, source, progress=progress)


def _rate_recorder(clock: EtaClock, cache_dir: Path, model: str, threads: int | None) -> Progress:
    """Reports to `clock`, and writes the rate it measured to the cache once the job ends."""
    from bot.search import write_rate

    def report(done: int, total: int) -> None:
        clock(done, total)
        measured = clock.measured_rate()
        if done >= total and measured is not None:
            write_rate(cache_dir, model, threads, *measured)

    return report


def record_rate(started: SemanticStart, settings: Settings, threads: int | None) -> None:
    """Write the rate measured so far (an interrupted `prepare` keeps it)."""
    from bot.search import resolve_cache_dir, write_rate

    measured = started.clock.measured_rate()
    if measured is not None:
        cache_dir = resolve_cache_dir(settings.index_cache_dir)
        write_rate(cache_dir, started.retriever.embedder.name, threads, *measured)


# Papers that embed in about this long are embedded before the first answer, which is then
# the hybrid's: waiting costs little.
QUICK_EMBED_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Readiness:
    """Where semantic search stands: ready (answers are fused), or how many papers were
    missing a vector, about how many seconds the rest takes at what rate (papers a second;
    None when unknown yet), and whether that rate was `measured` in this run or recorded by
    the last."""

    ready: bool
    missing: int = 0
    seconds: float | None = None
    rate: float | None = None
    measured: bool = False


def settle(
    started: SemanticStart,
    *,
    wait: bool = False,
    quick: float = QUICK_EMBED_SECONDS,
    waiting: Callable[[], object] | None = None,
) -> Readiness:
    """Wait for the vectors when they are cached or take at most `quick` seconds to make (or
    always, with `wait`); else return the estimate at once, the job still running (the caller
    may stop it). Without a recorded rate, the first batch is timed first. `waiting` is
    called when it decides to wait for papers to embed (to show a progress bar)."""
    job, clock = started.job, started.clock
    _first_of(clock.checked, job.done)
    if not job.done.is_set() and (wait or clock.missing == 0):
        _wait_for(job.done, waiting if clock.missing else None)
    if not job.done.is_set() and clock.prior_rate is None:
        _first_of(clock.measured, job.done, timeout=quick)
    seconds = clock.seconds_left()
    if not job.done.is_set() and seconds is not None and seconds <= quick:
        _wait_for(job.done, waiting)
    if started.retriever.semantic_ready or job.done.is_set():
        return Readiness(ready=started.retriever.semantic_ready)
    return Readiness(
        ready=False,
        missing=clock.missing or 0,
        seconds=clock.seconds_left(),
        rate=clock.rate(),
        measured=clock.measured_rate() is not None,
    )


def _wait_for(done: threading.Event, waiting: Callable[[], object] | None) -> None:
    if waiting is not None:
        waiting()
    wait_for_job(done)


INTERRUPT_CHECK_SECONDS = 0.1  # how often a wait for the embedding job wakes for a Ctrl-C


def wait_for_job(done: threading.Event) -> None:
    """Wait until `done` is set. It wakes often: Python runs a Ctrl-C's handler in the main
    thread only, and a wait without a timeout would hold it until the job ends."""
    while not done.wait(INTERRUPT_CHECK_SECONDS):
        pass


def _first_of(event: threading.Event, done: threading.Event, timeout: float | None = None) -> None:
    """Wait until `event` or `done` is set (the job may end before it reports), or `timeout`."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not (event.is_set() or done.is_set()):
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return
        # Either event wakes us within 0.05 s: the job sets `done` without touching `event`.
        event.wait(0.05 if left is None else min(left, 0.05))
