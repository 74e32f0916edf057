"""Search-core speed: seed-corpus build and query medians, analyzer throughput, and build
time / memory against rank-bm25 on a synthetic corpus.

Run: uv run python -m benchmarks.search_speed [--docs 20000] [--repeat 15]
(The full scale study, 57 to 300,000 papers, is `python -m benchmarks.scale`.)
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import tracemalloc

import rank_bm25

from benchmarks.synth import SynthCorpus, generate, queries
from bot.search import EnglishAnalyzer, Index, document_terms
from testkit.devset import load_devset, load_seed_papers


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    """Print the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20_000, help="synthetic corpus size")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    seed_corpus(args.repeat)
    corpus = generate(args.docs)
    analyzer_speed(list(corpus.papers))
    against_rank_bm25(corpus)


def seed_corpus(repeat: int) -> None:
    """Build and query medians on the seed corpus."""
    papers = load_seed_papers("corpus")
    builds = []
    for _ in range(repeat):
        start = time.perf_counter()
        index = Index.build(papers)
        builds.append(time.perf_counter() - start)
    questions = [q.text for q in load_devset(papers)]
    searches, ranks = [], []
    for _ in range(repeat):
        for q in questions:
            start = time.perf_counter()
            index.search(q, limit=5)
            searches.append(time.perf_counter() - start)
            start = time.perf_counter()
            index.search(q, limit=5, snippets=False)
            ranks.append(time.perf_counter() - start)
    print(f"seed corpus: {len(papers)} papers, {index.stats()}")
    print(f"  build median {_ms(statistics.median(builds))} ({repeat} builds)")
    print(
        f"  search median {_ms(statistics.median(searches))} with 5 snippets, "
        f"{_ms(statistics.median(ranks))} ranking only ({len(searches)} queries)"
    )


def analyzer_speed(synthetic: list) -> None:
    """The analyzer's words per second over the synthetic papers, cold and warm cache."""
    words = sum(len(p.title.split()) + len(p.abstract.split()) for p in synthetic)
    analyzer = EnglishAnalyzer()
    start = time.perf_counter()
    n_terms = sum(len(document_terms(p, analyzer, title_weight=1)) for p in synthetic)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    for p in synthetic:
        document_terms(p, analyzer, title_weight=1)
    warm = time.perf_counter() - start
    print(f"synthetic corpus: {len(synthetic)} papers, {words} words, {n_terms} terms")
    print(
        f"  analyzer: {words / cold / 1e6:.2f} M words/s cold cache, "
        f"{words / warm / 1e6:.2f} M words/s warm"
    )


def against_rank_bm25(corpus: SynthCorpus) -> None:
    """Build time, memory and query p50 against rank-bm25's BM25Plus (same analyzer)."""
    synthetic = list(corpus.papers)
    # Build times without tracemalloc (it slows every allocation), memory in second builds.
    start = time.perf_counter()
    Index.build(synthetic)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    analyzer = EnglishAnalyzer()
    rank_bm25.BM25Plus([document_terms(p, analyzer) for p in synthetic])
    theirs = time.perf_counter() - start
    gc.collect()
    tracemalloc.start()
    index = Index.build(synthetic)
    ours_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    ours_mem = index.stats().memory_bytes
    gc.collect()
    tracemalloc.start()
    analyzer = EnglishAnalyzer()
    token_lists = [document_terms(p, analyzer) for p in synthetic]
    reference = rank_bm25.BM25Plus(token_lists)
    del token_lists, analyzer
    gc.collect()
    theirs_mem = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(f"  build: ours {ours:.2f} s, rank-bm25 BM25Plus {theirs:.2f} s (same analyzer)")
    print(
        f"  memory: ours {ours_mem / 2**20:.1f} MiB of arrays+vocab (build peak "
        f"{ours_peak / 2**20:.0f} MiB traced), rank-bm25 {theirs_mem / 2**20:.1f} MiB traced "
        f"after build = {ours_mem / theirs_mem:.2f}x"
    )
    qs = queries(corpus, 200)
    ours_q, theirs_q = [], []
    for q in qs:
        start = time.perf_counter()
        index.search(q, limit=10, snippets=False)
        ours_q.append(time.perf_counter() - start)
    analyzer = EnglishAnalyzer()
    for q in qs[:50]:
        start = time.perf_counter()
        scores = reference.get_scores(analyzer.analyze(q))
        scores.argsort()
        theirs_q.append(time.perf_counter() - start)
    print(
        f"  query p50: ours {_ms(statistics.median(ours_q))}, "
        f"rank-bm25 get_scores+sort {_ms(statistics.median(theirs_q))}"
    )


if __name__ == "__main__":
    main()
