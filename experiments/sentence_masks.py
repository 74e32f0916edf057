"""Sentence masks per posting, round 2: snippets with masks against snippets from counts.

Needs `experiments/sentence_masks.patch` applied (`git apply experiments/sentence_masks.patch`;
it is not on main, see experiments/NOTES.md). Over the 100,000-paper synthetic corpus of
`benchmarks.whole_answer` and its 200 queries, one process, the same index: `Index.search`
(10 hits) with the postings' masks, without them (the counts path main ships), and without
snippets, interleaved 15 times; medians. Then checks that both paths give the same snippets.

    git apply experiments/sentence_masks.patch
    SEMANTIC=off uv run python -m benchmarks.whole_answer --size 100000 --runs 1  # the cache
    uv run python -m experiments.sentence_masks
    git apply -R experiments/sentence_masks.patch
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from benchmarks import synth
from benchmarks.scale import corpus_file
from bot.loading import load_index

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=15)
    default_cache = HERE.parent / "benchmarks" / "results" / "index-cache"
    parser.add_argument("--cache-dir", type=Path, default=default_cache)
    args = parser.parse_args()
    _, index = load_index([corpus_file(args.size)], args.cache_dir)
    index.queries.load_speller()
    queries = synth.queries_for(args.size)
    prepared = [index.queries.prepare(q) for q in queries]
    payload = index.bm25._payload
    if payload is None:
        raise SystemExit("no masks in this index: apply the patch (see the docstring)")
    for query in prepared:  # warm: every hit's words analysed once
        index.search(query, limit=10)
    times: dict[str, list[float]] = {"masks": [], "counts": [], "no snippets": []}
    for _ in range(args.rounds):
        for mode in times:
            index.bm25._payload = payload if mode == "masks" else None
            started = time.perf_counter()
            for query in prepared:
                index.search(query, limit=10, snippets=mode != "no snippets")
            times[mode].append((time.perf_counter() - started) / len(prepared) * 1e3)
    for mode, measured in times.items():
        print(f"{mode}: {statistics.median(measured):.3f} ms a question (median)")
    index.bm25._payload = payload
    masked = [h.snippet for q in prepared for h in index.search(q, limit=10).hits]
    index.bm25._payload = None
    counted = [h.snippet for q in prepared for h in index.search(q, limit=10).hits]
    print(f"identical snippets: {masked == counted} ({len(masked)} hits)")


if __name__ == "__main__":
    main()
