"""The one load path (settings -> corpus -> index) for run, search, console, /reload, SIGHUP."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Settings
from bot.corpus import CorpusError, LoadReport

if TYPE_CHECKING:
    from bot.search import Index


class EmptyCorpusError(CorpusError):
    """The corpus paths exist but hold no papers: nothing to serve."""


def corpus_paths(settings: Settings, given: Sequence[str | Path] | None = None) -> list[Path]:
    """`given` paths (a command-line `--corpus`), else the configured CORPUS."""
    if given:
        return [Path(path) for path in given]
    return list(settings.corpus)


def load_index(
    paths: Sequence[Path], cache_dir: Path | None = None, *, strict: bool = False
) -> tuple[LoadReport, Index]:
    """Read the corpus and index it through the index cache; raises CorpusError.

    An empty corpus is an `EmptyCorpusError`: every entry point refuses to serve nothing.
    With `strict`, any bad record is a `StrictCorpusError` listing them all (CORPUS_STRICT).
    Runs for seconds on a large corpus: call it from a worker thread once serving.
    """
    # Lazy: numpy and the index cache only once the caller has checked its input.
    from bot.search import load_corpus_and_index

    report, index = load_corpus_and_index(paths, cache_dir)
    if strict:  # checked on the report, so a cached corpus is refused the same way
        report.check_strict()
    if not report.papers:
        raise EmptyCorpusError(", ".join(map(str, paths)), None, "no papers found")
    return report, index
