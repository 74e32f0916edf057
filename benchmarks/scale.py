"""Scale benchmark: this engine against rank-bm25 and bm25s, 57 to 300,000 papers.

For each corpus size (synthetic, `benchmarks.synth`) and each method, a fresh
subprocess loads the papers, then measures:

- build: seconds to index the papers, tokenization included (same analyzer for all);
- memory: resident memory added by the build (VmRSS after minus before, the token lists
  freed) and its peak (VmHWM, reset via /proc/self/clear_refs just before the build);
- latency: p50/p99 over 200 queries (1-5 words, top-10), query analysis included.

Methods: (a) `Index` (the ranking core `bm25.top`, plus the full `search()` with snippets),
(b) the engine's rank-bm25 class `get_scores` + argpartition top-10, (c) bm25s with the
numpy and the numba backend (numba's JIT compile is the first query, reported apart).
(a)'s top-10 ids and scores are checked against (b)'s for every query.

    UV_PYTHON_DOWNLOADS=never uv run --group bench python -m benchmarks.scale
    ... -m benchmarks.scale --quick                    # 57 and 3,300 papers
    ... -m benchmarks.scale --sizes 100000 --methods engine,rank_bm25
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks import synth

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

RESULTS = HERE / "results"
SIZES = (57, 3300, 100_000, 300_000)
METHODS = ("engine", "rank_bm25", "bm25s_numpy", "bm25s_numba")
N_QUERIES = 200
SCORE_TOLERANCE = 1e-9  # relative; the engine reorders no float operations, so ~1e-15 in practice


# --- driver --------------------------------------------------------------------------------


def corpus_file(n_docs: int) -> Path:
    """The JSONL corpus of `n_docs` synthetic papers, generated once and kept in results/."""
    path = RESULTS / f"synth-{n_docs}.jsonl"
    if not path.exists():
        print(f"generating {n_docs:,} papers -> {path}", file=sys.stderr, flush=True)
        synth.write_jsonl(synth.generate(n_docs).papers, path)
    return path


def run_worker(method: str, n_docs: int, queries: list[str], timeout: float) -> dict:
    """Run `worker` in a fresh interpreter and return its measurements."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    queries_path = RESULTS / f"queries-{n_docs}.json"
    queries_path.write_text(json.dumps(queries))
    out = RESULTS / f"worker-{method}-{n_docs}.json"
    out.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "benchmarks.scale_worker",
        "--method",
        method,
        "--corpus",
        str(corpus_file(n_docs)),
        "--queries-file",
        str(queries_path),
        "--result",
        str(out),
    ]
    started = time.perf_counter()
    completed = subprocess.run(command, timeout=timeout, check=False, cwd=REPO)
    if completed.returncode != 0 or not out.exists():
        return {"method": method, "papers": n_docs, "error": f"exit {completed.returncode}"}
    result = json.loads(out.read_text())
    result["wall_s"] = time.perf_counter() - started
    return result


def percentile_ms(values: Sequence[float], q: float) -> float:
    """The `q`-th percentile of seconds, in milliseconds."""
    return float(np.percentile(np.asarray(values), q)) * 1e3 if values else math.nan


def compare(engine: dict, reference: dict) -> tuple[int, float]:
    """Queries whose top-10 differ (ids or scores), and the largest relative score gap.

    The engine lists only papers holding a query term; rank-bm25 ranks all papers (with
    BM25Plus the rest score idf·delta each). So when fewer than 10 papers match, the
    engine's list must equal the head of rank-bm25's.
    """
    mismatches, worst = 0, 0.0
    for (ids_a, sc_a), (ids_b, sc_b) in zip(engine["tops"], reference["tops"], strict=True):
        ids_b, sc_b = ids_b[: len(ids_a)], sc_b[: len(sc_a)]
        a, b = np.asarray(sc_a), np.asarray(sc_b)
        if a.shape != b.shape:
            mismatches += 1
            continue
        gap = float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)))) if a.size else 0.0
        worst = max(worst, gap)
        if gap > SCORE_TOLERANCE or ids_a != ids_b:
            mismatches += 1
    return mismatches, worst


def fmt_ms(value: float) -> str:
    """Milliseconds, with precision suited to the magnitude."""
    if math.isnan(value):
        return "—"
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:.0f}"


def fmt_mb(kb: int | None) -> str:
    """kB as MB."""
    return "—" if kb is None else f"{kb / 1024:,.1f}"


def table(results: list[dict]) -> str:
    """The markdown table of all runs."""
    lines = [
        "| docs | method | build s (CPU s) | index MB (steady) | peak MB | p50 ms | p99 ms | "
        "mean ms | first query s |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['papers']:,} | {r['method']} | {r['error']} | | | | | | |")
            continue
        lines.append(
            f"| {r['papers']:,} | {r['method']} | {r['build_s']:.2f} ({r['build_cpu_s']:.2f}) | "
            f"{fmt_mb(r['index_kb'])} | {fmt_mb(r['peak_kb'])} | "
            f"{fmt_ms(percentile_ms(r['latencies_s'], 50))} | "
            f"{fmt_ms(percentile_ms(r['latencies_s'], 99))} | "
            f"{fmt_ms(float(np.mean(r['latencies_s'])) * 1e3)} | {r['first_query_s']:.3f} |"
        )
        if r["search_latencies_s"]:
            lines.append(
                f"| {r['papers']:,} | engine `search()` incl. snippets | | | | "
                f"{fmt_ms(percentile_ms(r['search_latencies_s'], 50))} | "
                f"{fmt_ms(percentile_ms(r['search_latencies_s'], 99))} | "
                f"{fmt_ms(float(np.mean(r['search_latencies_s'])) * 1e3)} | |"
            )
    return "\n".join(lines)


