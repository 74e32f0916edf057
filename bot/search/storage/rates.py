"""The embedding rate of the last run, per model and thread count, kept in the cache directory.

A run that embeds papers records its papers a second here, so the next start can say about
how long the papers it still lacks will take before embedding any. Written only after new
papers were embedded (a fully prepared, read-only directory is never written to); a missing,
unreadable or foreign file is no figure, never an error.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bot.search.storage.cache_file import SHARED_MODE

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
        entry = json.loads((cache_dir / RATES_FILE).read_bytes())[_entry(model, threads)]
        rate = Rate(float(entry["papers_per_second"]), int(entry["papers"]), float(entry["when"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return rate if rate.papers_per_second > 0 else None


def write_rate(
    cache_dir: Path, model: str, threads: int | None, papers_per_second: float, papers: int
) -> None:
    """Record a rate timed on `papers` papers (fewer than `MIN_TIMED_PAPERS`: ignored)."""
    if papers < MIN_TIMED_PAPERS or papers_per_second <= 0:
        return
    path = cache_dir / RATES_FILE
    try:
        rates = json.loads(path.read_bytes())
        if not isinstance(rates, dict):
            rates = {}
    except (OSError, ValueError):
        rates = {}
    rates[_entry(model, threads)] = {
        "papers_per_second": papers_per_second,
        "papers": papers,
        "when": time.time(),
    }
    try:
        fd, tmp = tempfile.mkstemp(prefix=RATES_FILE + ".", suffix=".tmp", dir=cache_dir)
        os.fchmod(fd, SHARED_MODE)  # mkstemp's 0600 would hide it from replicas run as others
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(rates, out, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError as error:  # a read-only volume: the next start measures again
        logger.debug("embedding rate not recorded in %s: %s", path, error)
