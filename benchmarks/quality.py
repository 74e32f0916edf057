"""Quality on the held-out sets: what the bot serves, BM25 alone and hybrid, against references.

Sets: `seeds` (the 57 seed papers and testkit/devset.jsonl), `paperlists` (ICML 2013-2019,
3,017 papers, testkit/devset_paperlists.jsonl), `icml2026` (the real ICML 2026 programme,
6,628 papers, testkit/devset_icml2026.jsonl) and `cranfield` (Cranfield-1400, 225 queries
with graded judgements). Every question goes through the answer layer (`bot.answers.page`) of
the corpus loaded as the bot loads it: BM25 alone (SEMANTIC=off: phrasing, spelling, the
Chinese gloss) and the hybrid (SEMANTIC=on, its vectors cached in benchmarks/results/cache;
the first run embeds the papers, minutes for the lists). References: bm25s (English
stopwords, Snowball stemmer) and rank-bm25 BM25Okapi on `lower().split()`.

Dev sets: recall@1 / @3 per question style, and the "nothing matched well" flags (off-topic
and near-miss questions flagged; on-topic ones flagged, and those whose first paper was right).
`--curve`: the flags as the cut moves (the hybrid's: every question's cut moved alike, in
margin units; BM25's coverage cut). Cranfield: nDCG@10 (gain 5 - code), MAP@100, recall@10.
Splits: the dev sets' own (fixed before any tuning); Cranfield's tune = odd-numbered
queries, heldout = even. Choose on tune; read heldout once per shipped change.

    uv run python -m benchmarks.quality --set seeds,paperlists,cranfield --split heldout
    ... --set paperlists --split tune --curve --misses
    ... --set icml2026 --split tune --misses
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import CACHE, CRANFIELD, RESULTS, SEED, load_line, paperlists_files
from bot import answers
from bot.corpus import Paper
from bot.i18n import translator
from testkit.devset import (
    ICML2026,
    Question,
    load_devset,
    load_icml2026_devset,
    load_paperlists_devset,
)

OFF_STYLES = ("offtopic", "nearmiss")
T = translator("en")


@dataclass
class Answered:
    """One question and what each engine answered."""

    text: str
    style: str
    expect: str | None
    """The expected paper's id (None: off-topic); Cranfield: unused."""
    gains: dict[str, int] = field(default_factory=dict)
    """Cranfield: judged papers' gains."""
    ranked: dict[str, list[str]] = field(default_factory=dict)
    confident: dict[str, bool] = field(default_factory=dict)
    confidence: float = 0.0
    """BM25 alone's: the first paper's share of the question's idf weight."""
    rule: Any = None
    """The hybrid's verdict for this question, its margin and cut (`--curve`)."""


Ranker = Callable[[str], tuple[list[str], bool | None, float]]
"""A question -> (paper ids, confident (None: a reference does not say), BM25 confidence)."""


def served(retriever: Any, depth: int) -> Ranker:
    """A question's answer as the bot serves it: ids of a `depth`-hit page, confident."""

    def rank(text: str) -> tuple[list[str], bool | None, float]:
        result = answers.page(retriever, text, offset=0, per_page=depth, t=T).result
        if result is None:
            return [], False, 0.0
        ids = [hit.paper.id for hit in result.hits]
        return ids, bool(result.confident and ids), result.confidence

    return rank


def bm25s_ranker(papers: Sequence[Paper], depth: int) -> Ranker:
    """bm25s with its English stopwords and the Snowball English stemmer."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")

    def tokens(texts: list[str]) -> Any:
        return bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)

    retriever = bm25s.BM25()
    retriever.index(tokens([f"{p.title} {p.abstract}" for p in papers]), show_progress=False)
    ids = [p.id for p in papers]

    def rank(text: str) -> tuple[list[str], bool | None, float]:
        query = tokens([text])
        if not query.vocab:
            return [], None, 0.0
        docs, _ = retriever.retrieve(query, k=min(depth, len(ids)), show_progress=False)
        return [ids[i] for i in docs[0]], None, 0.0

    return rank


def rank_bm25_ranker(papers: Sequence[Paper], depth: int) -> Ranker:
    """rank-bm25's BM25Okapi on `lower().split()` tokens."""
    import rank_bm25

    bm25 = rank_bm25.BM25Okapi([f"{p.title} {p.abstract}".lower().split() for p in papers])
    ids = [p.id for p in papers]

    def rank(text: str) -> tuple[list[str], bool | None, float]:
        order = np.argsort(-bm25.get_scores(text.lower().split()), kind="stable")[:depth]
        return [ids[i] for i in order], None, 0.0

    return rank


@contextlib.contextmanager
def rule_spy(calls: list[tuple]) -> Iterator[None]:
    """Records the verdict (margin and cut) of each answer of the hybrid's confidence rule."""
    from bot.search.semantic import hybrid

    original = hybrid.verdict

    def spy(*args: Any, **kwargs: Any) -> Any:
        judged = original(*args, **kwargs)
        calls.append(judged)
        return judged

    hybrid.verdict = spy
    try:
        yield
    finally:
        hybrid.verdict = original


