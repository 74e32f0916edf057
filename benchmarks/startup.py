"""Start-up benchmark: process start to the bot's first `getUpdates`, cold and cached.

Runs the real bot (`python -m bot run`) against the fake Bot API server of
`testkit/fake_bot_api.py` on 127.0.0.1 and times, from `Popen` to the server seeing the
first `getUpdates`: the seed corpus, and synthetic 3,300 and 100,000-paper JSONL corpora
with an empty index cache (cold) and again with the cache the cold run wrote (cached).
It also reads the running bot's resident memory (VmRSS) once it is polling, and again after
it has answered `--questions` questions (the running bot: pages of the index it touched).

The seed corpus is timed twice: as this environment runs Python (with
`PYTHONDONTWRITEBYTECODE=1` every start compiles each imported module from source) and
with bytecode caches (Python's default, or `uv sync --compile-bytecode`; kept in a
temporary `PYTHONPYCACHEPREFIX`, filled by one untimed start).

    UV_PYTHON_DOWNLOADS=never uv run --group bench python -m benchmarks.startup
    ... -m benchmarks.startup --sizes 57 --repeat 5      # seed corpus only
    ... -m benchmarks.startup --sizes 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.scale import corpus_file
from testkit.botenv import bot_env as testkit_bot_env
from testkit.fake_bot_api import DEFAULT_TOKEN, ApiCall, FakeBotApi, Updates

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

SEED_SIZE = 57  # papers in corpus/; `--sizes 57` means the seed corpus itself
QUESTIONS = (
    "graph neural networks for molecules",
    "diffusion models image generation",
    "reinforcement learning reward",
    "large language model reasoning",
    "privacy attacks on federated learning",
    "decision tree attention",
    "optimization convergence",
    "benchmark dataset evaluation",
)


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def bot_env(api: FakeBotApi, corpus: Path, cache_dir: Path) -> dict[str, str]:
    """Environment for `python -m bot run` polling `api`; no other bot setting leaks in."""
    return testkit_bot_env(
        TELEGRAM_BOT_TOKEN=api.token,
        TELEGRAM_API_BASE_URL=api.base_url,
        CORPUS=str(corpus),
        INDEX_CACHE_DIR=str(cache_dir),
        LOG_LEVEL="WARNING",
    )


def stop(process: subprocess.Popen) -> int:
    """SIGINT, as Ctrl-C (killed after 30 s); the exit code."""
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


def start_once(
    api: FakeBotApi,
    corpus: Path,
    cache_dir: Path,
    *,
    timeout: float,
    pycache: Path | None = None,
    questions: int = 0,
) -> tuple[float, float, float]:
    """Seconds from process start to its first getUpdates, its RSS then and after questions (MB).

    pycache: a PYTHONPYCACHEPREFIX where the bot may write and read bytecode; None runs
    Python as this environment does.
    """
    env = bot_env(api, corpus, cache_dir)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    command = [sys.executable, "-m", "bot", "run"]
    api.first_get_updates.clear()
    with tempfile.TemporaryDirectory() as cwd:  # no stray .env is read
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
        try:
            if not api.first_get_updates.wait(timeout):
                raise RuntimeError(f"no getUpdates within {timeout} s (exit {process.poll()})")
            elapsed = time.perf_counter() - started
            memory = rss_mb(process.pid)
            updates = Updates()
            for i in range(questions):
                chat_id = 7000 + i

                def to_chat(call: ApiCall, cid: int = chat_id) -> bool:
                    return call.params["chat_id"] == cid

                # The server outlives this run: an earlier run's answer to the same chat must
                # not count (it did: the bot was stopped with questions still arriving).
                before = len([c for c in api.calls_of("sendMessage") if to_chat(c)])
                api.push_update(updates.message(QUESTIONS[i % len(QUESTIONS)], chat_id=chat_id))
                api.wait_for("sendMessage", count=before + 1, predicate=to_chat, timeout=timeout)
            answered = rss_mb(process.pid) if questions else float("nan")
        finally:
            stop(process)
    return elapsed, memory, answered


Row = tuple[str, str, list[float], float, float]
"""(corpus, case, start-up seconds per run, bot RSS MB polling, RSS MB after the questions)."""


def main(argv: Sequence[str] | None = None) -> None:
    """Measure and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes", default="3300,100000", help="synthetic corpus sizes (the seed always runs)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (median shown)")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument(
        "--questions", type=int, default=20, help="questions asked before the second RSS reading"
    )
    args = parser.parse_args(argv)

    rows: list[Row] = []
    with FakeBotApi(DEFAULT_TOKEN) as api, tempfile.TemporaryDirectory() as tmp:
        rows += seed_rows(api, Path(tmp), args)
        for n in (int(s) for s in args.sizes.split(",") if s and int(s) != SEED_SIZE):
            rows += synthetic_rows(api, Path(tmp), n, args)
    print_rows(rows, args.questions)


