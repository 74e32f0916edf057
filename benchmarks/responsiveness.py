"""Responsiveness under load and resident memory of the real bot, through the fake Bot API.

Runs `python -m bot run` against `testkit/fake_bot_api.py` on 127.0.0.1 with a corpus of
57 (seed), 3,300 or 100,000 papers (synthetic, `synth.py`) and measures from the fake
server's side: *delivery* = when getUpdates hands an update out, *answer* = when the
bot's sendMessage for that chat arrives.

1. /start under load: 20 questions from 20 private chats in one getUpdates batch, and a
   /start from another chat either last in the same batch or alone in the next one;
   /start's delivery -> answer, per round (the rate limiter's bucket drained between).
2. Flood: 300 questions from 100 private chats queued at once; every question must be
   answered exactly once (its answer echoes it); total = first delivery -> last answer,
   against 300 / 30 msg/s (Telegram's cap, AIORateLimiter's overall limit).
3. VmRSS (/proc/PID/status) of the bot once polling, and after the load.

Also: /start with no load, for reference.

    UV_PYTHON_DOWNLOADS=never uv run --group bench python -m benchmarks.responsiveness
    ... -m benchmarks.responsiveness --sizes 100000 --rounds 10
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.scale import corpus_file
from benchmarks.startup import bot_env, rss_mb, stop
from testkit.fake_bot_api import DEFAULT_TOKEN, FakeBotApi, Updates, parse_html

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"

TELEGRAM_MESSAGES_PER_SECOND = 30  # Bot API broadcast limit; AIORateLimiter's default
BUCKET_DRAIN_SECONDS = 1.5  # > 21 messages / 30 per s: the limiter's bucket is empty again
START_TARGET_MS = 200.0  # issue 4
FLOOD_SLACK = 1.1  # issue 4: within 1.1x of what 30 messages/s allows


def corpus_for(size: int) -> Path:
    """The seed directory for 57, else the synthetic JSONL (generated when missing)."""
    return REPO / "corpus" if size == 57 else corpus_file(size)


def questions_for(count: int) -> list[str]:
    """`count` distinct synthetic questions (the scale benchmark's 100k query set)."""
    stored = RESULTS / "queries-100000.json"
    base = json.loads(stored.read_text()) if stored.exists() else []
    base = base or ["graph neural networks", "diffusion models", "reinforcement learning"]
    words = ["models", "learning", "training", "data", "networks", "optimization"]
    out: list[str] = []
    i = 0
    while len(out) < count:
        q = base[i % len(base)]
        if i >= len(base):
            q = f"{q} {words[(i // len(base)) % len(words)]}"
        if i >= len(base) * (len(words) + 1):
            q = f"{q} {i}"  # every combination used (no stored queries): still distinct
        if q not in out:
            out.append(q)
        i += 1
    return out


@dataclass
class Bot:
    """The running bot process and its fake Bot API."""

    api: FakeBotApi
    process: subprocess.Popen
    started_in: float
    updates: Updates = field(default_factory=Updates)
    next_chat: int = 100_000

    def chats(self, n: int) -> list[int]:
        """`n` chat ids never used before (the per-user question limit starts fresh)."""
        first = self.next_chat
        self.next_chat += n
        return list(range(first, first + n))

    def answers(self, chat_id: int) -> list:
        """sendMessage calls to `chat_id` so far."""
        return [c for c in self.api.calls_of("sendMessage") if c.params["chat_id"] == chat_id]

    def answered_at(self, chat_id: int, *, timeout: float = 30.0) -> float:
        """When the first sendMessage to `chat_id` arrived (waits for it)."""
        [call, *_] = self.api.wait_for(
            "sendMessage", predicate=lambda c: c.params["chat_id"] == chat_id, timeout=timeout
        )
        return call.at


# `python -m bot run` with another GIL switch interval (an experiment: --switch-interval)
SWITCH_LAUNCHER = """
import runpy, sys
sys.setswitchinterval(float(sys.argv[1]))
sys.argv = ["bot", "run"]
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""


def start_bot(
    api: FakeBotApi,
    corpus: Path,
    cache_dir: Path,
    workdir: str,
    *,
    switch_interval: float | None = None,
) -> Bot:
    """`python -m bot run` polling `api`; returns once it sent its first getUpdates."""
    env = bot_env(api, corpus, cache_dir)
    started = time.perf_counter()
    command = [sys.executable, "-m", "bot", "run"]
    if switch_interval is not None:
        command = [sys.executable, "-c", SWITCH_LAUNCHER, str(switch_interval)]
    process = subprocess.Popen(command, cwd=workdir, env=env, stdout=subprocess.DEVNULL)
    if not api.first_get_updates.wait(900):
        process.kill()
        raise SystemExit("the bot never polled")
    return Bot(api, process, time.perf_counter() - started)


def stop_bot(bot: Bot) -> int:
    """SIGINT, as Ctrl-C; the exit code."""
    return stop(bot.process)


def start_no_load(bot: Bot, rounds: int) -> list[float]:
    """/start alone: delivery -> answer, ms."""
    latencies = []
    for _ in range(rounds):
        [chat] = bot.chats(1)
        [update] = bot.api.push_updates([bot.updates.message("/start", chat_id=chat)])
        answered = bot.answered_at(chat)
        delivered = bot.api.wait_delivered([update["update_id"]])[update["update_id"]]
        latencies.append((answered - delivered) * 1000)
    return latencies


@dataclass
class LoadRound:
    """One round of /start under 20 questions."""

    start_ms: float
    """/start delivery -> its answer."""
    questions_done_before: int
    """Questions answered before /start was."""
    last_question_ms: float
    """Questions' delivery -> the last question's answer."""


def start_under_load(
    bot: Bot, questions: list[str], *, rounds: int, same_batch: bool
) -> list[LoadRound]:
    """/start from another chat while `len(questions)` questions are being answered."""
    results = []
    for _ in range(rounds):
        time.sleep(BUCKET_DRAIN_SECONDS)  # the rate limiter's bucket drains between rounds
        chats = bot.chats(len(questions))
        [start_chat] = bot.chats(1)
        batch = [bot.updates.message(q, chat_id=c) for q, c in zip(questions, chats, strict=True)]
        start = bot.updates.message("/start", chat_id=start_chat)
        if same_batch:
            pushed = bot.api.push_updates([*batch, start])
            ids = [u["update_id"] for u in pushed]
        else:
            pushed = bot.api.push_updates(batch)
            ids = [u["update_id"] for u in pushed]
            bot.api.wait_delivered(ids)
            [start] = bot.api.push_updates([start])
            ids.append(start["update_id"])
        start_answered = bot.answered_at(start_chat)
        question_answers = [bot.answered_at(c) for c in chats]
        delivered = bot.api.wait_delivered(ids)
        start_delivered = delivered[ids[-1]]
        first_delivery = min(delivered[i] for i in ids[:-1])
        results.append(
            LoadRound(
                start_ms=(start_answered - start_delivered) * 1000,
                questions_done_before=sum(t < start_answered for t in question_answers),
                last_question_ms=(max(question_answers) - first_delivery) * 1000,
            )
        )
    return results


@dataclass
class Flood:
    """300 questions from 100 chats at once."""

    questions: int
    total_s: float
    allowed_s: float
    answered_once: int
    """Questions in chats that got exactly one reply per question asked."""
    echoed: int
    """Replies whose heading names their question (each named once)."""
    problems: list[str]


def flood(bot: Bot, *, questions: int, chats: int) -> Flood:
    """Queue `questions` questions from `chats` private chats at once; time until all answered."""
    time.sleep(BUCKET_DRAIN_SECONDS)
    chat_ids = bot.chats(chats)
    texts = questions_for(questions)
    asked = [(chat_ids[i % chats], text) for i, text in enumerate(texts)]
    pushed = bot.api.push_updates([bot.updates.message(t, chat_id=c) for c, t in asked])
    ids = [u["update_id"] for u in pushed]
    wanted = set(chat_ids)
    bot.api.wait_for(
        "sendMessage",
        count=questions,
        predicate=lambda c: c.params["chat_id"] in wanted,
        timeout=120,
    )
    # A barrier: a /start queued after the flood is answered after any stray extra reply.
    [sentinel] = bot.chats(1)
    bot.api.push_updates([bot.updates.message("/start", chat_id=sentinel)])
    bot.answered_at(sentinel, timeout=60)

    delivered = bot.api.wait_delivered(ids)
    replies = [c for c in bot.api.calls_of("sendMessage") if c.params["chat_id"] in wanted]
    problems: list[str] = []
    if len(replies) != questions:
        problems.append(f"{len(replies)} replies for {questions} questions")
    # Telegram quotes nothing in private chats, so a reply names its question only in its
    # heading ("Results for <question> — ..."; "Nothing matched well" names none): check
    # that every chat got as many replies as it asked, and no question was echoed twice.
    per_chat = Counter(r.params["chat_id"] for r in replies)
    asked_per_chat = Counter(c for c, _ in asked)
    wrong = sorted(c for c in asked_per_chat if per_chat[c] != asked_per_chat[c])
    if wrong:
        problems.append(f"{len(wrong)} chats got a wrong number of replies, e.g. {wrong[:3]}")
    echoed: Counter[tuple[int, str]] = Counter()
    for reply in replies:
        heading = parse_html(reply.params["text"]).split("\n", 1)[0]
        for chat, text in asked:
            if chat == reply.params["chat_id"] and heading.startswith(f"Results for {text} — "):
                echoed[(chat, text)] += 1
    if any(n > 1 for n in echoed.values()):
        problems.append("a question was answered twice")
    answered_once = sum(asked_per_chat[c] for c in asked_per_chat if c not in wrong)
    total = max(r.at for r in replies) - min(delivered.values())
    return Flood(
        questions=questions,
        total_s=total,
        allowed_s=questions / TELEGRAM_MESSAGES_PER_SECOND,
        answered_once=answered_once,
        echoed=len(echoed),
        problems=problems,
    )


def summary(values: Sequence[float]) -> str:
    """median / max in ms."""
    return f"median {statistics.median(values):.0f} ms, max {max(values):.0f} ms"


def under_load(bot: Bot, label: str, args: argparse.Namespace) -> tuple[list[str], bool]:
    """/start behind 20 questions (same batch, next batch), then the flood: rows, all met."""
    rows: list[str] = []
    all_ok = True
    questions = questions_for(args.questions)
    for same_batch in (True, False):
        where = "same batch" if same_batch else "next batch"
        load = start_under_load(bot, questions, rounds=args.rounds, same_batch=same_batch)
        starts = [r.start_ms for r in load]
        ok = max(starts) <= START_TARGET_MS
        all_ok &= ok
        before = statistics.median(r.questions_done_before for r in load)
        last = statistics.median(r.last_question_ms for r in load)
        rows.append(
            f"| {label} | /start + {args.questions} questions, {where} | "
            f"{summary(starts)} | {'met' if ok else '**not met**'} (≤ 200 ms); "
            f"median {before:.0f} questions answered before it, last question "
            f"{last:.0f} ms after delivery |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    if args.flood > 0:
        result = flood(bot, questions=args.flood, chats=args.flood_chats)
        limit = result.allowed_s * FLOOD_SLACK
        ok = result.total_s <= limit and not result.problems
        all_ok &= ok
        rows.append(
            f"| {label} | {result.questions} questions from {args.flood_chats} chats "
            f"at once | {result.total_s:.2f} s "
            f"(30/s allows {result.allowed_s:.1f} s) | "
            f"{'met' if ok else '**not met**'} (≤ {limit:.1f} s); "
            f"{result.answered_once}/{result.questions} answered exactly once "
            f"({result.echoed} replies name their question, none twice)"
            + (f"; {'; '.join(result.problems)}" if result.problems else "")
            + " |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    return rows, all_ok


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the results as markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="57,3300,100000", help="corpus sizes (57 = seed)")
    parser.add_argument("--load-sizes", default="100000", help="sizes to run (1) and (2) on")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of /start under load")
    parser.add_argument("--questions", type=int, default=20, help="questions per round")
    parser.add_argument("--flood", type=int, default=300, help="questions in the flood")
    parser.add_argument("--flood-chats", type=int, default=100, help="chats in the flood")
    parser.add_argument("--cache-dir", type=Path, default=RESULTS / "index-cache")
    parser.add_argument(
        "--switch-interval",
        type=float,
        help="experiment: run the bot with sys.setswitchinterval(SECONDS) (default 0.005)",
    )
    args = parser.parse_args(argv)
    load_sizes = {int(s) for s in args.load_sizes.split(",") if s}

    rows: list[str] = []
    failed = False
    for size in (int(s) for s in args.sizes.split(",") if s):
        corpus = corpus_for(size)
        with FakeBotApi(DEFAULT_TOKEN) as api, tempfile.TemporaryDirectory() as workdir:
            bot = start_bot(
                api, corpus, args.cache_dir, workdir, switch_interval=args.switch_interval
            )
            label = f"{size:,}" + (" (seed)" if size == 57 else "")
            print(f"{label}: polling after {bot.started_in:.1f} s", file=sys.stderr, flush=True)
            rss_start = rss_mb(bot.process.pid)
            idle = start_no_load(bot, args.rounds)
            rows.append(f"| {label} | /start, no load | {summary(idle)} | |")
            if size in load_sizes:
                load_rows, ok = under_load(bot, label, args)
                rows += load_rows
                failed |= not ok
            rss_end = rss_mb(bot.process.pid)
            code = stop_bot(bot)
            rows.append(
                f"| {label} | resident memory (VmRSS) | {rss_start:,.0f} MB polling, "
                f"{rss_end:,.0f} MB after the runs | start-up {bot.started_in:.1f} s; "
                f"exit code {code} |"
            )
            print(rows[-1], file=sys.stderr, flush=True)

    print("\n| papers | measure | result | target / notes |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