def engines(paths: list[Path], depth: int, semantic: bool) -> tuple[list[Paper], dict]:
    """The corpus loaded as the bot loads it, and the engines that answer over it."""
    from bot import loading
    from bot.config import Settings

    report, index = loading.load_index(paths, CACHE)
    index.queries.load_speller()
    index.queries.load_glossary()
    papers = list(report.papers)
    named: dict[str, Ranker] = {"BM25 (served)": served(index, depth)}
    if semantic:
        started = loading.start_semantic(
            index, Settings(semantic=True, index_cache_dir=CACHE), embed_threads=None
        )
        if started is None:
            raise SystemExit("no embedding model: run with --no-semantic")
        loading.settle(started, wait=True)
        named["hybrid (served)"] = served(started.retriever, depth)
    named["bm25s"] = bm25s_ranker(papers, depth)
    named["rank-bm25 Okapi"] = rank_bm25_ranker(papers, depth)
    return papers, named


def answer_all(questions: list[Answered], named: dict[str, Ranker], curve: bool) -> None:
    """Each engine's answer to each question (the hybrid's rule recorded with `curve`)."""
    for q in questions:
        for name, rank in named.items():
            calls: list[tuple] = []
            with (
                rule_spy(calls) if curve and name.startswith("hybrid") else contextlib.nullcontext()
            ):
                q.ranked[name], confident, confidence = rank(q.text)
            if confident is not None:
                q.confident[name] = confident
            if name.startswith("BM25"):
                q.confidence = confidence
            if calls:
                q.rule = calls[-1]


# --- the dev sets ---------------------------------------------------------------------------


def dev_set(name: str, split: str | None, semantic: bool) -> tuple[list[Answered], dict]:
    """A dev set's questions of `split` and its engines."""
    paths = {"seeds": [SEED], "icml2026": [ICML2026]}.get(name) or paperlists_files()
    papers, named = engines(paths, 10, semantic)
    load = {"seeds": load_devset, "icml2026": load_icml2026_devset}.get(
        name, load_paperlists_devset
    )
    questions: list[Question] = load(papers, split=split)
    return [
        Answered(q.text, q.style, None if q.expect is None else papers[q.expect].id)
        for q in questions
    ], named


def recall_table(name: str, questions: list[Answered], named: dict) -> None:
    """r@1 / r@3 per style and engine."""
    print(f"\n{name}, recall@1 / @3:\n")
    print("| style (n) | " + " | ".join(named) + " |\n|---|" + "---|" * len(named))
    styles = dict.fromkeys(q.style for q in questions if q.expect is not None)
    for style in styles:
        mine = [q for q in questions if q.style == style]
        cells = []
        for engine in named:
            r1 = sum(q.ranked[engine][:1] == [q.expect] for q in mine) / len(mine)
            r3 = sum(q.expect in q.ranked[engine][:3] for q in mine) / len(mine)
            cells.append(f"{r1:.2f} / {r3:.2f}")
        print(f"| {style} ({len(mine)}) | " + " | ".join(cells) + " |")


def flag_rates(
    questions: list[Answered], flagged: Callable[[Answered], bool], engine: str
) -> list[float]:
    """Flagged shares: off-topic, near-miss, on-topic, on-topic with the right first paper."""
    groups = (
        [q for q in questions if q.style == "offtopic"],
        [q for q in questions if q.style == "nearmiss"],
        [q for q in questions if q.expect is not None],
        [q for q in questions if q.expect is not None and q.ranked[engine][:1] == [q.expect]],
    )
    return [sum(map(flagged, g)) / max(1, len(g)) for g in groups]


def flag_table(questions: list[Answered], named: dict) -> None:
    """The served engines' flags."""
    counts = [sum(q.style == s for q in questions) for s in OFF_STYLES]
    on = sum(q.expect is not None for q in questions)
    print(f"\n| flagged ('nothing matched well') | off-topic ({counts[0]}) | near-miss "
          f"({counts[1]}) | on-topic ({on}) | right first paper |")  # fmt: skip
    print("|---|---|---|---|---|")
    for engine in (e for e in named if "served" in e):
        rates = flag_rates(questions, lambda q, e=engine: not q.confident[e], engine)
        print(f"| {engine} | " + " | ".join(f"{r:.2f}" for r in rates) + " |")


def curves(questions: list[Answered], named: dict) -> None:
    """The flags as each served engine's cut moves."""
    from bot.search.rank.hits import CONFIDENT_COVERAGE

    print("\n| BM25 coverage cut | off-topic | near-miss | on-topic | right first |")
    print("|---|---|---|---|---|")
    for cut in np.arange(0.2, 0.81, 0.1):
        rates = flag_rates(questions, lambda q, c=cut: q.confidence < c, "BM25 (served)")
        shipped = " (shipped)" if math.isclose(cut, CONFIDENT_COVERAGE) else ""
        print(f"| {cut:.1f}{shipped} | " + " | ".join(f"{r:.2f}" for r in rates) + " |")
    if "hybrid (served)" not in named:
        return

    def flagged(q: Answered, shift: float) -> bool:
        return q.rule is None or q.rule.margin < q.rule.cut + shift

    print("\n| hybrid cut moved by | off-topic | near-miss | on-topic | right first |")
    print("|---|---|---|---|---|")
    for shift in np.arange(-1.5, 1.51, 0.25):
        rates = flag_rates(questions, lambda q, s=shift: flagged(q, s), "hybrid (served)")
        shipped = " (served)" if math.isclose(shift, 0.0, abs_tol=1e-9) else ""
        print(f"| {shift:+.2f}{shipped} | " + " | ".join(f"{r:.2f}" for r in rates) + " |")