def seed_rows(api: FakeBotApi, tmp: Path, args: argparse.Namespace) -> list[Row]:
    """The seed corpus started without and with bytecode caches."""
    rows: list[Row] = []
    seed_cache = tmp / "seed-cache"
    pycache = tmp / "pycache"
    start_once(api, REPO / "corpus", seed_cache, timeout=args.timeout, pycache=pycache)
    for case, prefix in (("no .pyc (as run here)", None), ("with .pyc", pycache)):
        times, memory, answered = [], 0.0, 0.0
        for _ in range(args.repeat):
            elapsed, memory, answered = start_once(
                api,
                REPO / "corpus",
                seed_cache,
                timeout=args.timeout,
                pycache=prefix,
                questions=args.questions,
            )
            times.append(elapsed)
        rows.append(("seed (57)", case, times, memory, answered))
        print(f"seed, {case}: {times}", file=sys.stderr, flush=True)
    return rows


def synthetic_rows(api: FakeBotApi, tmp: Path, n: int, args: argparse.Namespace) -> list[Row]:
    """A synthetic corpus of `n` papers started with an empty, then a filled index cache."""
    corpus = corpus_file(n)
    cache_dir = tmp / f"cache-{n}"
    cold, cold_memory, cold_answered = [], 0.0, 0.0
    cached, cached_memory, cached_answered = [], 0.0, 0.0
    for _ in range(max(1, args.repeat - 1) if n >= 50_000 else args.repeat):
        for stale in cache_dir.glob("*"):
            stale.unlink()
        elapsed, cold_memory, cold_answered = start_once(
            api, corpus, cache_dir, timeout=args.timeout, questions=args.questions
        )
        cold.append(elapsed)
        print(f"{n} cold: {elapsed:.2f} s", file=sys.stderr, flush=True)
    for _ in range(args.repeat):
        elapsed, cached_memory, cached_answered = start_once(
            api, corpus, cache_dir, timeout=args.timeout, questions=args.questions
        )
        cached.append(elapsed)
        print(f"{n} cached: {elapsed:.2f} s", file=sys.stderr, flush=True)
    ratio = statistics.median(cold) / statistics.median(cached)
    size = sum(f.stat().st_size for f in cache_dir.glob("index-*")) / 1e6
    note = f"cold/cached = {ratio:.1f}×, cache file {size:.0f} MB"
    return [
        (f"{n:,}", "cold (empty cache)", cold, cold_memory, cold_answered),
        (f"{n:,}", "cached", cached, cached_memory, cached_answered),
        (f"{n:,}", note, [], float("nan"), float("nan")),
    ]


def print_rows(rows: list[Row], questions: int) -> None:
    """The markdown table."""
    print("\nProcess start → first getUpdates (`python -m bot run`); median of runs.\n")
    print(f"| corpus | case | median s | runs s | bot RSS MB | RSS after {questions} questions |")
    print("|---|---|---:|---|---:|---:|")
    for corpus_label, case, times, memory, answered in rows:
        if not times:
            print(f"| {corpus_label} | {case} | | | | |")
            continue
        runs = ", ".join(f"{t:.2f}" for t in times)
        median = statistics.median(times)
        print(
            f"| {corpus_label} | {case} | {median:.2f} | {runs} | {memory:,.0f} | {answered:,.0f} |"
        )


if __name__ == "__main__":
    main()
