"""The whole answer against naive rank-bm25, on distinct questions, in one run.

At `--size` synthetic papers (`synth`; queries of 1-5 words, no two alike), with the index
cached as a running bot has it:

- **CLI per question**: `python -m bot search --json --limit 10 --no-semantic --queries FILE`
  over 200 and over 2,200 distinct questions (the first 200 the same): (t(2,200) - t(200)) /
  2,000 subtracts start-up and loading. Also the 200 repeated ten times (what the analyzer's
  cache saves when questions repeat; users rarely do).
- **Naive**: `rank_bm25.BM25Plus` (the engine's parameters, over the engine's document
  terms) `get_scores` + `argsort` of each of the 200 questions, right after each round of
  CLI runs: every round gives a paired ratio, naive mean / CLI per question; the headline is
  their median. CPU-time ratios too (less moved by other work on a shared machine).
- **Agreement**: the CLI's top 10 against naive's, per question.
- **Answer layer**: `bot.answers.page` (a 5-hit page) + `render.to_html`, in-process.

`--profile`: where a question's time goes in the CLI, in-process (a sampling profiler over
4,000 distinct questions: analysis, ranking, snippets, papers, JSON). `--build`: index
build CPU and resident memory against rank-bm25's, each in a fresh process. `--worst`: the
hostile inputs against an ordinary question on the seed corpus (exits 1 past 2x).

    uv run python -m benchmarks.whole_answer --size 100000 --runs 3 [--profile] [--build]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple

import numpy as np

from benchmarks import synth
from benchmarks.common import CACHE, REPO, RESULTS, SEED, corpus_file, load_line, status_mb, timed

RATIO_TARGET = 100
WORST_ALLOWED = 2.0


class Round(NamedTuple):
    """One paired round: seconds a question of the CLI and of naive, wall and CPU."""

    cli: float
    cli_cpu: float
    repeated: float
    """The CLI a question when the 200 questions are asked ten times."""
    naive: float
    naive_cpu: float


def cli(corpus: Path, queries: Path, *, capture: bool = False) -> tuple[float, float, str]:
    """Wall and CPU seconds of one `python -m bot search --json` run, and its output."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "INDEX_CACHE_DIR": str(CACHE)}
    command = [sys.executable, "-m", "bot", "search", "--json", "--limit", "10", "--no-semantic"]
    command += ["--corpus", str(corpus), "--queries", str(queries)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(
        command, env=env, check=True, cwd=REPO, text=True,
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
    )  # fmt: skip
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, out.stdout or ""


def naive_index(papers: Any) -> Any:
    """rank-bm25's BM25Plus with the engine's parameters, over the engine's document terms."""
    from rank_bm25 import BM25Plus

    from bot.search.query.analysis import EnglishAnalyzer
    from bot.search.rank.bm25 import DEFAULT_PARAMS
    from bot.search.rank.documents import document_terms

    p, analyzer = DEFAULT_PARAMS, EnglishAnalyzer()  # one analyzer: its terms shared
    terms = [document_terms(paper, analyzer) for paper in papers]
    return BM25Plus(terms, k1=p.k1, b=p.b, delta=p.delta)


def naive_run(naive: Any, queries: list[str]) -> tuple[list[float], list[float], list]:
    """Wall and CPU seconds of each query's analysis + `get_scores` + argsort, and the tops."""
    from bot.search.query.analysis import EnglishAnalyzer, analyze_query

    analyzer = EnglishAnalyzer()
    walls, cpus, tops = [], [], []
    for query in queries:
        started, cpu = time.perf_counter(), time.process_time()
        scores = naive.get_scores(analyze_query(query, analyzer))
        top = np.argsort(-scores, kind="stable")[:10]
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
        tops.append(top)
    return walls, cpus, tops


def answer_layer(index: Any, queries: list[str]) -> list[float]:
    """Seconds of the bot's answer to each question: a 5-hit page, rendered to HTML."""
    from bot import answers, render
    from bot.i18n import translator

    t = translator("en")

    def work(query: str) -> None:
        render.to_html(answers.page(index, query, offset=0, per_page=5, t=t).doc)

    timed(work, [query + " warm" for query in queries[:20]])
    return timed(work, queries)


def agreement(output: str, tops: list, ids: list[str]) -> int:
    """Questions whose CLI top 10 (ids) equals naive's."""
    answers = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    same = 0
    for answer, top in zip(answers, tops, strict=True):
        naive = [ids[int(r)] for r in top[: len(answer["results"])]]
        same += [r["id"] for r in answer["results"]] == naive
    return same


def headline(args: argparse.Namespace) -> None:
    """The paired rounds and the table."""
    from bot.loading import load_index

    corpus = corpus_file(args.size)
    questions = synth.distinct_queries(args.size, 2200)
    files = {name: RESULTS / f"queries-{args.size}-{name}.txt" for name in ("200", "2200", "rep")}
    for name, lines in (
        ("200", questions[:200]),
        ("2200", questions),
        ("rep", questions[:200] * 10),
    ):
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    report, index = load_index([corpus], CACHE)  # fills the cache the CLI reads
    index.queries.load_speller()  # as the CLI: typos corrected
    layer = answer_layer(index, questions[200:400])
    papers, ids = tuple(report.papers), [p.id for p in report.papers]
    del index, report
    gc.collect()
    naive = naive_index(papers)
    del papers
    naive_run(naive, questions[200:220])  # warm its code paths
    _, _, output = cli(corpus, files["200"], capture=True)  # and the page cache
    rounds: list[Round] = []
    same = 0
    for number in range(args.runs):
        cli(corpus, files["200"])  # the first start after naive's run is slower: thrown away
        runs = {name: cli(corpus, path) for name, path in files.items()}
        walls, cpus, tops = naive_run(naive, questions[:200])
        r = Round(
            (runs["2200"][0] - runs["200"][0]) / 2000,
            (runs["2200"][1] - runs["200"][1]) / 2000,
            (runs["rep"][0] - runs["200"][0]) / 1800,
            statistics.mean(walls),
            statistics.mean(cpus),
        )
        rounds.append(r)
        same = agreement(output, tops, ids) if number == 0 else same
        print(
            f"round {number + 1}: t(200) {runs['200'][0]:.2f} s, t(2,200) {runs['2200'][0]:.2f}"
            f" s: CLI {r.cli * 1e3:.3f} ms a question, naive {r.naive * 1e3:.1f} ms: "
            f"{r.naive / r.cli:.0f}x", file=sys.stderr, flush=True,
        )  # fmt: skip
    med = Round(*(statistics.median(r[i] for r in rounds) for i in range(5)))
    ratios = [r.naive / r.cli for r in rounds]
    cpu_ratios = [r.naive_cpu / r.cli_cpu for r in rounds]
    print(f"\nWhole answer at {args.size:,} papers, {args.runs} paired rounds ({load_line()}):\n")
    print("| measure | median |\n|---|---:|")
    print(f"| naive rank-bm25: get_scores + argsort, mean of 200 | {med.naive * 1e3:.1f} ms |")
    print(f"| CLI per question, 2,000 distinct | {med.cli * 1e3:.3f} ms |")
    print(f"| CLI per question, 200 asked ten times | {med.repeated * 1e3:.3f} ms |")
    print(f"| answer layer: 5-hit page + HTML, in-process, p50 | "
          f"{statistics.median(layer) * 1e3:.3f} ms |")  # fmt: skip
    each = ", ".join(f"{r:.0f}x" for r in ratios)
    print(f"| **naive / CLI, distinct questions** (rounds: {each}) | "
          f"**{statistics.median(ratios):.0f}x** (target {RATIO_TARGET}x) |")  # fmt: skip
    print(f"| the same in CPU time | {statistics.median(cpu_ratios):.0f}x |")
    print(f"| CLI top 10 = naive's | {same}/200 questions |")


# --- --profile: a sampling profiler over the CLI, in-process --------------------------------

GROUPS = (
    ("analysis", ("search/query/",)),
    ("ranking", ("search/rank/bm25.py", "search/rank/postings.py", "search/rank/filters.py",
                 "search/rank/hits.py:coverage", "search/rank/hits.py:holds",
                 "search/rank/hits.py:is_confident", "search/rank/vocabulary.py")),
    ("snippets", ("search/snippets/", "search/rank/phrases.py")),
    ("papers from the cache", ("search/storage/", "search/rank/documents.py", "corpus/")),
    ("JSON", (":result_json", ":json_line", ":_derived")),
)  # fmt: skip
BOT = str(REPO / "bot") + os.sep


def label(frame: FrameType | None) -> tuple[str, bool]:
    """A sample's part (the outermost frame of a known part) and whether a search runs."""
    stack = []
    while frame is not None:
        stack.append(frame)
        frame = frame.f_back
    part, inner, searching = "", "", False
    for f in reversed(stack):
        name, function = f.f_code.co_filename, f.f_code.co_name
        if not name.startswith(BOT):
            continue
        where = f"{name[len(BOT) :]}:{function}"
        searching |= where.startswith("search/") and function == "search"
        inner = where.split(":")[0]
        if not part:
            part = next((g for g, keys in GROUPS if any(k in where for k in keys)), "")
    return part or (f"other: {inner}" if inner else "other"), searching


class _Sink(io.TextIOBase):
    """Output discarded (the CLI's writes are not what is profiled)."""

    def write(self, text: str) -> int:
        return len(text)


SAMPLE_CPU_SECONDS = 0.001
"""Asked of the profiling timer; the kernel delivers it at its tick (often 4 ms)."""


def profile(args: argparse.Namespace) -> None:
    """Sample the CLI in-process on its CPU time over 4,000 distinct questions.

    SIGPROF's handler runs in the main thread once a C call returns, so numpy's time is
    charged to the Python frame that called it; each part's share of the samples is its
    share of the CPU time from the first question on.
    """
    from bot.cli import main as bot_main

    corpus = corpus_file(args.size)
    path = RESULTS / f"queries-{args.size}-profile.txt"
    path.write_text("\n".join(synth.distinct_queries(args.size, 4200)[200:]) + "\n")
    os.environ["INDEX_CACHE_DIR"] = str(CACHE)
    samples: Counter[str] = Counter()
    first: list[float] = []  # CPU and wall time at the first question (loading before it)

    def sample(_: int, frame: FrameType | None) -> None:
        part, searching = label(frame)
        if searching and not first:
            first.extend((time.process_time(), time.perf_counter()))
        if first:
            samples[part] += 1

    signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, SAMPLE_CPU_SECONDS, SAMPLE_CPU_SECONDS)
    with contextlib.redirect_stdout(_Sink()):
        bot_main(["search", "--json", "--limit", "10", "--no-semantic",
                  "--corpus", str(corpus), "--queries", str(path)])  # fmt: skip
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    cpu, wall = time.process_time() - first[0], time.perf_counter() - first[1]
    total = sum(samples.values())
    print(f"\nWhere a question's time goes, CLI at {args.size:,} papers, 4,000 distinct "
          f"questions in-process: {cpu / 4:.3f} CPU ms ({wall / 4:.3f} ms wall) a question, "
          f"{total} samples:\n")  # fmt: skip
    print("| part | share | CPU ms a question |\n|---|---:|---:|")
    for part, count in samples.most_common():
        print(f"| {part} | {count / total:.0%} | {count / total * cpu / 4:.3f} |")


