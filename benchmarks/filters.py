"""Query-syntax filters at scale: the candidate mask's time against an unfiltered search.

At 100,000 synthetic papers (`benchmarks/synth.py`, given deterministic years, venues,
tracks, statuses, authors and a conference programme here, which synth does not make: each
paper a poster in one of ten sessions over five days at +09:00, one in forty also an oral,
some without a session or a time; institutions drawn from ~2,000 names; a topic), for each
of 200 synthetic questions and each kind of condition, the median time of
`filters.candidates` (parse excluded, columns already built) against the median of the
bot's `Index.search` of the question's free text (with snippets, what a user waits for). A
filtered query costs at most mask + search (masking the ranker's candidates only removes
work), so the target "filtered within 2× of unfiltered" is (mask + search) / search ≤ 2;
the last columns time the whole filtered `Index.search` (parse, mask, ranking within the
mask, snippets) against the same unfiltered median. Also: the one-off build time and memory
of the filter columns (years, labels, authors; the term positions, built on the first
phrase or word condition, and the programme's columns, on the first programme condition,
timed apart), against the index build.

Run: uv run python -m benchmarks.filters [--docs 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import numpy as np

from benchmarks.synth import generate, queries
from bot.corpus import Paper, Presentation
from bot.search import Index
from bot.search.filters import candidates, filter_columns
from bot.search.query import QueryPipeline
from bot.search.syntax import parse_query
from testkit.programme import DAYS, OFFSET, ORAL_ROOMS, PLACES, POSTER_HALLS, POSTER_SLOTS, TOPICS

YEARS = tuple(range(2013, 2020))
STATUSES = ("Poster", "Poster", "Poster", "Spotlight", "Oral")
TRACKS = ("main",) * 9 + ("Datasets and Benchmarks",)
GIVEN = ("Yann", "Yoshua", "Geoffrey", "Jürgen", "Fei-Fei", "Sergey", "Chelsea", "Pieter")
SURNAMES = tuple(f"{stem}{end}" for stem in ("Ben", "Le", "Hin", "Mar", "Zh", "Wa", "Ko")
                 for end in ("gio", "cun", "ton", "ang", "ou", "ller", "ng", "vic"))  # fmt: skip
INSTITUTIONS = PLACES + tuple(
    f"{kind} {place}"
    for kind in ("University of", "Institute of Technology", "National Laboratory", "College")
    for place in (*SURNAMES, *(f"{s} {t}" for s in SURNAMES[:24] for t in ("North", "South")))
)  # ~2,000 distinct names in all, as a large programme has
NOW = datetime(2026, 7, 15, 3, 0, tzinfo=UTC)  # noon of the third day at the venue


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


def with_metadata(papers: Sequence[Paper], seed: int = 0) -> list[Paper]:
    """The papers with a year, venue, track, status and 1-6 authors each, drawn from `seed`."""
    rng = np.random.default_rng(seed)
    out = []
    for paper in papers:
        year = YEARS[int(rng.integers(len(YEARS)))]
        authors = tuple(
            f"{GIVEN[int(rng.integers(len(GIVEN)))]} {SURNAMES[int(rng.integers(len(SURNAMES)))]}"
            for _ in range(int(rng.integers(1, 7)))
        )
        authors = tuple(dict.fromkeys(authors))
        out.append(
            dataclasses.replace(
                paper,
                year=year,
                venue=f"ICML {year}",
                track=TRACKS[int(rng.integers(len(TRACKS)))],
                status=STATUSES[int(rng.integers(len(STATUSES)))],
                authors=authors,
                presentations=programme(rng),
                affiliations=tuple(
                    INSTITUTIONS[int(rng.integers(len(INSTITUTIONS)))] if rng.random() > 0.1 else ""
                    for _ in authors
                ),
                topic=TOPICS[int(rng.integers(len(TOPICS)))],
            )
        )
    return out


def phrase_of(paper: Paper, rng: np.random.Generator) -> str:
    """Two adjacent words of a paper's abstract: a phrase that occurs in the corpus."""
    words = [w.strip(".,") for w in paper.abstract.split()]
    at = int(rng.integers(max(1, len(words) - 1)))
    return " ".join(words[at : at + 2])


