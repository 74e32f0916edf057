"""Start-up and reply latency of the real bot, through the fake Bot API.

`python -m bot run` against `testkit/fake_bot_api.py` on 127.0.0.1: Popen to its first
`getUpdates`, its VmRSS then, the reply latency of `--questions` questions (update queued to
its `sendMessage`) and VmRSS after them. The seed corpus starts without bytecode caches (as
this environment runs Python: PYTHONDONTWRITEBYTECODE) and with them (a PYTHONPYCACHEPREFIX
filled by an untimed start); a synthetic corpus of each other `--sizes` with an empty (cold)
and a filled (cached) index cache.

`--semantic`: the seed corpus with SEMANTIC=off and =on side by side (vectors cached by an
untimed start): start-up, Popen to "Semantic search ready", and the dev set's questions sent
to both bots in turn, at most one a bot every 0.1 s (below the 30 messages/s PTB's rate
limiter keeps to): answer latency, all and Chinese questions, and VmRSS after.

`--first-start`: the bundled programme (CORPUS unset) as a fresh clone's first start serves it,
SEMANTIC as shipped (auto): `python -m bot console` with a question piped, Popen to its first
answer, from an empty INDEX_CACHE_DIR (cold) and then from the cache it wrote (cached),
`--repeat` times; then one `python -m bot run` from an empty cache: Popen to polling, its first
answer (BM25), and "Semantic search ready" (the hybrid, its papers embedded in the child), or
after `--hybrid-minutes` the papers embedded so far and the bot's own estimate of the rest.

    uv run python -m benchmarks.startup --sizes 57,100000 --repeat 5 [--semantic]
    uv run python -m benchmarks.startup --first-start --repeat 3
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import CACHE, SEED, corpus_file, load_line, ms, start_bot
from bot.config import DEFAULT_CORPUS
from testkit.botenv import bot_env
from testkit.fake_bot_api import FakeBotApi

QUESTIONS = (
    "graph neural networks for molecules",
    "diffusion models image generation",
    "reinforcement learning reward",
    "large language model reasoning",
    "privacy attacks on federated learning",
    "neural network that compiles into a decision tree with if-else rules",
)
PACE = 0.1


def start_once(corpus: Path, cache: Path, questions: int, **env: str) -> tuple[float, ...]:
    """(seconds to the first getUpdates, RSS MB then, RSS MB after the questions), and the
    reply latencies after them."""
    with FakeBotApi() as api:
        bot = start_bot(api, corpus, cache_dir=cache, LOG_LEVEL="WARNING", **env)
        try:
            polling = bot.rss
            replies = [bot.ask(QUESTIONS[i % len(QUESTIONS)]) for i in range(questions)]
            return bot.started_in, polling, bot.rss, *replies
        finally:
            bot.stop()


def runs(label: str, repeat: int, corpus: Path, cache: Path, args: argparse.Namespace,
         **env: str) -> str:  # fmt: skip
    """A table row: medians of `repeat` starts."""
    got = [start_once(corpus, cache, args.questions, **env) for _ in range(repeat)]
    print(f"{label}: {', '.join(f'{g[0]:.2f}' for g in got)} s", file=sys.stderr, flush=True)
    starts = [g[0] for g in got]
    replies = [r for g in got for r in g[3:]]
    return (
        f"| {label} | {statistics.median(starts):.2f} s ({min(starts):.2f}-{max(starts):.2f}) | "
        f"{statistics.median(g[1] for g in got):.0f} MB | "
        f"{statistics.median(g[2] for g in got):.0f} MB | {ms(replies) if replies else ''} |"
    )


def startup(args: argparse.Namespace) -> None:
    """The seed corpus without and with .pyc, then each synthetic size cold and cached."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        pycache = str(Path(tmp) / "pycache")
        start_once(SEED, CACHE, 0, PYTHONPYCACHEPREFIX=pycache)  # fills the .pyc
        rows.append(runs("seed (57), no .pyc (as here)", args.repeat, SEED, CACHE, args))
        rows.append(
            runs(
                "seed (57), with .pyc", args.repeat, SEED, CACHE, args, PYTHONPYCACHEPREFIX=pycache
            )
        )
        for size in (int(s) for s in args.sizes.split(",") if s and int(s) != 57):
            corpus, cache = corpus_file(size), Path(tmp) / f"cache-{size}"
            cold = []
            for _ in range(max(1, args.repeat // 2)):
                for stale in cache.glob("*"):
                    stale.unlink()
                cold.append(runs(f"{size:,}, cold (empty cache)", 1, corpus, cache, args))
            rows.append(cold[len(cold) // 2])  # a middle one (each is one start)
            rows.append(runs(f"{size:,}, cached", args.repeat, corpus, cache, args))
    print(f"\nProcess start -> first getUpdates, medians ({load_line()}):\n")
    print(f"| corpus, case | start-up | RSS polling | RSS after {args.questions} answers | "
          "reply p50 / p90 |\n|---|---:|---:|---:|---:|")  # fmt: skip
    print("\n".join(rows))


def semantic(args: argparse.Namespace) -> None:
    """SEMANTIC off and on side by side on the seed corpus, the dev set's questions."""
    from bot.search.query.gloss import is_chinese
    from testkit.devset import load_devset, load_seed_papers

    questions = [q.text for q in load_devset(load_seed_papers(SEED))]
    settings = {"off": "off", "on": "on"}
    polls: dict[str, list[float]] = {k: [] for k in settings}
    ready: dict[str, list[float]] = {k: [] for k in settings}
    latency: dict[str, list[float]] = {k: [] for k in settings}
    rss: dict[str, float] = {}
    for run in range(args.repeat + 1):  # run 0 fills the vector cache, untimed
        with contextlib.ExitStack() as stack:
            bots = {}
            for name, value in settings.items():
                api = stack.enter_context(FakeBotApi())
                bot = start_bot(api, SEED, SEMANTIC=value)
                stack.callback(bot.stop)
                if value == "on" and not bot.log.seen.wait(900):
                    raise SystemExit("semantic search never became ready")
                if run:
                    polls[name].append(bot.started_in)
                    ready[name].append(time.perf_counter() - bot.popen_at if value == "on" else 0)
                bots[name] = bot
            if run != 1:
                continue
            for text in questions:
                began = time.monotonic()
                for name, bot in bots.items():
                    latency[name].append(bot.ask(text))
                time.sleep(max(0.0, began + PACE - time.monotonic()))
            rss = {name: bot.rss for name, bot in bots.items()}
    chinese = [i for i, text in enumerate(questions) if is_chinese(text)]
    print(
        f"\nSeed corpus, {len(questions)} dev-set questions, bots side by side ({load_line()}):\n"
    )
    print("| SEMANTIC | start-up | ready | answer p50 / p90 | Chinese p50 / p90 | RSS after |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in settings:
        ready_s = f"{statistics.median(ready[name]):.1f} s" if name == "on" else ""
        print(
            f"| {name} | {statistics.median(polls[name]):.2f} s | {ready_s} | "
            f"{ms(latency[name])} | {ms([latency[name][i] for i in chinese])} | "
            f"{rss[name]:.0f} MB |"
        )


FIRST_QUESTION = "diffusion models for protein design"
AS_SHIPPED = {"CORPUS": "", "SEMANTIC": "auto"}  # a clone's settings: none


def console_first_answer(cache: Path) -> float:
    """Seconds from Popen of `python -m bot console` (the default corpus, a question piped) to
    the first line of its first answer."""
    env = bot_env(INDEX_CACHE_DIR=str(cache), **AS_SHIPPED)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "console"],
        cwd=tempfile.mkdtemp(prefix="bot-cwd-"),  # no stray .env is read
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{FIRST_QUESTION}\n/quit\n")
    process.stdin.close()
    took = None
    for line in process.stdout:
        if took is None and line.startswith("1. "):
            took = time.perf_counter() - started
    if process.wait() != 0 or took is None:
        raise SystemExit(f"the console failed (exit {process.returncode}, answered: {took})")
    return took


def hybrid_start(cache: Path, minutes: float) -> tuple[float, float, float | None, str]:
    """(Popen to polling, the first answer's latency, Popen to "Semantic search ready" or None
    when not ready within `minutes`, the bot's last embedding progress line) of `python -m bot
    run` on the default corpus from an empty cache."""
    with FakeBotApi() as api:
        bot = start_bot(api, DEFAULT_CORPUS, cache_dir=cache, timeout=3600, **AS_SHIPPED)
        try:
            first = bot.ask(FIRST_QUESTION)
            seen = bot.log.seen.wait(max(0.0, bot.popen_at + minutes * 60 - time.perf_counter()))
            if bot.process.poll() is not None:
                raise SystemExit(f"the bot exited:\n{bot.log.text()[-2000:]}")
            ready = time.perf_counter() - bot.popen_at if seen else None
            lines = [line for line in bot.log.lines if "embedding papers:" in line]
            return bot.started_in, first, ready, (lines[-1].strip() if lines else "")
        finally:
            bot.stop()


def first_start(args: argparse.Namespace) -> None:
    """The bundled programme as a fresh clone starts it: console cold and cached, then the
    bot's hybrid from an empty cache."""
    cold, cached = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.repeat):
            cache = Path(tmp) / f"cache-{run}"
            cold.append(console_first_answer(cache))
            cached.append(console_first_answer(cache))
            print(f"console: cold {cold[-1]:.1f} s, cached {cached[-1]:.1f} s", file=sys.stderr)
            shutil.rmtree(cache)
        print(f"\nThe bundled programme, first start ({load_line()}), medians of {args.repeat}:\n")
        print("| `python -m bot console`, a question piped | Popen to its first answer (range) |")
        print("|---|---:|")
        for label, runs in (("empty cache (a fresh clone)", cold), ("cached", cached)):
            spread = f"{min(runs):.1f}-{max(runs):.1f}"
            print(f"| {label} | {statistics.median(runs):.1f} s ({spread}) |")
        if args.no_hybrid:
            return
        polling, first, ready, progress = hybrid_start(Path(tmp) / "cache-run", args.hybrid_minutes)
        hybrid = f"after {ready / 60:.1f} min" if ready else f"not yet: {progress}"
        print(f"\n`python -m bot run`, empty cache ({load_line()} at the end): polling after "
              f"{polling:.1f} s, first answer in {first * 1e3:.0f} ms, semantic search ready "
              f"{hybrid}")  # fmt: skip


def main() -> None:
    """Run what the flags ask."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="57", help="corpus sizes (57: the seed corpus)")
    parser.add_argument("--repeat", type=int, default=5, help="starts per case")
    parser.add_argument("--questions", type=int, default=20, help="questions per start")
    parser.add_argument("--semantic", action="store_true", help="SEMANTIC off and on")
    parser.add_argument("--first-start", action="store_true", help="the bundled programme")
    parser.add_argument("--no-hybrid", action="store_true", help="--first-start: console only")
    parser.add_argument(
        "--hybrid-minutes", type=float, default=240, help="--first-start: wait this long at most"
    )
    args = parser.parse_args()
    if args.first_start:
        first_start(args)
        return
    startup(args)
    if args.semantic:
        semantic(args)


if __name__ == "__main__":
    main()
