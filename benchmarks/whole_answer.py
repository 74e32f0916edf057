"""The whole answer against naive rank-bm25, on the same corpus and questions, in one run.

For a synthetic corpus of `--size` papers (`synth.py`; its 200 queries, 1-5 words):

1. **CLI per question**: `python -m bot search --json --limit 10 --no-semantic --queries FILE`
   (index cached, snippets included) run with the 200 queries and with them repeated to 2,000; the
   per-question time is (t(2,000) - t(200)) / 1,800, which subtracts start-up and loading.
   Each run `--runs` times, medians.
2. **Naive**: `rank_bm25.BM25Plus` (the engine's variant and parameters) over the engine's
   own document terms, `get_scores` + `argsort` per query; p50 and mean over the queries.
3. **Bot answer path** in-process: `Index.search` (one page of `--per-page` hits with
   snippets) + `render.results_doc` + `render.to_html`; p50 and mean. Then the same
   questions again (the query analyzer has every hit's words cached), split into render
   and `search(snippets=False)`: where the answer's time goes.

    UV_PYTHON_DOWNLOADS=never uv run python -m benchmarks.whole_answer --size 100000
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import synth
from benchmarks.scale import corpus_file
from bot import render
from bot.runtime import load_index
from bot.search import DEFAULT_PARAMS, analyze_query, analyzer_for, document_terms

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def cli_seconds(corpus: Path, cache: Path, queries: Path) -> float:
    """Wall seconds of one `python -m bot search --json --queries` run (output discarded)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "INDEX_CACHE_DIR": str(cache)}
    # BM25's whole answer against naive BM25: the hybrid would first embed the whole corpus.
    command = [sys.executable, "-m", "bot", "search", "--json", "--limit", "10", "--no-semantic"]
    command += ["--corpus", str(corpus), "--queries", str(queries)]
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, cwd=REPO)
    return time.perf_counter() - started


def ms(values: list[float]) -> str:
    """p50 / mean in ms."""
    return f"{statistics.median(values) * 1000:.3f} / {statistics.mean(values) * 1000:.3f}"


def main() -> int:
    """Measure and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3, help="CLI runs per query count")
    parser.add_argument("--per-page", type=int, default=5, help="hits on the bot's page")
    parser.add_argument("--cache-dir", type=Path, default=HERE / "results" / "index-cache")
    args = parser.parse_args()

    corpus = REPO / "corpus" if args.size == 57 else corpus_file(args.size)
    queries = synth.queries_for(args.size)
    report, index = load_index([corpus], args.cache_dir)  # fills the cache for the CLI too

    with tempfile.TemporaryDirectory() as tmp:
        short, long = Path(tmp) / "200.txt", Path(tmp) / "2000.txt"
        short.write_text("\n".join(queries) + "\n", encoding="utf-8")
        long.write_text("\n".join(queries * 10) + "\n", encoding="utf-8")
        cli_seconds(corpus, args.cache_dir, short)  # warm the page cache
        runs = {n: [] for n in (200, 2000)}
        for _ in range(args.runs):
            runs[200].append(cli_seconds(corpus, args.cache_dir, short))
            runs[2000].append(cli_seconds(corpus, args.cache_dir, long))
    t200, t2000 = statistics.median(runs[200]), statistics.median(runs[2000])
    cli = (t2000 - t200) / 1800

    bot_path: list[float] = []
    for query in queries[:20]:  # warm-up
        render.to_html(render.results_doc(index.search(query, limit=args.per_page), per_page=5))
    for query in queries:
        started = time.perf_counter()
        result = index.search(query, limit=args.per_page)
        render.to_html(render.results_doc(result, per_page=args.per_page))
        bot_path.append(time.perf_counter() - started)
    # The same questions again: every hit's abstract words are now in the query analyzer's
    # chunk cache, so the difference to the first pass is what analysing new words costs.
    bot_warm: list[float] = []
    no_snippets: list[float] = []
    render_only: list[float] = []
    for query in queries:
        started = time.perf_counter()
        result = index.search(query, limit=args.per_page)
        searched = time.perf_counter()
        render.to_html(render.results_doc(result, per_page=args.per_page))
        done = time.perf_counter()
        index.search(query, limit=args.per_page, snippets=False)
        no_snippets.append(time.perf_counter() - done)
        bot_warm.append(done - started)
        render_only.append(done - searched)
    search10: list[float] = []
    for query in queries:
        started = time.perf_counter()
        index.search(query, limit=10)
        search10.append(time.perf_counter() - started)

    from rank_bm25 import BM25Plus

    papers = tuple(report.papers)
    del index, report
    p = DEFAULT_PARAMS
    naive = BM25Plus([document_terms(paper) for paper in papers], k1=p.k1, b=p.b, delta=p.delta)
    analyzer = analyzer_for("en")
    naive_times: list[float] = []
    for query in queries:
        started = time.perf_counter()
        terms = analyze_query(query, analyzer)
        np.argsort(-naive.get_scores(terms))[:10]
        naive_times.append(time.perf_counter() - started)
    naive_mean = statistics.mean(naive_times)

    print(f"\nWhole answer at {args.size:,} papers, 200 queries (times in ms, p50 / mean):\n")
    print("| measure | ms |")
    print("|---|---:|")
    print(f"| naive: rank-bm25 get_scores + argsort | {ms(naive_times)} |")
    print(f"| engine search(), 10 hits with snippets, in-process | {ms(search10)} |")
    print(f"| bot answer path: search + render, {args.per_page} hits | {ms(bot_path)} |")
    print(f"| the same, second pass (abstract words cached) | {ms(bot_warm)} |")
    print(f"| of which render (results_doc + to_html) | {ms(render_only)} |")
    print(f"| search(), {args.per_page} hits, no snippets | {ms(no_snippets)} |")
    spread = f"t(2000) {t2000:.2f} s - t(200) {t200:.2f} s"
    print(f"| CLI per question ({spread}) / 1800 | {cli * 1000:.3f} |")
    print(f"| naive mean / CLI per question | **{naive_mean / cli:.3g}×** |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
