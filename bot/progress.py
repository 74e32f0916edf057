"""Progress of long start-up work (indexing, embedding): a live line on a terminal, else logs."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress", "progress_line", "progress_reporter"]

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
"""`progress(done, total)`, called as the work advances."""


def progress_line(line: str, log: logging.Logger | None = None) -> None:
    """A progress line: to the log when it would show there (the bot), else to stderr (the
    CLI, also on a pipe, and its separate build process), so a long load is never silent."""
    log = log or logger
    if logging.getLogger().handlers and log.isEnabledFor(logging.INFO):
        log.info("%s", line)
    else:
        print(line, file=sys.stderr, flush=True)


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
            shown[1] = percent // 10  # a pipe too: the log if it shows, else stderr (issue 19)
            progress_line(f"{label}: {done}/{total_} ({percent}%) {now - started:.1f} s", logger)

    return report
