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

    uv run python -m benchmarks.startup --sizes 57,100000 --repeat 5 [--semantic]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import CACHE, SEED, corpus_file, load_line, ms, start_bot
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
    from bot.search.gloss import is_chinese
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


def main() -> None:
    """Run what the flags ask."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="57", help="corpus sizes (57: the seed corpus)")
    parser.add_argument("--repeat", type=int, default=5, help="starts per case")
    parser.add_argument("--questions", type=int, default=20, help="questions per start")
    parser.add_argument("--semantic", action="store_true", help="SEMANTIC off and on")
    args = parser.parse_args()
    startup(args)
    if args.semantic:
        semantic(args)


if __name__ == "__main__":
    main()
