"""One measurement of `benchmarks.scale`: one method over one corpus, in a fresh process.

Run by `python -m benchmarks.scale` (never by hand): builds the method's index, measures
build time, resident memory and its peak, then times the queries, and writes JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks import synth

K = 10
"""Hits a query asks for (top-10)."""


def _proc_status_kb(field: str) -> int:
    """A `/proc/self/status` field in kB (VmRSS, VmHWM)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux ≥ 4.0); False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def _top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The `k` best rows by (score desc, row asc), as the engine orders ties."""
    n = len(scores)
    if k < n:
        kth = np.partition(scores, n - k)[n - k]
        rows = np.flatnonzero(scores >= kth)
    else:
        rows = np.arange(n)
    order = np.lexsort((rows, -scores[rows]))[:k]
    return rows[order], scores[rows[order]]


def worker(method: str, corpus: Path, queries: list[str]) -> dict:
    """Build one method's index over `corpus`, measure it, and run the queries."""
    from bot.search import DEFAULT_PARAMS, EnglishAnalyzer

    # Libraries imported before the baseline: their modules are not index memory.
    if method == "rank_bm25":
        import rank_bm25  # noqa: F401
    elif method.startswith("bm25s"):
        import bm25s  # noqa: F401

        if method == "bm25s_numba":
            import numba  # noqa: F401

    papers = synth.read_jsonl(corpus)
    query_analyzer = EnglishAnalyzer(max_cache=10_000)
    gc.collect()
    rss_before = _proc_status_kb("VmRSS")
    peak_ok = _reset_peak()
    started, cpu_started = time.perf_counter(), time.process_time()
    built = _build(method, papers)
    build_s = time.perf_counter() - started
    build_cpu_s = time.process_time() - cpu_started
    gc.collect()
    rss_after = _proc_status_kb("VmRSS")
    peak = _proc_status_kb("VmHWM")
    rank = _ranker(method, built, query_analyzer, len(papers))

    first_started = time.perf_counter()
    rank(queries[0])  # warm-up; for numba, the JIT compile
    first_query_s = time.perf_counter() - first_started
    latencies, tops = [], []
    for query in queries:
        t0 = time.perf_counter()
        rows, scores = rank(query)
        latencies.append(time.perf_counter() - t0)
        tops.append([[papers[int(r)].id for r in rows], [float(s) for s in scores]])
    search_latencies = []
    if method == "engine":
        for query in queries:
            t0 = time.perf_counter()
            built.search(query, limit=K)
            search_latencies.append(time.perf_counter() - t0)
    return {
        "method": method,
        "papers": len(papers),
        "build_s": build_s,
        "build_cpu_s": build_cpu_s,
        "rss_before_kb": rss_before,
        "index_kb": rss_after - rss_before,
        "peak_kb": peak - rss_before if peak_ok else None,
        "first_query_s": first_query_s,
        "latencies_s": latencies,
        "search_latencies_s": search_latencies,
        "tops": tops,
        "variant": DEFAULT_PARAMS.variant,
    }


def _build(method: str, papers: list) -> object:
    """`method`'s index over `papers`: an `Index`, a rank-bm25 model or a bm25s retriever."""
    from bot.search import DEFAULT_PARAMS, EnglishAnalyzer, Index, document_terms

    if method == "engine":
        return Index.build(papers)
    # The engine's own document terms (title twice, then abstract), so scores compare.
    analyzer = EnglishAnalyzer()
    tokens = [document_terms(p, analyzer) for p in papers]
    del analyzer
    if method == "rank_bm25":
        import rank_bm25

        params = DEFAULT_PARAMS  # the rank-bm25 class and parameters `Index.build` uses
        extra = (
            {"epsilon": params.epsilon}
            if params.variant == "BM25Okapi"
            else {"delta": params.delta}
        )
        return getattr(rank_bm25, params.variant)(tokens, k1=params.k1, b=params.b, **extra)
    import bm25s

    retriever = bm25s.BM25(
        method="bm25+",
        k1=1.5,
        b=0.75,
        delta=1.0,
        backend="numba" if method == "bm25s_numba" else "numpy",
    )
    retriever.index(tokens, show_progress=False)
    return retriever


def _ranker(
    method: str, built: object, query_analyzer: object, n_papers: int
) -> Callable[[str], tuple[np.ndarray, np.ndarray]]:
    """A query -> (top-K rows, their scores) function over `built`, query analysis included."""
    from bot.search import analyze_query

    def rank(query: str) -> tuple[np.ndarray, np.ndarray]:
        terms = analyze_query(query, query_analyzer)
        if method == "engine":
            rows, scores, _ = built.bm25.top(terms, K)
            return rows, scores
        if method == "rank_bm25":
            return _top_k(built.get_scores(terms), K)
        if method == "bm25s_numba":
            # Its input check wants a non-empty list of ids; "" is bm25s's own empty-query token.
            ids = built.get_tokens_ids(terms) or [built.vocab_dict[""]]
            docs, scores = built.retrieve(
                [ids], k=min(K, n_papers), show_progress=False, n_threads=0
            )
        else:
            docs, scores = built.retrieve(
                [terms], k=min(K, n_papers), show_progress=False, n_threads=0
            )
        return docs[0], scores[0]

    return rank


def main() -> None:
    """Measure `--method` over `--corpus` with the queries in `--queries-file`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--queries-file", type=Path, required=True)
    parser.add_argument("--result", type=Path, required=True)
    args = parser.parse_args()
    queries = json.loads(args.queries_file.read_text())
    args.result.write_text(json.dumps(worker(args.method, args.corpus, queries)))


if __name__ == "__main__":
    main()
