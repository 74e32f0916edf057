"""/recommend's ranking time at ~3,000 papers: the real ICML 2013–2019 paperlists (3,017).

For 50 users, each with 3-10 papers saved on one topic (papers sharing a title word, drawn
deterministically) and, for half of them, 1-3 dismissals (so the per-user logistic
regression runs), the median time of `bot.search.recommend.recommend` for the first page
(5), BM25 alone (`SEMANTIC=off`) and with random unit vectors standing in for the
embeddings (the cosine centroid and the fusion; the model itself is not timed, it is not
run per request). The first call per user is timed apart (it analyses the saved papers'
more-like-this queries, then remembered per index), against a plain `Index.search` p50 in
the same run.

Run: uv run python -m benchmarks.recommend [--users 50] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from bot.corpus import load_corpus
from bot.search import HybridRetriever, Index
from bot.search.recommend import recommend
from bot.search.semantic.embedding import normalized

# `../shared` beside the checkout (a worktree may sit deeper): the nearest one up the tree.
PAPERLISTS = next(
    (
        folder / "shared" / "benchmarks" / "paperlists"
        for folder in Path(__file__).resolve().parents
        if (folder / "shared" / "benchmarks" / "paperlists").is_dir()
    ),
    Path("../shared/benchmarks/paperlists"),
)
TOPICS = ("bandit", "adversarial", "graph", "kernel", "reinforcement", "bayesian", "sparse")


class _NoModel:
    """The hybrid's embedder is only asked for question vectors; recommendations ask none."""

    name, dim = "none", 384

    def embed_documents(self, texts: object) -> np.ndarray:
        raise NotImplementedError

    def embed_query(self, text: str) -> np.ndarray:
        raise NotImplementedError


def main() -> None:
    """Print the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=PAPERLISTS)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    papers = load_corpus(sorted(args.corpus.glob("icml*.json"))).papers
    index = Index.build(papers)
    rng = np.random.default_rng(21)
    hybrid = HybridRetriever(index, _NoModel())  # type: ignore[arg-type]
    hybrid.attach_vectors(normalized(rng.standard_normal((len(papers), 384))))
    users = []
    for u in range(args.users):
        word = TOPICS[u % len(TOPICS)]
        pool = [p.id for p in papers if word in p.title.casefold()]
        saved = list(rng.choice(pool, size=min(len(pool), int(rng.integers(3, 11))), replace=False))
        others = [p.id for p in papers if p.id not in saved]
        dismissed = list(rng.choice(others, size=int(rng.integers(1, 4)))) if u % 2 else []
        users.append((saved, dismissed))
    print(f"{len(papers)} papers (paperlists); {len(users)} users; machine shared (2 cores)")
    searches = []
    for word in TOPICS:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            index.search(f"{word} learning")
            times.append(time.perf_counter() - start)
        searches.append(statistics.median(times) * 1000)
    search_p50 = statistics.median(searches)
    print(f"  Index.search p50 {search_p50:.2f} ms (reference)")
    for name, engine in (("BM25 alone", index), ("with vectors", hybrid)):
        for label, wanted in (("no dismissals", False), ("with dismissals", True)):
            chosen = [(s, d) for s, d in users if bool(d) == wanted]
            first, warm = [], []
            for saved, dismissed in chosen:
                for k in range(args.repeat + 1):
                    start = time.perf_counter()
                    recommend(engine, saved, dismissed, limit=5)
                    (first if k == 0 else warm).append((time.perf_counter() - start) * 1000)
            p50, p90 = statistics.median(warm), float(np.percentile(warm, 90))
            cold = statistics.median(first)
            print(
                f"  {name:<13} {label:<16} p50 {p50:6.2f} ms  p90 {p90:6.2f} ms  "
                f"first call p50 {cold:6.2f} ms  ({p50 / search_p50:.1f}× a search)"
            )


if __name__ == "__main__":
    main()