def misses(questions: list[Answered], named: dict) -> None:
    """Questions the best served engine ranks wrong at 1, or flags wrongly."""
    engine = [e for e in named if "served" in e][-1]
    print(f"\nmisses of {engine}:")
    for q in questions:
        top = q.ranked[engine][:3]
        if (q.expect is not None and top[:1] != [q.expect]) or q.confident[engine] == (
            q.expect is None
        ):
            print(f"  {q.style:9} want {q.expect} got {top} "
                  f"confident={q.confident[engine]} {q.text[:70]!r}")  # fmt: skip


# --- Cranfield ------------------------------------------------------------------------------


def _records(path: Path) -> list[dict[str, str]]:
    """A SMART-format file's records of `.X` fields."""
    records: list[dict[str, str]] = []
    key = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = re.match(r"^\.([A-Z])\s*(.*)$", line)
        if m and m.group(1) == "I":
            records.append({"I": m.group(2).strip()})
            key = None
        elif m:
            key = m.group(1)
            records[-1][key] = ""
        elif key is not None:
            records[-1][key] += line + "\n"
    return records


def cranfield(split: str | None, semantic: bool, folder: Path) -> tuple[list[Answered], dict]:
    """The collection as a JSONL corpus (.T the title, .W the abstract) and its queries.

    cran.qry numbers its queries 001, 002, 004, ... but cranqrel numbers them 1..225 in file
    order; codes 1-4 are relevant with gain 5 - code.
    """
    corpus = RESULTS / "cranfield.jsonl"
    RESULTS.mkdir(parents=True, exist_ok=True)
    docs = _records(folder / "cran.all.1400")
    with corpus.open("w", encoding="utf-8") as out:
        for d in docs:
            title, text = " ".join(d.get("T", "").split()), " ".join(d.get("W", "").split())
            out.write(json.dumps({"id": d["I"], "title": title, "abstract": text}) + "\n")
    qrels: dict[int, dict[str, int]] = {}
    for line in (folder / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and 1 <= int(parts[2]) <= 4:
            qrels.setdefault(int(parts[0]), {})[parts[1]] = 5 - int(parts[2])
    texts = [" ".join(r.get("W", "").split()) for r in _records(folder / "cran.qry")]
    wanted = {"tune": 1, "heldout": 0, None: None}[split]
    questions = [
        Answered(text, "cranfield", None, gains=qrels[n])
        for n, text in enumerate(texts, start=1)
        if n in qrels and (wanted is None or n % 2 == wanted)
    ]
    return questions, engines([corpus], 100, semantic)[1]


def cranfield_table(questions: list[Answered], named: dict) -> None:
    """nDCG@10, MAP@100 and recall@10 per engine."""
    print(f"\nCranfield-1400, {len(questions)} queries:\n")
    print("| engine | nDCG@10 | MAP@100 | recall@10 |\n|---|---|---|---|")
    for engine in named:
        rows = []
        for q in questions:
            ranked, gains = q.ranked[engine], q.gains
            dcg = sum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
            ideal = sorted(gains.values(), reverse=True)[:10]
            idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
            hits = [k for k, d in enumerate(ranked[:100], start=1) if d in gains]
            ap = sum((n + 1) / k for n, k in enumerate(hits)) / len(gains)
            rows.append((dcg / idcg, ap, sum(d in gains for d in ranked[:10]) / len(gains)))
        means = np.mean(np.array(rows), axis=0)
        print(f"| {engine} | " + " | ".join(f"{m:.3f}" for m in means) + " |")


def main() -> None:
    """Print the tables of each set asked for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="seeds,paperlists,cranfield")
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="heldout")
    parser.add_argument("--curve", action="store_true", help="the flags as the cut moves")
    parser.add_argument("--misses", action="store_true", help="list the served misses")
    parser.add_argument("--no-semantic", action="store_true", help="BM25 and references only")
    parser.add_argument("--cranfield", type=Path, default=CRANFIELD)
    args = parser.parse_args()
    split = None if args.split == "all" else args.split
    print(f"split {args.split}; {load_line()}")
    for name in args.set.split(","):
        if name == "cranfield":
            questions, named = cranfield(split, not args.no_semantic, args.cranfield)
            answer_all(questions, named, curve=False)
            cranfield_table(questions, named)
            continue
        questions, named = dev_set(name, split, not args.no_semantic)
        answer_all(questions, named, args.curve)
        recall_table(name, questions, named)
        flag_table(questions, named)
        if args.curve:
            curves(questions, named)
        if args.misses:
            misses(questions, named)


if __name__ == "__main__":
    main()
