"""Filters and recommendations: what conditions, a load filter and /recommend cost.

- `query`: at `--docs` synthetic papers (given years, venues, tracks, statuses, authors and
  a programme here: posters in ten sessions over five days at +09:00, a few orals, ~2,000
  institutions, topics), each of `--queries` questions with each kind of condition added,
  answered through the answer layer (a 5-hit page: parse, mask, ranking within it,
  snippets) against the same question without it; the first answer of a kind that builds
  its columns timed apart.
- `load`: `CORPUS_FILTER` on a synthetic arXiv-snapshot-shaped file of `--gigabytes` (~1% of
  the records match), each run a fresh process: time and peak RSS of the filtered load
  against the import alone, a line-by-line read and a load of the matching records alone.
- `recommend`: /recommend's first page at the ICML 2013-2019 lists (3,017 papers) for 50
  users with 3-10 saved papers on a topic, half with 1-3 dismissals (the per-user logistic
  regression runs), BM25 alone and with random unit vectors standing in for the embeddings.

    uv run python -m benchmarks.filters query --docs 100000
    uv run python -m benchmarks.filters load --gigabytes 2
    uv run python -m benchmarks.filters recommend
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import synth
from benchmarks.common import REPO, RESULTS, load_line, ms, paperlists_files, timed
from bot import answers
from bot.corpus import Paper, Presentation
from bot.i18n import translator
from testkit.programme import DAYS, OFFSET, ORAL_ROOMS, PLACES, POSTER_HALLS, POSTER_SLOTS
from testkit.programme import TOPICS as FEED_TOPICS

T = translator("en")
YEARS = tuple(range(2013, 2020))
GIVEN = ("Yann", "Yoshua", "Geoffrey", "Jürgen", "Fei-Fei", "Sergey", "Chelsea", "Pieter")
SURNAMES = tuple(f"{stem}{end}" for stem in ("Ben", "Le", "Hin", "Mar", "Zh", "Wa", "Ko")
                 for end in ("gio", "cun", "ton", "ang", "ou", "ller", "ng", "vic"))  # fmt: skip


INSTITUTIONS = PLACES + tuple(
    f"{kind} {place}"
    for kind in ("University of", "Institute of Technology", "National Laboratory", "College")
    for place in (*SURNAMES, *(f"{s} {t}" for s in SURNAMES[:24] for t in ("North", "South")))
)  # ~2,000 distinct names in all, as a large programme has


def programme(rng: np.random.Generator) -> tuple[Presentation, ...]:
    """A poster in one of ten sessions (a few without one or without a time), sometimes an oral."""
    if rng.random() < 0.02:
        return ()
    slot = int(rng.integers(2 * len(DAYS)))
    day, (start, end) = DAYS[slot // 2], POSTER_SLOTS[slot % 2]
    session = f"Poster Session {slot + 1}" if rng.random() > 0.03 else ""
    poster = Presentation("poster", session, f"{day}T{start}:00{OFFSET}", f"{day}T{end}:00{OFFSET}",
                          POSTER_HALLS[slot % 2], f"E-{int(rng.integers(3000))}")  # fmt: skip
    if rng.random() > 0.025:
        return (poster,)
    room = int(rng.integers(len(ORAL_ROOMS)))
    at = f"{day}T10:00:00{OFFSET}", f"{day}T10:15:00{OFFSET}"
    oral = Presentation("oral", f"Oral {slot // 2 + 1}{'ABCD'[room]} Track", *at, ORAL_ROOMS[room])
    return (oral, poster)


def page(retriever: Any, text: str) -> Any:
    """The first 5-hit page the bot answers `text` with."""
    return answers.page(retriever, text, offset=0, per_page=5, t=T)


def with_metadata(papers: tuple[Paper, ...], rng: np.random.Generator) -> list[Paper]:
    """The papers with a year, venue, track, status and 1-6 authors each."""
    out = []
    for paper in papers:
        year = YEARS[int(rng.integers(len(YEARS)))]
        authors = {f"{rng.choice(GIVEN)} {rng.choice(SURNAMES)}": None for _ in range(
            int(rng.integers(1, 7)))}  # fmt: skip
        out.append(dataclasses.replace(
            paper, year=year, venue=f"ICML {year}", authors=tuple(authors),
            track="Datasets and Benchmarks" if rng.random() < 0.1 else "main",
            status=str(rng.choice(("Poster", "Poster", "Poster", "Spotlight", "Oral"))),
            presentations=programme(rng),
            affiliations=tuple(INSTITUTIONS[int(rng.integers(len(INSTITUTIONS)))]
                               if rng.random() > 0.1 else "" for _ in authors),
            topic=FEED_TOPICS[int(rng.integers(len(FEED_TOPICS)))],
        ))  # fmt: skip
    return out


def conditions(question: str, paper: Paper, rng: np.random.Generator) -> dict[str, str]:
    """The question with each kind of condition added."""
    words, abstract = question.split(), [w.strip(".,") for w in paper.abstract.split()]
    at = int(rng.integers(max(1, len(abstract) - 1)))
    phrase, surname = " ".join(abstract[at : at + 2]), paper.authors[0].split()[-1]
    return {
        "year range": f"year:2015..2017 {question}",
        "phrase": f'"{phrase}" {question}',
        "exclusion": f"{question} -{words[-1]}" if len(words) > 1 else f"{question} -model",
        "author": f"author:{surname} {question}",
        "venue+track+status": f"venue:icml track:main status:oral {question}",
        "OR": " OR ".join(words) if len(words) > 1 else f"{question} OR method",
        "all of them": f'author:{surname} y:2014..2018 "{phrase}" {question} -{words[0]}',
        "session": f"session:{int(rng.integers(1, 11))} {question}",
        "day": f"day:wed {question}",
        "room+status": f'room:"West Ballroom A" status:oral {question}',
        "institution": f'inst:"{paper.institutions[0] if paper.institutions else "mit"}" {question}'
        if rng.random() < 0.5
        else f"inst:university {question}",
        "topic": f'topic:"deep learning" {question}',
        "programme, all": f"session:3 -status:poster inst:university topic:theory {question}",
    }


def query(args: argparse.Namespace) -> None:
    """Filtered answers against unfiltered ones."""
    from bot.search import Index

    rng = np.random.default_rng(7)
    corpus = synth.generate(args.docs)
    papers = with_metadata(corpus.papers, rng)
    started = time.perf_counter()
    index = Index.build(papers)
    built = time.perf_counter() - started
    index.queries.load_speller()
    questions = synth.queries(corpus, args.queries)
    first = {kind: timed(lambda q: page(index, q), [q])[0]
             for kind, q in (("year (columns)", "year:2015 model"),
                             ("phrase (term positions)", '"neural network" model'))}  # fmt: skip
    plain = timed(lambda q: page(index, q), questions)
    kinds: dict[str, list[float]] = {}
    totals: dict[str, list[float]] = {}
    for question in questions:
        for kind, text in conditions(question, papers[int(rng.integers(len(papers)))], rng).items():
            started = time.perf_counter()
            result = page(index, text).result
            kinds.setdefault(kind, []).append(time.perf_counter() - started)
            totals.setdefault(kind, []).append((result.total if result else 0) / len(papers))
    base = statistics.median(plain)
    print(f"\n{len(papers):,} papers (index build {built:.1f} s), {len(questions)} questions, "
          f"5-hit pages ({load_line()}); first answers: "
          + ", ".join(f"{k} {v:.1f} s" for k, v in first.items()) + "\n")  # fmt: skip
    print("| condition | matched | answer p50 / p90 | x unfiltered |\n|---|---:|---:|---:|")
    print(f"| none | | {ms(plain)} | 1.00 |")
    for kind, times in kinds.items():
        share = statistics.median(totals[kind])
        print(f"| {kind} | {share:.1%} | {ms(times)} | {statistics.median(times) / base:.2f} |")


# --- load: CORPUS_FILTER on a multi-GB snapshot ---------------------------------------------

FILTER = "categories:cs.LG year:2025"
WORDS = ("model", "learning", "network", "data", "training", "graph", "optimal", "bound",
         "kernel", "policy", "reward", "attention", "sparse", "robust", "gradient", "convex",
         "transformer", "language", "causal", "regret", "diffusion", "latent", "prior", "the",
         "of", "and", "a", "in", "for", "on", "with", "that", "is", "we")  # fmt: skip
OTHER = ("cs.CV", "cs.CL", "cs.AI", "stat.ML", "math.OC", "cs.IR", "cs.NE", "quant-ph", "hep-th")
CHILD = {
    "import bot.corpus": "import bot.corpus",
    "read line by line": "n = sum(1 for _ in open(PATH, 'rb'))",
    "filtered load": "from bot.corpus import LoadFilter, load_corpus\nn = len(load_corpus("
    "[PATH], keep=LoadFilter.parse(FILTER), progress=lambda _: None).papers)",
    "the matching records alone": "from bot.corpus import load_corpus\n"
    "n = len(load_corpus([PATH]).papers)",
}
RUN = """
import json, sys, time
PATH, FILTER = sys.argv[1], sys.argv[2]
started, n = time.perf_counter(), 0
{body}
seconds = time.perf_counter() - started
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({{"seconds": seconds, "n": n, "mb": int(hwm.split()[1]) / 1024}}))
"""


def snapshot(path: Path, kept: Path, gigabytes: float) -> int:
    """Write both files (deterministic, the real snapshot's fields); the matching records."""
    rng, written, number, matching = random.Random(19), 0, 0, 0
    with path.open("w", encoding="utf-8") as out, kept.open("w", encoding="utf-8") as small:
        while written < gigabytes * 1e9:
            lg, year = rng.random() < 0.2, 2025 if rng.random() < 0.05 else rng.randint(2008, 2024)
            categories = rng.sample(OTHER, rng.randint(1, 3)) + (["cs.LG"] if lg else [])
            names = [f"Author{rng.randint(1, 50_000)}" for _ in range(rng.randint(1, 6))]
            line = json.dumps({
                "id": f"{number // 100_000:04d}.{number % 100_000:05d}", "submitter": names[0],
                "authors": ", ".join(names), "title": " ".join(rng.choices(WORDS, k=10)),
                "comments": "12 pages", "journal-ref": None, "doi": None, "report-no": None,
                "categories": " ".join(categories), "license": None,
                "abstract": " ".join(rng.choices(WORDS, k=rng.randint(120, 220))),
                "versions": [{"version": "v1", "created": f"Mon, 1 Jan {year} 10:00:00 GMT"}],
                "update_date": f"{year}-{rng.randint(1, 12):02d}-01",
                "authors_parsed": [[n, "A.", ""] for n in names],
            }) + "\n"  # fmt: skip
            out.write(line)
            written += len(line)
            number += 1
            if lg and year == 2025:
                matching += 1
                small.write(line)
    return matching


def load(args: argparse.Namespace) -> None:
    """Each kind of run in a fresh process, medians of `--repeat`."""
    path = RESULTS / f"arxiv-metadata-oai-snapshot-{args.gigabytes:g}g.json"
    kept = path.with_suffix(".slice.jsonl")
    RESULTS.mkdir(parents=True, exist_ok=True)
    try:
        matching = snapshot(path, kept, args.gigabytes)
        got: dict[str, list[dict]] = {kind: [] for kind in CHILD}
        for _ in range(args.repeat):
            for kind, body in CHILD.items():
                file = kept if kind.startswith("the matching") else path
                out = subprocess.run(
                    [sys.executable, "-c", RUN.format(body=body), str(file), FILTER],
                    cwd=REPO, capture_output=True, text=True, check=True,
                )  # fmt: skip
                got[kind].append(json.loads(out.stdout.splitlines()[-1]))
        if {r["n"] for r in got["filtered load"]} != {matching}:
            raise SystemExit(f"the filtered load lost records: {got['filtered load']}")
        print(f"\n{path.stat().st_size / 1e9:.2f} GB, {matching:,} records match {FILTER!r} "
              f"({load_line()}):\n")  # fmt: skip
        print("| run (fresh process) | time s | peak RSS MB |\n|---|---:|---:|")
        for kind, runs in got.items():
            seconds = statistics.median(r["seconds"] for r in runs)
            print(f"| {kind} | {seconds:.1f} | {statistics.median(r['mb'] for r in runs):.0f} |")
    finally:
        path.unlink(missing_ok=True)
        kept.unlink(missing_ok=True)


# --- recommend: /recommend's first page -----------------------------------------------------

TOPICS = ("bandit", "adversarial", "graph", "kernel", "reinforcement", "bayesian", "sparse")


def recommend(args: argparse.Namespace) -> None:
    """/recommend's first page per user, BM25 alone and with vectors."""
    from bot.corpus import load_corpus
    from bot.search import HybridRetriever, Index

    papers = load_corpus(paperlists_files()).papers
    index, rng = Index.build(papers), np.random.default_rng(21)
    hybrid = HybridRetriever(index, None)  # type: ignore[arg-type]  # asked for no question
    vectors = rng.standard_normal((len(papers), 384)).astype(np.float32)
    hybrid.attach_vectors(vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
    users = []
    for u in range(args.users):
        pool = [p.id for p in papers if TOPICS[u % len(TOPICS)] in p.title.casefold()]
        saved = rng.choice(pool, size=min(len(pool), int(rng.integers(3, 11))), replace=False)
        dismissed = (
            rng.choice([p.id for p in papers], size=int(rng.integers(1, 4))) if u % 2 else ()
        )
        users.append(answers.Taste(tuple(saved), frozenset(dismissed)))
    search = timed(lambda w: page(index, f"{w} learning"), TOPICS * args.repeat)
    print(f"\n{len(papers)} papers, {len(users)} users ({load_line()}); a 5-hit search answer "
          f"{ms(search)}:\n")  # fmt: skip
    print("| engine | dismissals | p50 / p90 | first call p50 |\n|---|---|---:|---:|")
    for name, engine in (("BM25 alone", index), ("with vectors", hybrid)):
        for label, wanted in (("none", False), ("1-3", True)):
            first, warm = [], []
            for taste in (t for t in users if bool(t.dismissed) == wanted):
                times = timed(lambda _, e=engine, taste=taste: answers.recommended(
                    e, taste, offset=0, per_page=5, t=T), range(args.repeat + 1))  # fmt: skip
                first.append(times[0])
                warm += times[1:]
            print(f"| {name} | {label} | {ms(warm)} | {statistics.median(first) * 1e3:.2f} ms |")


def main() -> None:
    """Run the subcommand."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts = parser.add_subparsers(dest="part", required=True)
    q = parts.add_parser("query", help="query-syntax conditions")
    q.add_argument("--docs", type=int, default=100_000)
    q.add_argument("--queries", type=int, default=200)
    lo = parts.add_parser("load", help="CORPUS_FILTER on a large snapshot")
    lo.add_argument("--gigabytes", type=float, default=2.0)
    lo.add_argument("--repeat", type=int, default=1)
    r = parts.add_parser("recommend", help="/recommend's first page")
    r.add_argument("--users", type=int, default=50)
    r.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    {"query": query, "load": load, "recommend": recommend}[args.part](args)


if __name__ == "__main__":
    main()
