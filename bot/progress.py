"""Progress of long start-up work (indexing, embedding): a live line on a terminal, else logs."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress", "progress_reporter"]

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
"""`progress(done, total)`, called as the work advances."""


def progress_reporter(
    total: int, *, stream: TextIO | None = None, label: str = "indexing papers"
) -> Progress:
    """A progress callback: a live line on a terminal, else a log line every 10%."""
    out = stream if stream is not None else sys.stderr
    live = out.isatty()
    started = time.perf_counter()
    shown = [0.0, -1.0]  # last time a live line was drawn, last decile logged

    def report(done: int, total_: int = total) -> None:
        total_ = max(total_, 1)
        now = time.perf_counter()
        percent = 100 * done // total_
        if live:
            if now - shown[0] < 0.1 and done < total_:
                return
            shown[0] = now
            end = "\n" if done >= total_ else ""
            out.write(f"\r{label}: {done:,}/{total_:,} ({percent}%) {now - started:.1f} s{end}")
            out.flush()
        elif percent // 10 > shown[1]:
            shown[1] = percent // 10
            logger.info("%s: %d/%d (%d%%) %.1f s", label, done, total_, percent, now - started)

    return report
