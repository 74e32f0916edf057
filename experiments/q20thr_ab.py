"""Old batch split against the workers' stream, alternating trials on the same papers:
wall papers/s, process CPU %, workers' idle share (time out of the engine call, i.e. waiting
for work: a load-independent measure of the schedule), per-trial ratio (medians). Two
workers, BLAS at one thread. First, the idle share the old split causes by itself on all the
ICML papers (a FLOP model of each half: `benchmarks.embedding_speed.forward_flops`).

Run: uv run python -m experiments.q20thr_ab [papers per trial] [trials]
"""

import itertools
import os
import statistics
import sys
import threading
import time

import numpy as np

from benchmarks.embedding_speed import PAPERLISTS, forward_flops, sample_papers
from bot.corpus import load_corpus
from bot.search.semantic.embedding import BATCH, NumpyE5Embedder, embed_papers, paper_text


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def split_idle(emb: NumpyE5Embedder) -> None:
    """Idle share of two workers from main's split alone (equal-token halves of each batch)."""
    lengths = [emb.document_token_count(paper_text(p)) for p in load_corpus([PAPERLISTS]).papers]
    busy = capacity = 0
    for start in range(0, len(lengths), BATCH):
        batch = lengths[start : start + BATCH]
        ends = np.cumsum(batch)
        cuts = np.searchsorted(ends, ends[-1] / 2, side="right")
        bounds = sorted({0, int(cuts), len(batch)})
        costs = [sum(map(forward_flops, batch[a:b])) for a, b in itertools.pairwise(bounds)]
        busy += sum(costs)
        capacity += 2 * max(costs)
    print(f"{len(lengths)} ICML papers, main's split alone leaves {1 - busy / capacity:.1%} idle")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    papers = sample_papers(3 * n)
    emb = NumpyE5Embedder(document_tokens=510, num_threads=2)
    split_idle(emb)
    emb.embed_documents([paper_text(p) for p in papers[:2]])
    busy: list[float] = []
    encode = emb._model.encode
    lock = threading.Lock()

    def timed(sequences):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return encode(sequences)
        finally:
            with lock:
                busy.append(time.perf_counter() - started)

    emb._model.encode = timed  # type: ignore[method-assign]
    idle: dict[str, list[float]] = {}
    rows = {"batches of 8 split in two (main)": [], "workers' stream (embed_papers)": []}
    cpus = {k: [] for k in rows}
    ratios = []
    loads = []
    for trial in range(trials):
        chunk = papers[(trial % 3) * n : (trial % 3 + 1) * n]
        texts = [paper_text(p) for p in chunk]
        walls = []
        for name in list(rows) if trial % 2 == 0 else list(rows)[::-1]:
            busy.clear()
            c, t = cpu(), time.perf_counter()
            if name.startswith("batches"):
                for i in range(0, n, BATCH):
                    emb.embed_documents(texts[i : i + BATCH])
            else:
                embed_papers(emb, chunk)
            wall = time.perf_counter() - t
            rows[name].append(n / wall)
            cpus[name].append((cpu() - c) / wall)
            idle.setdefault(name, []).append(1 - sum(busy) / (2 * wall))
            walls.append((name, wall))
        w = dict(walls)
        ratios.append(w["batches of 8 split in two (main)"] / w["workers' stream (embed_papers)"])
        loads.append(os.getloadavg()[0])
    print(f"{n} papers a trial, {trials} trials, load {min(loads):.1f}-{max(loads):.1f}; medians")
    for name in rows:
        print(
            f"| {name} | {statistics.median(rows[name]):.2f} papers/s "
            f"| CPU {statistics.median(cpus[name]):.0%} "
            f"| workers idle {statistics.median(idle[name]):.1%} |"
        )
    cells = " ".join(f"{r:.2f}" for r in ratios)
    print(f"stream / main speed, per trial: {cells}; median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
