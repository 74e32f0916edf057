"""`python -m bot prepare`: the index cache and the papers' vectors, built ahead of time.

What it writes (in `INDEX_CACHE_DIR`) is what `run`, `console` and `search` map at start: a
prepared directory serves them without building or embedding anything, and without writing
to it, so several processes (webhook replicas, hosts sharing a read-only volume) can map the
same files. An interrupt (Ctrl-C, SIGTERM) keeps what was embedded: the vector cache is
written every few hundred papers and at the stop, and the next `prepare` carries on there.
"""

from __future__ import annotations

import dataclasses
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from bot import loading
from bot.config import load_settings
from bot.progress import progress_reporter
from bot.search import resolve_cache_dir

__all__ = ["EXIT_INTERRUPTED", "EXIT_NO_MODEL", "prepare_command"]

EXIT_NO_MODEL = 1
"""The index is prepared but the vectors are not (no model, or embedding failed)."""
EXIT_INTERRUPTED = 130
"""Stopped by a signal; what was embedded is cached (the shell's code for SIGINT)."""
_NAME = "python -m bot prepare"


def prepare_command(corpus: Sequence[str] | None = None, *, strict: bool = False) -> int:
    """Build the index cache and embed every paper lacking a vector; the exit code.

    Raises the load's `CorpusError` and `ConfigError` (the CLI exits 2 on them).
    """
    began = time.perf_counter()
    settings = load_settings()
    paths = loading.corpus_paths(settings, corpus)
    cache_dir = settings.index_cache_dir
    # Exists before the corpus is hashed, so the files' hashes are kept too (storage.stamps):
    # a later start then hashes nothing and writes nothing into the prepared directory.
    resolve_cache_dir(cache_dir).mkdir(parents=True, exist_ok=True)
    _report, index = loading.load_index(
        paths,
        cache_dir,
        strict=strict or settings.corpus_strict,
        corpus_filter=settings.corpus_filter,
        cache_min_papers=0,  # any size: the replicas then map it instead of building
    )
    _say(f"index ready: {loading.serving(paths, index.papers, settings.corpus_name)}")
    if not settings.semantic:
        _say("SEMANTIC is off: no vectors to prepare")
        return 0
    semantic = dataclasses.replace(settings, semantic=True)
    progress = progress_reporter(len(index), label="embedding papers")
    semantic_start = None
    with _interrupts_as_keyboard():
        try:
            # Held before it starts: a Ctrl-C that comes while its thread starts (or as soon
            # as it runs) then finds the job in hand to stop.
            semantic_start = loading.start_semantic(
                index, semantic, progress=progress, embed_threads=None, start=False
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
            clock = semantic_start.clock
            loading.record_rate(semantic_start, semantic, None)
            left = clock.left or 0
            _say(f"interrupted: {left:,} papers still to embed; run prepare again to go on")
            return EXIT_INTERRUPTED
    clock = semantic_start.clock
    if not semantic_start.retriever.semantic_ready:
        _say("embedding failed (see the log above): vectors not prepared")
        return EXIT_NO_MODEL
    embedded = clock.missing or 0
    where = resolve_cache_dir(cache_dir)
    _say(
        f"prepared in {time.perf_counter() - began:.1f} s: {len(index):,} papers, "
        f"{embedded:,} embedded now, {len(index) - embedded:,} from the cache, in {where}"
    )
    return 0


def _say(line: str) -> None:
    print(f"{_NAME}: {line}", file=sys.stderr, flush=True)


@contextmanager
def _interrupts_as_keyboard() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt too (a service manager stops us): the work is kept."""
    before = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
