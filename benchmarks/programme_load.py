"""Programme loading benchmark: the real ICML 2026 programme the bot serves by default
(`corpus/icml-2026/`: 6,628 papers from 6,796 events, abstracts sidecar), loaded cold and cached
by the CLI and in-process; `--synthetic`: the synthetic feed of `testkit.programme` (6,343
posters, 159 orals, 297 other events) the figures before the real list were taken on.

- CLI cold: `python -m bot search --no-semantic --corpus DIR "sparse routers"` with an empty
  `INDEX_CACHE_DIR` (read, parse, merge, index, write the cache, answer), then the same
  command again (cached). Wall time, and the child's CPU time (user + sys): on a shared
  machine the wall time also counts waiting for a core, so both are shown, with the load.
- In-process: `load_corpus` (read the feed and its sidecar into papers) and `Index.build`.
- `--answers`: the whole answer over the programme, as a running bot gives it (index cached,
  speller and Chinese glossary loaded, BM25 without the model): a 5-hit `answers.page`
  rendered to HTML for each question of `testkit/devset_icml2026.jsonl` (280 questions in
  users' words: keywords, own words, names, typos, Chinese, summaries, off-topic), in a
  fresh process; each round is the same questions again. Wall and thread-CPU p50 per answer.

    uv run python -m benchmarks.programme_load --repeat 5     # the bundled programme
    uv run python -m benchmarks.programme_load --answers --repeat 3
    uv run python -m benchmarks.programme_load --synthetic    # generates the feed once
    uv run python -m benchmarks.programme_load --corpus DIR --repeat 5
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.config import DEFAULT_CORPUS
from testkit.programme import synthetic_programme

QUERY = "sparse routers"


def _cli(corpus: Path, cache: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one `search` process."""
    env = {**os.environ, "INDEX_CACHE_DIR": str(cache), "SEMANTIC": "off"}
    command = [sys.executable, "-m", "bot", "search", "--no-semantic", "--corpus", str(corpus)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([*command, QUERY], env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _in_process(corpus: Path) -> dict[str, tuple[float, float]]:
    """(wall s, CPU s) of loading the feed and of building its index, in a fresh process."""
    code = (
        "import time,sys\n"
        "from bot.corpus import load_corpus\nfrom bot.search import Index\n"
        "w,c=time.perf_counter(),time.process_time()\n"
        "r=load_corpus([sys.argv[1]])\n"
        "w1,c1=time.perf_counter(),time.process_time()\n"
        "Index.build(r.papers)\n"
        "w2,c2=time.perf_counter(),time.process_time()\n"
        "print(len(r.papers),w1-w,c1-c,w2-w1,c2-c1)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(corpus)], check=True, capture_output=True, text=True
    ).stdout.split()
    papers, load_wall, load_cpu, build_wall, build_cpu = out
    print(f"  in-process: {papers} papers")
    return {"load_corpus": (float(load_wall), float(load_cpu)),
            "Index.build": (float(build_wall), float(build_cpu))}  # fmt: skip


_ANSWERS = """
import json, statistics, sys, time
from pathlib import Path
from bot import answers, render
from bot.i18n import translator
from bot.loading import load_index

corpus, cache, devset = (Path(arg) for arg in sys.argv[1:4])
rounds = int(sys.argv[4])
_, index = load_index([corpus], cache)
index.queries.load_speller()
index.queries.start_glossary()
index.queries.load_glossary()
lines = devset.read_text("utf-8").splitlines()
questions = [json.loads(line)["question"] for line in lines if line]
t = translator("en")
for n in range(rounds):
    walls, cpus = [], []
    for question in questions:
        wall, cpu = time.perf_counter(), time.thread_time()
        render.to_html(answers.page(index, question, offset=0, per_page=5, t=t).doc)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.thread_time() - cpu)
    print(n, statistics.median(walls), statistics.median(cpus), flush=True)
"""


def _answers(corpus: Path, cache: Path, rounds: int) -> list[tuple[float, float]]:
    """(wall s, CPU s) p50 of a 5-hit answer over the dev-set questions, per round."""
    devset = Path(__file__).resolve().parent.parent / "testkit" / "devset_icml2026.jsonl"
    env = {**os.environ, "SEMANTIC": "off"}
    command = [sys.executable, "-c", _ANSWERS, str(corpus), str(cache), str(devset), str(rounds)]
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    return [(float(wall), float(cpu)) for _, wall, cpu in map(str.split, out.splitlines())]


def _show(name: str, runs: list[tuple[float, float]]) -> None:
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    print(f"{name:>22}: wall median {statistics.median(walls):5.2f} s (max {max(walls):5.2f}),"
          f" CPU median {statistics.median(cpus):5.2f} s")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Time the runs and print medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="a folder with a feed (default: the bundled)")
    parser.add_argument("--synthetic", action="store_true", help="the synthetic feed instead")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--answers", action="store_true", help="the whole answer's p50 instead")
    args = parser.parse_args(argv)
    if args.answers:
        return _answer_rounds(args.corpus or DEFAULT_CORPUS, args.repeat)
    with tempfile.TemporaryDirectory() as scratch:
        corpus = args.corpus or DEFAULT_CORPUS
        if args.synthetic:
            corpus = synthetic_programme(Path(scratch) / "feed").parent
        runs: dict[str, list[tuple[float, float]]] = {}
        for n in range(args.repeat):
            cache = Path(scratch) / f"cache-{n}"
            runs.setdefault("CLI cold", []).append(_cli(corpus, cache))
            runs.setdefault("CLI cached", []).append(_cli(corpus, cache))
            for name, figures in _in_process(corpus).items():
                runs.setdefault(name, []).append(figures)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for name, figures in runs.items():
            _show(name, figures)
    return 0


def _answer_rounds(corpus: Path, rounds: int) -> int:
    """Print the whole answer's p50 per round (the first round: questions not seen before)."""
    with tempfile.TemporaryDirectory() as scratch:
        _cli(corpus, Path(scratch))  # fills the index cache, as `prepare` or a first start does
        figures = _answers(corpus, Path(scratch), rounds)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for n, (wall, cpu) in enumerate(figures):
        wall_ms, cpu_ms = wall * 1000, cpu * 1000
        print(f"round {n + 1}: a 5-hit answer p50 {wall_ms:6.2f} ms wall, {cpu_ms:6.2f} ms CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
