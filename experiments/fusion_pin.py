"""Issue 20, fusion round 2: keep BM25's leader first, blend the rest.

The shipped rule (weight 0 when the leader holds >= LISTEN_COVERAGE of a Latin question's
idf weight) keeps BM25's whole order; on Cranfield's long questions, where BM25's order
below the leader is worse than the blend, nDCG@10 fell 0.002 under BM25 alone. Variant:
in that case pin only the leader first and fuse the rest 50/50 as for any question. The
first paper (what known-item search needs) is BM25's either way.

    uv run python -m experiments.fusion_pin            # Cranfield + the dev sets' tune split
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.cranfield import DEFAULT_PATH, evaluate, load, load_as_jsonl
from benchmarks.paperlists_eval import metrics
from bot.search import DEFAULT_CACHE_DIR, Index, analyze_query
from bot.search.semantic import fusion
from bot.search.semantic.embedding import embed_papers, load_default_embedder
from bot.textutil import is_latin_text
from experiments.confidence_calibration import load_cache

Fuser = Callable[[np.ndarray, np.ndarray, np.ndarray, bool], np.ndarray]


def shipped(bm25, cosine, coverage, latin):
    """Today's rule."""
    weight = fusion.semantic_weight(bm25, coverage, latin=latin)
    return fusion.fuse(bm25, cosine, matched=coverage > 0, weight=weight)


def pinned(bm25, cosine, coverage, latin):
    """Blend 50/50; when the rule would keep BM25's order, keep only its leader first."""
    fused = fusion.rrf(bm25, cosine, matched=coverage > 0)
    if fusion.semantic_weight(bm25, coverage, latin=latin) == 0:
        leader = int(np.argmax(np.where(coverage > 0, bm25, -np.inf)))
        fused[leader] = fused.max() + 1.0
    return fused


def blend(bm25, cosine, coverage, latin):
    """The old fixed 50/50 blend."""
    return fusion.rrf(bm25, cosine, matched=coverage > 0)


def bm25_only(bm25, cosine, coverage, latin):
    """BM25 alone (papers without a term after, by meaning)."""
    return fusion.fuse(bm25, cosine, matched=coverage > 0, weight=0.0)


FUSERS: dict[str, Fuser] = {
    "bm25": bm25_only,
    "blend": blend,
    "shipped": shipped,
    "pinned": pinned,
}


def cranfield() -> None:
    """nDCG@10 / MAP@100 / recall@10 per fuser."""
    docs, queries, qrels = load(DEFAULT_PATH)
    papers = list(load_as_jsonl(docs).papers)
    embedder = load_default_embedder()
    assert embedder is not None
    index = Index.build(papers)
    vectors = embed_papers(embedder, papers, cache_dir=DEFAULT_CACHE_DIR)
    assert vectors is not None
    ids = [p.id for p in papers]
    rows = np.arange(len(papers))
    cache: dict[str, tuple] = {}

    def signals(query: str) -> tuple:
        if query not in cache:
            terms = analyze_query(query)
            cache[query] = (
                index.scores(terms),
                vectors @ embedder.embed_query(query),
                index.coverage(terms, rows),
                all(is_latin_text(t) for t in terms),
            )
        return cache[query]

    for name, fuser in FUSERS.items():

        def rank(query: str, fuser: Fuser = fuser) -> list[str]:
            fused = fuser(*signals(query))
            return [ids[i] for i in np.argsort(-fused, kind="stable")[:100]]

        ndcg, ap, recall = evaluate(rank, queries, qrels)
        print(f"cranfield {name:8} nDCG@10 {ndcg:.4f} MAP@100 {ap:.4f} recall@10 {recall:.4f}")


def devsets(split: str, until: int) -> None:
    """r@1 / r@3 / MRR@10 per set and style, from experiments.confidence_calibration's cache."""
    path = Path(f".cache/confidence_calibration.{split}.{until}.pkl")
    data = load_cache(path)
    for name, d in data.items():
        groups: dict[str, list] = {}
        for s in d["signals"]:
            if s.expect is not None:
                groups.setdefault(s.style, []).append(s)
        for style, mine in groups.items():
            cells = []
            for fname, fuser in FUSERS.items():

                def ranked(s, fuser: Fuser = fuser) -> list[int]:
                    fused = fuser(s.bm25, s.cosine, s.coverage, s.latin)
                    return np.argsort(-fused, kind="stable")[:10].tolist()

                r1, r3, mrr = metrics(mine, ranked)
                cells.append(f"{fname} {r1:.3f}/{r3:.3f}/{mrr:.3f}")
            print(f"{name:10} {style:9} ({len(mine):3}) " + "  ".join(cells))


def main() -> None:
    """Both evaluations."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="tune")
    parser.add_argument("--until", type=int, default=0)
    parser.add_argument("--skip-cranfield", action="store_true")
    args = parser.parse_args()
    devsets(args.split, args.until)
    if not args.skip_cranfield:
        cranfield()


if __name__ == "__main__":
    main()
