"""Semantic search at scale: embedding throughput, and the answer with it on vs BM25 alone.

For each size (the seed corpus for 57, else a synthetic corpus from `synth.py` and its 200
queries), in this process:

1. **Throughput**: `--sample` papers (spread over the corpus) embedded as the bot embeds
   them (`embed_papers` with the default embedder, its workers on every core, no cache):
   papers/s, and the time to hybrid-ready that rate gives for the whole corpus.
2. **Answer latency**: `HybridRetriever.search` (5 hits with snippets; speller attached;
   each question embedded afresh) against `Index.search` of the same questions, p50 / p90.
   The papers not in the sample get the sample's vectors repeated: the answer's cost
   (one matrix-vector product over every paper, ranks, fusion) does not depend on the values,
   and embedding 100,000 papers would take hours. Recall is not measured here (see
   `hybrid_eval.py`).
3. **Memory**: the vectors' bytes (float32, 384 a paper) and the speller's build time.

    UV_PYTHON_DOWNLOADS=never uv run python -m benchmarks.semantic_scale --sizes 57,3300,100000
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks import synth
from benchmarks.scale import corpus_file
from bot.loading import load_index
from bot.search import HybridRetriever, Speller
from bot.search.gloss import default_glossary
from bot.search.semantic.embedding import Embedder, embed_papers, load_default_embedder
from testkit.devset import load_devset, load_seed_papers

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _p50_p90(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"{statistics.median(seconds) * 1000:.1f} / {p90 * 1000:.1f}"


def _timed(search, questions: list[str]) -> list[float]:
    times = []
    for question in questions:
        started = time.perf_counter()
        search(question, limit=5)
        times.append(time.perf_counter() - started)
    return times


def measure(size: int, sample: int, cache_dir: Path, embedder: Embedder) -> str:
    """One table row for a corpus of `size` papers."""
    if size == 57:
        corpus = REPO / "corpus"
        questions = [q.text for q in load_devset(load_seed_papers())]
    else:
        corpus = corpus_file(size)
        questions = synth.queries_for(size)
    _, index = load_index([corpus], cache_dir)
    rows = np.linspace(0, len(index) - 1, min(sample, len(index))).astype(int)
    picked = [index.papers[int(r)] for r in rows]
    started = time.perf_counter()
    vectors = embed_papers(embedder, picked)
    per_paper = (time.perf_counter() - started) / len(picked)
    assert vectors is not None
    started = time.perf_counter()
    speller = Speller(index)
    speller_s = time.perf_counter() - started
    hybrid = HybridRetriever(index, embedder)
    hybrid.attach_speller(speller)
    hybrid.attach_glossary(default_glossary())  # as served: Chinese questions glossed
    hybrid.attach_vectors(np.resize(vectors, (len(index), vectors.shape[1])))
    bm25 = _timed(index.search, questions)
    semantic = _timed(hybrid.search, questions)
    ready_min = len(index) * per_paper / 60
    return (
        f"| {len(index):,} | {1 / per_paper:.2f} | {ready_min:,.1f} | {_p50_p90(bm25)} | "
        f"{_p50_p90(semantic)} | {len(index) * embedder.dim * 4 / 2**20:.1f} | {speller_s:.2f} |"
    )


def main() -> int:
    """Measure each size and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="57,3300,100000")
    parser.add_argument("--sample", type=int, default=48, help="papers embedded per size")
    parser.add_argument("--cache-dir", type=Path, default=HERE / "results" / "index-cache")
    args = parser.parse_args()
    embedder = load_default_embedder()  # as the bot and `prepare`: every core
    if embedder is None:
        raise SystemExit("the embedding model is not installed")
    print(f"{embedder.name}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(
        "| papers | embedding papers/s | hybrid-ready min (at that rate) | BM25 answer p50 / p90 ms"
        " | hybrid answer p50 / p90 ms | vectors MB | speller build s |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for size in (int(s) for s in args.sizes.split(",")):
        print(measure(size, args.sample, args.cache_dir, embedder), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