# --- --build: index build and memory against rank-bm25, each in a fresh process -------------


def build_worker(method: str, size: int) -> None:
    """In a fresh process: build one method's index; print CPU seconds and MB it added."""
    from bot.corpus import load_corpus
    from bot.search import Index

    papers = load_corpus([corpus_file(size)]).papers
    import rank_bm25  # noqa: F401  (its module is not index memory)

    gc.collect()
    before, cpu = status_mb(os.getpid()), time.process_time()
    built = Index.build(papers) if method == "engine" else naive_index(papers)
    cpu = time.process_time() - cpu
    del papers
    gc.collect()
    print(json.dumps({"cpu": cpu, "mb": status_mb(os.getpid()) - before, "ok": bool(built)}))


def build(args: argparse.Namespace) -> None:
    """Both builds in fresh processes; the table."""
    corpus_file(args.size)
    got = {}
    for method in ("engine", "rank-bm25"):
        command = [sys.executable, "-m", "benchmarks.whole_answer", "--size", str(args.size)]
        out = subprocess.run(
            [*command, "--build-worker", method], cwd=REPO, check=True, capture_output=True,
            text=True,
        )  # fmt: skip
        got[method] = json.loads(out.stdout.splitlines()[-1])
    e, r = got["engine"], got["rank-bm25"]
    print(f"\nIndex build at {args.size:,} papers, fresh processes:\n")
    print("| | engine | rank-bm25 BM25Plus | engine / rank-bm25 |\n|---|---:|---:|---:|")
    print(f"| build CPU s | {e['cpu']:.1f} | {r['cpu']:.1f} | {e['cpu'] / r['cpu']:.2f} |")
    print(f"| resident MB added | {e['mb']:.0f} | {r['mb']:.0f} | {e['mb'] / r['mb']:.3f} |")