def ratios(results: list[dict]) -> str:
    """Target ratios per size, from the same run."""
    by = {(r["papers"], r["method"]): r for r in results if "error" not in r}
    lines = []
    for n in sorted({r["papers"] for r in results}):
        a = by.get((n, "engine"))
        if a is None:
            continue
        a50 = percentile_ms(a["latencies_s"], 50)
        parts = [f"**{n:,} docs**:"]
        b = by.get((n, "rank_bm25"))
        if b is not None:
            mismatches, worst = compare(a, b)
            build_ratio = a["build_cpu_s"] / b["build_cpu_s"]
            parts.append(
                f"p50 (b)/(a) = {percentile_ms(b['latencies_s'], 50) / a50:,.0f}×"
                " (target at 100k: ≥ 100×);"
                f" index memory (a)/(b) = {a['index_kb'] / max(1, b['index_kb']):.3f}"
                f" (target at 100k: ≤ 0.2); build CPU (a)/(b) = {build_ratio:.2f}"
                f" (target at 100k: ≤ 1.5); top-10 equal to rank-bm25 in"
                f" {len(a['tops']) - mismatches}/{len(a['tops'])} queries"
                f" (max relative score gap {worst:.1e});"
            )
        for name, label, target in (
            ("bm25s_numpy", "bm25s-numpy", " (target at 100k: ≥ 5×)"),
            ("bm25s_numba", "bm25s-numba", ""),
        ):
            c = by.get((n, name))
            if c is not None:
                speedup = percentile_ms(c["latencies_s"], 50) / a50
                parts.append(f"p50 ({label})/(a) = {speedup:.2f}×{target};")
        lines.append("- " + " ".join(parts))
    return "\n".join(lines)


def by_query_length(results: list[dict], queries: dict[int, list[str]]) -> str:
    """p50 per number of query words, per method and size: where each method is slow."""
    lines = ["| docs | method | " + " | ".join(f"{w} word(s)" for w in range(1, 6)) + " |"]
    lines.append("|---:|---|" + "---:|" * 5)
    for r in results:
        if "error" in r or r["papers"] not in queries:
            continue
        words = np.array([len(q.split()) for q in queries[r["papers"]]])
        latencies = np.asarray(r["latencies_s"])
        cells = [
            fmt_ms(float(np.median(latencies[words == w])) * 1e3) if (words == w).any() else "—"
            for w in range(1, 6)
        ]
        lines.append(f"| {r['papers']:,} | {r['method']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(results: list[dict], queries: dict[int, list[str]]) -> str:
    """Everything printed after a run: machine, table, ratios, latency by query length."""
    return "\n\n".join(
        [
            f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}, numpy {np.__version__}.",
            table(results),
            ratios(results),
            "p50 ms by query length (words before analysis):",
            by_query_length(results, queries),
        ]
    )


def _last_results(
    sizes: Sequence[int], methods: Sequence[str]
) -> tuple[list[dict], dict[int, list[str]]]:
    """The last runs' measurements and queries, from results/."""
    results, queries_by_size = [], {}
    for n in sizes:
        queries_by_size[n] = json.loads((RESULTS / f"queries-{n}.json").read_text())
        for method in methods:
            path = RESULTS / f"worker-{method}-{n}.json"
            if path.exists():
                results.append(json.loads(path.read_text()))
    return results, queries_by_size


def main(argv: Sequence[str] | None = None) -> None:
    """Run every size and method, each in its own process (`benchmarks.scale_worker`)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--quick", action="store_true", help="57 and 3,300 papers only")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--queries", type=int, default=N_QUERIES)
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per subprocess")
    parser.add_argument("--json", type=Path, help="also write all measurements here")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="print the report from the last runs' results/worker-*.json, run nothing",
    )
    args = parser.parse_args(argv)

    sizes = [57, 3300] if args.quick else [int(s) for s in args.sizes.split(",")]
    methods = [m.strip() for m in args.methods.split(",")]
    unknown = set(methods) - set(METHODS)
    if unknown:
        parser.error(f"unknown methods {sorted(unknown)}; valid: {', '.join(METHODS)}")
    if args.report_only:
        print(report(*_last_results(sizes, methods)))
        return
    results = []
    queries_by_size: dict[int, list[str]] = {}
    started = time.perf_counter()
    for n in sizes:
        queries = queries_by_size[n] = synth.queries_for(n, args.queries)
        corpus_file(n)
        for method in methods:
            result = run_worker(method, n, queries, args.timeout)
            results.append(result)
            if "error" in result:
                print(f"{n:>7,} {method:<12} FAILED: {result['error']}", file=sys.stderr)
            else:
                print(
                    f"{n:>7,} {method:<12} build {result['build_s']:7.2f} s  "
                    f"index {fmt_mb(result['index_kb']):>9} MB  "
                    f"p50 {fmt_ms(percentile_ms(result['latencies_s'], 50)):>8} ms  "
                    f"(wall {result['wall_s']:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    print(f"\nTotal {time.perf_counter() - started:.0f} s.\n")
    print(report(results, queries_by_size))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        slim = [{k: v for k, v in r.items() if k != "tops"} for r in results]
        args.json.write_text(json.dumps(slim, indent=1))


if __name__ == "__main__":
    main()
