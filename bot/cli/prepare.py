"""`python -m bot prepare`: the index cache and the papers' vectors built ahead of time, so
every later start (replicas too) maps them without building. An interrupt keeps what was
embedded; the next `prepare` carries on."""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from bot import loading
from bot.answers import serving
from bot.config import Settings, load_settings
from bot.logs import progress_reporter
from bot.search import Index, resolve_cache_dir

EXIT_NO_MODEL = 1  # the index is prepared but the vectors are not
EXIT_INTERRUPTED = 130  # stopped by a signal (the shell's code for SIGINT)
_NAME = "python -m bot prepare"


def prepare_command(corpus: Sequence[str] | None = None, *, strict: bool = False) -> int:
    """Build the index cache and embed every paper lacking a vector; the exit code. Raises the
    load's `CorpusError` and `ConfigError`."""
    began = time.perf_counter()
    settings = load_settings()
    paths = loading.corpus_paths(settings, corpus)
    # Made before the corpus is hashed, so the files' hashes are kept too: a later start then
    # hashes nothing and writes nothing into the prepared directory.
    resolve_cache_dir(settings.index_cache_dir).mkdir(parents=True, exist_ok=True)
    _report, index = loading.load_index(
        paths,
        settings.index_cache_dir,
        strict=strict or settings.corpus_strict,
        corpus_filter=settings.corpus_filter,
        venue_timezone=settings.venue_timezone,
        cache_min_papers=0,  # any size: the replicas then map it instead of building
    )
    _say(f"index ready: {serving(paths, index.papers, settings.corpus_name)}")
    if not settings.semantic:
        _say("SEMANTIC is off: no vectors to prepare")
        return 0
    return _embed(index, settings, began)


def _embed(index: Index, settings: Settings, began: float) -> int:
    """Embed every paper of `index` lacking a vector; the exit code."""
    progress = progress_reporter(len(index), label="embedding papers")
    semantic_start = None
    with _interrupts_as_keyboard():
        try:
            # Held before it starts: a Ctrl-C that comes while its thread starts (or as soon
            # as it runs) then finds the job in hand to stop.
            semantic_start = loading.start_semantic(
                index, settings, progress=progress, embed_threads=None, start=False
            )
            if semantic_start is None:
                _say("semantic search unavailable (the model did not load): vectors not prepared")
                return EXIT_NO_MODEL
            semantic_start.job.start()
            loading.wait_for_job(semantic_start.job.done)
        except KeyboardInterrupt:
            # The batch in hand finishes and everything embedded so far is cached.
            if semantic_start is None or not semantic_start.job.finish():
                _say("interrupted before any paper was embedded")
                return EXIT_INTERRUPTED
            loading.record_rate(semantic_start, settings, None)
            left = semantic_start.clock.left or 0
            _say(f"interrupted: {left:,} papers still to embed; run prepare again to go on")
            return EXIT_INTERRUPTED
    if not semantic_start.retriever.semantic_ready:
        _say("embedding failed (see the log above): vectors not prepared")
        return EXIT_NO_MODEL
    embedded = semantic_start.clock.missing or 0
    where = resolve_cache_dir(settings.index_cache_dir)
    _say(
        f"prepared in {time.perf_counter() - began:.1f} s: {len(index):,} papers, "
        f"{embedded:,} embedded now, {len(index) - embedded:,} from the cache, in {where}"
    )
    return 0


def _say(line: str) -> None:
    print(f"{_NAME}: {line}", file=sys.stderr, flush=True)


@contextmanager
def _interrupts_as_keyboard() -> Iterator[None]:
    """Make SIGTERM (a service manager stopping us) raise KeyboardInterrupt too: the work is
    kept."""
    before = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