# --- --worst: hostile inputs against an ordinary question ----------------------------------

ORDINARY = "neural network that compiles into a decision tree with if-else rules"


def worst(args: argparse.Namespace) -> int:
    """The answer to 10,000 characters of one rare word and to 10,000 distinct words,
    against an ordinary question's, seed corpus; 1 if either is over `WORST_ALLOWED`x."""
    from bot import answers, render
    from bot.i18n import translator
    from bot.loading import load_index

    report, index = load_index([SEED], CACHE)
    index.queries.load_speller()
    abstracts = [p.abstract.lower() for p in report.papers]
    df = Counter(w for a in abstracts for w in set(re.findall(r"[a-z]{6,}", a)))
    rare = min(w for w, n in df.items() if n == 1)
    words = sorted({w for a in abstracts for w in re.findall(r"[a-z]{3,}", a)})
    words += [f"zq{n:05d}x" for n in range(10_000 - len(words))]
    inputs = {
        "ordinary question": ORDINARY,
        f"'{rare} ' to 10,000 chars": ((rare + " ") * 10_000)[:10_000],
        "10,000 distinct words": " ".join(words[:10_000]),
    }
    t, base, ok = translator("en"), 0.0, True
    print("| input | chars | answer p50 ms | x ordinary |\n|---|---:|---:|---:|")
    for name, text in inputs.items():

        def work(_: object, text: str = text) -> None:
            render.to_html(answers.ask(index, text, per_page=5, t=t).doc)

        work(None)
        median = statistics.median(timed(work, range(args.runs * 20)))
        base = base or median
        ok &= median / base <= WORST_ALLOWED
        print(f"| {name} | {len(text):,} | {median * 1e3:.2f} | {median / base:.2f} |")
    return 0 if ok else 1


def main() -> int:
    """Run what the flags ask (the headline by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3, help="paired rounds")
    parser.add_argument("--profile", action="store_true", help="where a question's time goes")
    parser.add_argument("--build", action="store_true", help="build CPU and memory vs rank-bm25")
    parser.add_argument("--worst", action="store_true", help="hostile inputs, seed corpus")
    parser.add_argument("--no-headline", action="store_true", help="only the flags' parts")
    parser.add_argument("--build-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_worker:
        build_worker(args.build_worker, args.size)
        return 0
    RESULTS.mkdir(parents=True, exist_ok=True)
    code = 0
    if not args.no_headline:
        headline(args)
    if args.build:
        build(args)
    if args.worst:
        code = worst(args)
    if args.profile:
        profile(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
