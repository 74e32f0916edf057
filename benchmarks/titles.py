"""Time to derive a title for an untitled abstract (`bot.corpus.derive_title`), and its quality.

    uv run python -m benchmarks.titles [--docs 2000] [--runs 5]

Abstracts: the 57 seed abstracts plus `--docs` synthetic ones (benchmarks/synth.py). Prints the
median over runs of the mean time per abstract, and how many titles end in "…" or exceed 90.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from benchmarks import synth
from bot.corpus import derive_title


def _time(derive: Callable[[str], str], abstracts: list[str], runs: int) -> tuple[float, list]:
    """Median seconds per abstract over `runs`, and the titles of the last run."""
    per_abstract = []
    titles: list[str] = []
    for _ in range(runs):
        start = time.perf_counter()
        titles = [derive(abstract) for abstract in abstracts]
        per_abstract.append((time.perf_counter() - start) / len(abstracts))
    return statistics.median(per_abstract), titles


def main() -> None:
    """Print the median time and the counts of clipped and too-long titles."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    abstracts = synth.seed_abstracts() + [p.abstract for p in synth.generate(args.docs).papers]
    print(f"{len(abstracts)} abstracts, {args.runs} runs, median of mean time per abstract")
    seconds, titles = _time(derive_title, abstracts, args.runs)
    clipped = sum(title.endswith("…") for title in titles)
    too_long = sum(len(title) > 90 for title in titles)
    print(
        f"bot.corpus {seconds * 1e3:7.3f} ms/abstract   ending in '…': {clipped:5}   "
        f"> 90 chars: {too_long:5}"
    )


if __name__ == "__main__":
    main()
