"""The planner's costs on an ICML 2026-sized programme: what a handler would run per request.

    uv run python -m benchmarks.planner [--saved 10 100 1000] [--runs 5]

Writes the synthetic programme (testkit.programme: 6,343 posters, 159 orals) to a temporary
folder, loads it as the bot does, and times, as the median over runs: building the
`Programme` (once per index), `/session` lookups, and for a user with `--saved` papers (every
k-th paper, so they spread over all sessions): `schedule`, `calendar_file`, `due_reminders`,
`next_due` and `now_and_next` during a poster session.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from bot.corpus import Paper, load_corpus
from bot.planner import (
    Programme,
    build_programme,
    calendar_file,
    due_reminders,
    next_due,
    now_and_next,
    schedule,
)
from testkit.programme import synthetic_programme

SEOUL = timezone(timedelta(hours=9))
NOW = datetime(2026, 7, 15, 12, 0, tzinfo=SEOUL)  # Poster Session 3


def _median_ms(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _jobs(saved: list[Paper], programme: Programme) -> dict[str, Callable[[], object]]:
    """What a handler runs for a user with `saved` papers."""
    ids = {p.id for p in saved}
    return {
        "schedule": lambda: schedule(saved),
        "calendar_file": lambda: calendar_file(saved, now=NOW, name="ICML 2026"),
        "due_reminders": lambda: due_reminders(saved, 10, NOW, set()),
        "next_due": lambda: next_due(saved, 10, NOW),
        "now_and_next": lambda: now_and_next(programme, NOW.astimezone(UTC), saved=ids),
    }


def main() -> None:
    """Print one line per operation and saved-list size: the median milliseconds."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--saved", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        papers = load_corpus([synthetic_programme(Path(folder))]).papers
    programme = build_programme(papers)
    print(f"{len(papers):,} papers, {len(programme.sessions)} sessions, median of {args.runs}")
    building = _median_ms(lambda: build_programme(papers), args.runs)
    print(f"{'build_programme':<28} {building:8.2f} ms")
    finding = _median_ms(lambda: programme.find("Oral 2B"), args.runs)
    print(f"{'find(Oral 2B)':<28} {finding:8.3f} ms")
    for size in args.saved:
        saved = list(papers[:: max(1, len(papers) // size)][:size])
        for name, job in _jobs(saved, programme).items():
            print(f"{name:<16} {size:>5} saved {_median_ms(job, args.runs):8.2f} ms")


if __name__ == "__main__":
    main()
