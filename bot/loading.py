"""The one load path (settings -> corpus -> index) for run, search, console, /reload, SIGHUP."""

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
from bot.logs import EtaClock, Progress

if TYPE_CHECKING:
    from bot.search import EmbeddingJob, EmbeddingProcess, HybridRetriever, Index

logger = logging.getLogger(__name__)

SEPARATE_BUILD_BYTES = 4_000_000
"""A corpus this large (a few thousand papers) is indexed in a separate process that writes
the index cache; this process then memory-maps the cache. The build's seconds of GIL-bound
work and its peak memory stay out of the bot, which keeps answering meanwhile (a /reload).
Smaller corpora are built in-process: starting a Python costs more than their build."""


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
    venue_timezone: str = "",
    cache_min_papers: int | None = None,
) -> tuple[LoadReport, Index]:
    """Read the corpus and index it through the index cache; raises CorpusError.

    On a cache miss, a corpus of `separate_build_bytes` or more is built in another process
    (`build_in_subprocess`) and then read from the cache it wrote. An empty corpus is an
    `EmptyCorpusError`: every entry point refuses to serve nothing. With `strict`, any bad
    record is a `StrictCorpusError` listing them all (CORPUS_STRICT). `corpus_filter` keeps
    only matching records (CORPUS_FILTER); `venue_timezone` is every presentation's clock
    (VENUE_TIMEZONE; "" for `bot.corpus.zones`' rule). `cache_min_papers`: cache a corpus
    from this many papers (None: `storage.CACHE_MIN_PAPERS`; `prepare` caches any). The
    index's speller starts building in the background; the Chinese glossary is the caller's
    to start once it serves (`QueryPipeline.start_glossary`: its parsing would slow a start,
    and a one-shot command loads it only for a Chinese question). Runs for seconds on a
    large corpus: call it from a worker thread once serving.
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
    """Load, index and cache the corpus in a fresh ('spawn') process; True if it succeeded.

    The loader's `CorpusError` (file, line, reason) is raised here as in-process. Any other
    failure (a killed child, no processes allowed) is logged and gives False: the caller
    builds in-process.
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
    """In the child: load, index and cache the corpus whatever its size (`options`: the
    loader's keywords, its filter and zone); the loader's error.

    The error travels as (path, line, reason): `CorpusError` itself does not pickle.
    """
    from bot.search import load_corpus_and_index

    # A spawned child starts without the parent's logging set-up: same level, to stderr.
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        load_corpus_and_index(paths, cache_dir, min_papers=0, **options)
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


def model_in_background(settings: Settings) -> threading.Thread | None:
    """Start loading the model in a thread (SEMANTIC on); join it before serving: its engine's
    imports hold the GIL for a long stretch at once, which would hold up answers. Beside the
    corpus load it costs the start little; `start_semantic` then finds it loaded."""
    if not settings.semantic:
        return None
    from bot.search import load_default_embedder

    thread = threading.Thread(target=load_default_embedder, name="model", daemon=True)
    thread.start()
    return thread


@dataclass(frozen=True, slots=True)
class SemanticStart:
    """A hybrid being made ready: the retriever served now, its embedding job and its clock."""

    retriever: HybridRetriever
    job: EmbeddingJob | EmbeddingProcess
    clock: EtaClock
    """Measures the job: papers left, rate, seconds to go (`retriever.ready_in` reads it)."""


def start_semantic(
    index: Index,
    settings: Settings,
    *,
    progress: Progress | None = None,
    embed_threads: int | None = 1,
    separate: bool = False,
    start: bool = True,
) -> SemanticStart | None:
    """Start embedding `index`'s papers behind a hybrid; None when SEMANTIC is off or no model.

    Returns at once. `separate`: in a child process at the lowest CPU priority, on all cores,
    reading the corpus `settings` name (the bot: answers never wait for papers); else in a
    thread here on `embed_threads` (None: all cores, for a command that does nothing else).
    The clock starts from the rate the last run recorded in the cache directory, and records
    this run's. `start` False: the job is made but not started (the caller holds it before a
    Ctrl-C can leave it running).
    """
    if not settings.semantic:
        return None
    from bot.logs import progress_reporter
    from bot.search import (
        HybridRetriever,
        load_default_embedder,
        papers_in_flight,
        read_rate,
        resolve_cache_dir,
    )

    threads = None if separate else embed_threads
    # One engine thread a worker: more spin against the other workers and processes on a busy
    # machine. One instance serves questions and (in this process) papers: the engine runs
    # outside the GIL, so a question does not wait behind papers.
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
    """`clock`, and the rate it measured written to the cache directory when the job ends."""
    from bot.search import write_rate

    def report(done: int, total: int) -> None:
        clock(done, total)
        measured = clock.measured_rate()
        if done >= total and measured is not None:
            write_rate(cache_dir, model, threads, *measured)

    return report


def record_rate(started: SemanticStart, settings: Settings, threads: int | None) -> None:
    """Write the rate `started` measured so far (an interrupted `prepare` keeps its figure)."""
    from bot.search import resolve_cache_dir, write_rate

    measured = started.clock.measured_rate()
    if measured is not None:
        cache_dir = resolve_cache_dir(settings.index_cache_dir)
        write_rate(cache_dir, started.retriever.embedder.name, threads, *measured)


QUICK_EMBED_SECONDS = 5.0
"""Papers that embed in about this long are embedded before answering (a small corpus, or a
few new papers): the first answers are then the hybrid's, and waiting costs little."""


@dataclass(frozen=True, slots=True)
class Readiness:
    """Where semantic search stands: ready, or how many papers are left and about how long."""

    ready: bool
    """The vectors are attached: answers are fused."""
    missing: int = 0
    """Papers still without a vector when the job began."""
    seconds: float | None = None
    """About how long the rest takes; None when no rate is known yet."""
    rate: float | None = None
    """Papers a second the estimate assumes."""
    measured: bool = False
    """The rate was timed in this run (else it is the last run's, from the cache directory)."""


def settle(
    started: SemanticStart,
    *,
    wait: bool = False,
    quick: float = QUICK_EMBED_SECONDS,
    waiting: Callable[[], object] | None = None,
) -> Readiness:
    """Wait for the vectors when they are cached or quick to make (or `wait`), else estimate.

    Reads the vector cache (the clock's first report), then: nothing missing, or `wait` —
    waits for the job; else, without a recorded rate, times the first batch (at most `quick`
    seconds); a rest that takes at most `quick` seconds is waited for. Otherwise returns at
    once with the estimate, the job still running: the caller may `stop` it. `waiting` is
    called when it decides to wait for papers to embed (to show a progress bar).
    """
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


INTERRUPT_CHECK_SECONDS = 0.1
"""How often a wait for the embedding job wakes to let a signal's handler run."""


def wait_for_job(done: threading.Event) -> None:
    """Wait until `done` is set, waking every `INTERRUPT_CHECK_SECONDS`.

    A Ctrl-C may be delivered to any of the process's threads (the embedding workers too);
    Python runs its handler in the main thread only, and a wait with no timeout would hold
    it until the job ends. Waking often, the KeyboardInterrupt comes here at once.
    """
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