def variants(question: str, paper: Paper, rng: np.random.Generator) -> dict[str, str]:
    """The question with each kind of condition added."""
    words = question.split()
    surname = paper.authors[0].split()[-1]
    return {
        "year range": f"year:2015..2017 {question}",
        "phrase": f'"{phrase_of(paper, rng)}" {question}',
        "exclusion": f"{question} -{words[-1]}" if len(words) > 1 else f"{question} -model",
        "author": f"author:{surname} {question}",
        "venue+track+status": f"venue:icml track:main status:oral {question}",
        "OR": " OR ".join(words) if len(words) > 1 else f"{question} OR method",
        "all of them": f'author:{surname} y:2014..2018 "{phrase_of(paper, rng)}" '
        f"{question} -{words[0]}",
        "session": f"session:{int(rng.integers(1, 11))} {question}",
        "day": f"day:wed {question}",
        "day:today": f"day:today {question}",
        "room+status": f'room:"West Ballroom A" status:oral {question}',
        "institution": f'inst:"{paper.institutions[0] if paper.institutions else "mit"}" {question}'
        if rng.random() < 0.5
        else f"inst:university {question}",
        "topic": f'topic:"deep learning" {question}',
        "programme, all": f"session:3 -status:poster inst:university topic:theory {question}",
    }


def median_ms(run: Callable[[], object], repeat: int) -> float:
    """Median wall time of `run` over `repeat` calls, in ms."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    """Print the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="timings per query (median)")
    args = parser.parse_args()

    corpus = generate(args.docs)
    papers = with_metadata(corpus.papers)
    start = time.perf_counter()
    index = Index.build(papers)
    index_build = time.perf_counter() - start
    start = time.perf_counter()
    columns = filter_columns(index)
    filter_build = time.perf_counter() - start
    start = time.perf_counter()
    _ = columns.phrases  # the term positions, built by the first phrase or word condition
    phrase_build = time.perf_counter() - start
    start = time.perf_counter()
    programme_bytes = columns.programme.nbytes  # built by the first programme condition
    programme_build = time.perf_counter() - start
    print(f"{len(papers)} synthetic papers; machine shared with other sessions (2 cores)")
    print(f"  index build {index_build:.1f} s; filter columns build {filter_build:.1f} s "
          f"({filter_build / index_build:.2f}× the index); term positions {phrase_build:.1f} s "
          f"({phrase_build / index_build:.2f}×); programme {programme_build:.2f} s "
          f"({programme_bytes / 2**20:.1f} MiB); arrays {columns.nbytes / 2**20:.0f} MiB "
          f"(index {index.stats().memory_bytes / 2**20:.0f} MiB)")  # fmt: skip

    rng = np.random.default_rng(7)
    pipeline = QueryPipeline(index, index.query_terms, clock=lambda: NOW)  # day:today, fixed
    questions = queries(corpus, args.queries)
    searches = [median_ms(lambda q=q: index.search(q), args.repeat) for q in questions]
    search_p50 = statistics.median(searches)
    print(f"  unfiltered Index.search p50 {search_p50:.2f} ms ({len(questions)} questions)")
    masks: dict[str, list[float]] = {}
    shares: dict[str, list[float]] = {}
    filtered: dict[str, list[float]] = {}
    for question in questions:
        paper = papers[int(rng.integers(len(papers)))]
        for kind, query in variants(question, paper, rng).items():
            parsed = parse_query(query, now=NOW)
            masks.setdefault(kind, []).append(
                median_ms(lambda p=parsed: candidates(index, p), args.repeat)
            )
            mask = candidates(index, parsed)
            shares.setdefault(kind, []).append(0.0 if mask is None else float(mask.mean()))
            # The whole filtered question as the bot answers it: parse, mask, rank, snippets.
            filtered.setdefault(kind, []).append(
                median_ms(lambda q=query: index.search(pipeline.prepare(q)), args.repeat)
            )
    header = f"{'condition':<20} {'mask p50':>9} {'p90':>8} {'kept':>7}"
    print(f"  {header} {'(mask+search)/search':>21} {'whole search p50':>17} {'ratio':>6}")
    for kind, times in masks.items():
        p50 = statistics.median(times)
        p90 = float(np.percentile(times, 90))
        kept = statistics.median(shares[kind])
        ratio = (p50 + search_p50) / search_p50
        whole = statistics.median(filtered[kind])
        print(
            f"  {kind:<20} {p50:>6.3f} ms {p90:>5.2f} ms {kept:>7.1%} {ratio:>20.2f}× "
            f"{whole:>14.2f} ms {whole / search_p50:>5.2f}×"
        )


if __name__ == "__main__":
    main()
