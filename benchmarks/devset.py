"""Dev set: recall@1/@3 of paraphrased questions and how confidence separates off-topic ones.

Run: uv run python -m benchmarks.devset [--corpus corpus] [--variant BM25Plus] [--all]
The questions are testkit/devset.jsonl (see testkit/devset.py for its fields, styles and
tune/heldout split); this reports all of them together, BM25 alone.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bot.search import CONFIDENT_COVERAGE, TITLE_WEIGHT, Index, bm25_params
from testkit.devset import Question, load_devset, load_seed_papers


def evaluate(index: Index, questions: Sequence[Question]) -> dict[str, float]:
    """recall@1, recall@3, confident rates on- and off-topic, and the confidences."""
    rows = {p.id: i for i, p in enumerate(index.papers)}
    on = [q for q in questions if q.expect is not None]
    off = [q for q in questions if q.expect is None]
    at1 = at3 = on_confident = off_confident = 0
    on_conf, off_conf = [], []
    for q in on:
        result = index.search(q.text, limit=3)
        ranked = [rows[h.paper.id] for h in result.hits]
        at1 += ranked[:1] == [q.expect]
        at3 += q.expect in ranked
        on_confident += result.confident
        on_conf.append(result.confidence)
    for q in off:
        result = index.search(q.text, limit=3)
        off_confident += result.confident
        off_conf.append(result.confidence)
    return {
        "recall@1": at1 / len(on),
        "recall@3": at3 / len(on),
        "on_confident": on_confident / len(on),
        "off_not_confident": 1 - off_confident / max(1, len(off)),
        "on_conf_min": min(on_conf),
        "on_conf_median": sorted(on_conf)[len(on_conf) // 2],
        "off_conf_max": max(off_conf, default=0.0),
        "n_on": len(on),
        "n_off": len(off),
    }


def main() -> None:
    """Print the dev-set table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="corpus")
    parser.add_argument("--variant", default=None, help="one BM25 variant (default: ours)")
    parser.add_argument("--all", action="store_true", help="all variants and title weights")
    parser.add_argument("--misses", action="store_true", help="list questions missed at 1")
    args = parser.parse_args()
    papers = load_seed_papers(args.corpus)
    questions = load_devset(papers)
    configs = [(args.variant, TITLE_WEIGHT)] if not args.all else []
    if args.all:
        configs = [(v, w) for v in ("BM25Okapi", "BM25L", "BM25Plus") for w in (1, 2, 3)]
    print(f"threshold: coverage >= {CONFIDENT_COVERAGE}")
    print(
        "| variant | title× | recall@1 | recall@3 | on-topic confident | off-topic not confident |"
    )
    print("|---|---|---|---|---|---|")
    for variant, weight in configs:
        params = bm25_params(variant) if variant else bm25_params("BM25Plus")
        index = Index.build(papers, params=params, title_weight=weight)
        m = evaluate(index, questions)
        print(
            f"| {params.variant} | {weight} | {m['recall@1']:.3f} | {m['recall@3']:.3f} "
            f"| {m['on_confident']:.3f} ({m['n_on']}) | {m['off_not_confident']:.3f} "
            f"({m['n_off']}) |"
        )
        if args.misses:
            for q in questions:
                result = index.search(q.text, limit=3)
                top = [h.paper.id for h in result.hits]
                want = None if q.expect is None else papers[q.expect].id
                if (want is not None and top[:1] != [want]) or (want is None and result.confident):
                    print(f"  miss: {q.text!r} want {want} got {top} conf {result.confidence:.2f}")
        confs = [(index.search(q.text).confidence, q.expect is None) for q in questions]
        on = sorted(c for c, off in confs if not off)
        off = sorted(c for c, off in confs if off)
        print(f"  on-topic confidence: min {on[0]:.2f} p10 {on[len(on) // 10]:.2f}", end="")
        print(f" median {on[len(on) // 2]:.2f}; off-topic: {' '.join(f'{c:.2f}' for c in off)}")


if __name__ == "__main__":
    main()
