"""The embedding rate of the last run, per model and thread count, in the cache directory.

A run that embeds papers records its papers a second, so the next start can say how long
the papers it still lacks will take before embedding any. Written only after new papers
were embedded: a fully prepared, read-only directory is never written to.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from bot.search.storage.files import read_json, write_json

__all__ = ["MIN_TIMED_PAPERS", "RATES_FILE", "Rate", "read_rate", "write_rate"]

logger = logging.getLogger(__name__)

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
