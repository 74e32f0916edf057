"""Store benchmark: median latency of the reading-list operations on SQLite and PostgreSQL.

Times, through the public `Store` API from one asyncio task: `save` (a new paper), `save`
again (idempotent), `is_saved`, a 10-paper `list_saved` page, `saved_among` for a page of
ids, `export_rows` of a full 1,000-paper list, `remove`; and the wall time of 200 saves
issued concurrently by two replicas (two Store objects) for one user. PostgreSQL runs on a
throw-away local cluster (testkit/pg.py; fsync off, so disk flushes are not timed).

    UV_PYTHON_DOWNLOADS=never uv run python -m benchmarks.store
    ... -m benchmarks.store --backends sqlite --repeat 500
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bot.store import Limits, SavedPaper, open_store
from testkit.pg import PgCluster, find_bin_dir

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

USER = 42


def make_paper(number: int) -> SavedPaper:
    """A realistic snapshot: long title, a few authors."""
    return SavedPaper(
        paper_id=f"icml2026-{number:05d}",
        title=f"Scalable benchmark paper number {number} on efficient retrieval " * 2,
        authors=("Ada Lovelace", "Alan Turing", "Grace Hopper", "Émile Noether"),
        year=2026,
        venue="ICML 2026",
        url=f"https://example.org/{number}",
    )


async def median_ms(work: Callable[[int], Awaitable[object]], repeat: int) -> float:
    """Median wall time of `work(i)` over `repeat` sequential calls, in milliseconds."""
    times = []
    for number in range(repeat):
        start = time.perf_counter()
        await work(number)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


async def bench(name: str, database_url: str | None, data_dir: Path, repeat: int) -> None:
    """Print one backend's medians."""
    store = await open_store(database_url, data_dir, limits=Limits(max_saved=100_000))
    ids = [make_paper(n).paper_id for n in range(10)]
    rows = {
        "save (new)": await median_ms(lambda n: store.save(USER, make_paper(n)), repeat),
        "save (again)": await median_ms(lambda n: store.save(USER, make_paper(n)), repeat),
        "is_saved": await median_ms(lambda n: store.is_saved(USER, ids[n % 10]), repeat),
        "list_saved 10": await median_ms(lambda n: store.list_saved(USER, limit=10), repeat),
        "saved_among 10": await median_ms(lambda n: store.saved_among(USER, ids), repeat),
    }
    for number in range(repeat, 1000):
        await store.save(USER + 1, make_paper(number))
    for number in range(min(repeat, 1000)):
        await store.save(USER + 1, make_paper(number))
    rows["export_rows 1,000"] = await median_ms(lambda n: store.export_rows(USER + 1), 20)
    rows["remove"] = await median_ms(lambda n: store.remove(USER, make_paper(n).paper_id), repeat)
    second = await open_store(database_url, data_dir, limits=Limits(max_saved=100_000))
    start = time.perf_counter()
    await asyncio.gather(
        *((store if n % 2 else second).save(USER + 2, make_paper(n)) for n in range(200))
    )
    burst = time.perf_counter() - start
    await second.close()
    await store.close()
    print(f"\n{name} ({repeat} calls each; medians)")
    for label, value in rows.items():
        print(f"  {label:<20} {value:7.2f} ms")
    print(f"  two replicas, 200 concurrent saves: {burst * 1000:.0f} ms wall")


async def main(argv: list[str] | None = None) -> None:
    """Run the chosen backends."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgres"])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        if "sqlite" in args.backends:
            await bench("SQLite (WAL, synchronous=FULL)", None, Path(scratch), args.repeat)
        if "postgres" in args.backends:
            bin_dir = find_bin_dir()
            if bin_dir is None:
                sys.exit("no PostgreSQL binaries (apt-get install postgresql)")
            cluster = PgCluster(bin_dir)
            try:
                cluster.init()
                cluster.start()
                url = cluster.create_database("bench")
                await bench("PostgreSQL (local, fsync off)", url, Path(scratch), args.repeat)
            finally:
                cluster.remove()


if __name__ == "__main__":
    asyncio.run(main())
