"""Responsiveness of the real bot under load, through the fake Bot API.

`python -m bot run` against `testkit/fake_bot_api.py` with the index cached, timed from the
fake server's side: delivery (getUpdates hands the update out) -> the bot's sendMessage.
Two cases: SEMANTIC off (`cached`), and SEMANTIC on with no paper vector cached, so the
papers embed in the background all along the measures (`embedding`; first, `/start` after
`/start` while the embedding starts).

1. `/start` alone; then behind 20 questions from 20 chats, last in the same getUpdates batch
   or alone in the next one (the rate limiter's bucket drained between rounds). Aim: 200 ms.
2. A flood: 300 questions from 100 chats at once; each must be answered exactly once, the
   last within 1.1x of what Telegram's 30 messages/s allows (10 s).
3. VmRSS once polling and after the load.

    uv run python -m benchmarks.responsiveness --size 100000 --rounds 10 [--case embedding]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks import synth
from benchmarks.common import CACHE, Bot, corpus_file, load_line, start_bot
from testkit.fake_bot_api import FakeBotApi, parse_html

MESSAGES_PER_SECOND = 30  # Telegram's broadcast limit; AIORateLimiter's default
DRAIN = 1.5  # seconds: > 21 messages / 30 per s, the limiter's bucket is empty again
START_AIM_MS = 200.0
EARLY = 10.0  # seconds from the first poll: the embedding starts (model, child, cache)
FLOOD_SLACK = 1.1


def start_alone(bot: Bot, rounds: int) -> list[float]:
    """/start with nothing else to do: delivery -> answer, ms."""
    out = []
    for _ in range(rounds):
        [chat] = bot.chats(1)
        [update] = bot.api.push_updates([bot.updates.message("/start", chat_id=chat)])
        answered = bot.answered_at(chat)
        delivered = bot.api.wait_delivered([update["update_id"]])[update["update_id"]]
        out.append((answered - delivered) * 1000)
    return out


def start_back_to_back(bot: Bot, seconds: float) -> list[float]:
    """/start after /start (each waits for its answer) for `seconds`: delivery -> answer, ms."""
    out, until = [], time.perf_counter() + seconds
    while time.perf_counter() < until:
        out += start_alone(bot, 1)
    return out


def start_under_load(bot: Bot, questions: list[str], rounds: int, same: bool) -> list[float]:
    """/start from another chat behind `questions`: delivery -> answer, ms."""
    out = []
    for _ in range(rounds):
        time.sleep(DRAIN)
        chats = bot.chats(len(questions))
        [start_chat] = bot.chats(1)
        batch = [bot.updates.message(q, chat_id=c) for q, c in zip(questions, chats, strict=True)]
        start = bot.updates.message("/start", chat_id=start_chat)
        if same:
            ids = [u["update_id"] for u in bot.api.push_updates([*batch, start])]
        else:
            ids = [u["update_id"] for u in bot.api.push_updates(batch)]
            bot.api.wait_delivered(ids)
            ids += [u["update_id"] for u in bot.api.push_updates([start])]
        answered = bot.answered_at(start_chat)
        for chat in chats:
            bot.answered_at(chat)
        out.append((answered - bot.api.wait_delivered(ids)[ids[-1]]) * 1000)
    return out


def flood(bot: Bot, texts: list[str], n_chats: int) -> tuple[float, list[str]]:
    """All `texts` from `n_chats` chats at once: first delivery -> last answer, problems."""
    time.sleep(DRAIN)
    chats = bot.chats(n_chats)
    asked = [(chats[i % n_chats], text) for i, text in enumerate(texts)]
    ids = [u["update_id"] for u in bot.api.push_updates(
        [bot.updates.message(t, chat_id=c) for c, t in asked])]  # fmt: skip
    wanted = set(chats)
    bot.api.wait_for(
        "sendMessage", count=len(texts), predicate=lambda c: c.params["chat_id"] in wanted,
        timeout=120,
    )  # fmt: skip
    [sentinel] = bot.chats(1)  # answered after any stray extra reply
    bot.api.push_updates([bot.updates.message("/start", chat_id=sentinel)])
    bot.answered_at(sentinel)
    delivered = bot.api.wait_delivered(ids)
    replies = [c for c in bot.api.calls_of("sendMessage") if c.params["chat_id"] in wanted]
    problems = []
    per_chat, asked_per_chat = (
        Counter(r.params["chat_id"] for r in replies),
        Counter(c for c, _ in asked),
    )
    if per_chat != asked_per_chat:
        problems.append(f"{len(replies)} replies for {len(texts)} questions, some chats off")
    # A reply names its question in its heading ("Results for <question> — ..."): none twice.
    echoed = Counter(
        (r.params["chat_id"], parse_html(r.params["text"]).split("\n", 1)[0]) for r in replies
    )
    if any(n > 1 and h.startswith("Results for") for (_, h), n in echoed.items()):
        problems.append("a question was answered twice")
    return max(r.at for r in replies) - min(delivered.values()), problems


def without_vectors(into: Path) -> Path:
    """`into` holding the benchmark cache's index files but no vectors (hard links)."""
    for path in CACHE.iterdir():
        if path.is_file() and not path.name.startswith(("vectors-", "confidence-")):
            os.link(path, into / path.name)
    return into


def measure(bot: Bot, texts: list[str], args: argparse.Namespace) -> tuple[list[str], bool]:
    """The table's rows for one running bot, and whether every aim was met."""
    rows, ok = [], True
    polling = bot.rss
    alone = start_alone(bot, args.rounds)
    rows.append(f"| /start, no load | {statistics.median(alone):.0f} / {max(alone):.0f} ms | |")
    for same in (True, False):
        starts = start_under_load(bot, texts[: args.questions], args.rounds, same)
        ok &= max(starts) <= START_AIM_MS
        where = "same batch" if same else "next batch"
        rows.append(
            f"| /start + {args.questions} questions, {where} | "
            f"{statistics.median(starts):.0f} / {max(starts):.0f} ms | <= 200 ms |"
        )
    total, problems = flood(bot, texts[: args.flood], args.flood_chats)
    allowed = args.flood / MESSAGES_PER_SECOND
    ok &= total <= allowed * FLOOD_SLACK and not problems
    note = "; ".join(problems) or "each answered exactly once"
    rows.append(
        f"| {args.flood} questions from {args.flood_chats} chats at once | {total:.2f} s, "
        f"{note} | <= {allowed * FLOOD_SLACK:.1f} s |"
    )
    rows.append(f"| VmRSS polling / after | {polling:.0f} / {bot.rss:.0f} MB | |")
    return rows, ok


def main() -> int:
    """Measure and print the tables; 1 if an aim is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000, help="papers (57: the seeds)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--flood", type=int, default=300)
    parser.add_argument("--flood-chats", type=int, default=100)
    parser.add_argument("--case", choices=("cached", "embedding", "both"), default="both")
    args = parser.parse_args()
    texts = synth.distinct_queries(args.size, max(args.flood, args.questions))
    corpus, ok = corpus_file(args.size), True
    for case in ("cached", "embedding"):
        if args.case not in (case, "both"):
            continue
        with FakeBotApi() as api, tempfile.TemporaryDirectory(dir=CACHE.parent) as empty:
            if case == "cached":
                bot = start_bot(api, corpus, LOG_LEVEL="WARNING")
            else:  # the index cached (a first run of the other case writes it), no vectors
                start_bot(api, corpus, LOG_LEVEL="WARNING").stop()
                bot = start_bot(api, corpus, cache_dir=without_vectors(Path(empty)),
                                watch="embedding papers:", SEMANTIC="on")  # fmt: skip
                early = start_back_to_back(bot, EARLY)  # the embedding starts meanwhile
                bot.log.seen.wait(300)  # the model is loaded and the first papers embed
            print(f"{case}: polling after {bot.started_in:.1f} s", file=sys.stderr, flush=True)
            rows, met = measure(bot, texts, args)
            if case == "embedding":
                during = f"{statistics.median(early):.0f} / {max(early):.0f} ms"
                rows.insert(0, f"| /start back to back, first {EARLY:.0f} s | {during} | |")
            bot.stop()
        ok &= met
        what = "index cached" if case == "cached" else "SEMANTIC on, papers embedding meanwhile"
        print(f"\n{args.size:,} papers, {what} ({load_line()}):\n")
        print("| measure | median / max | aim |\n|---|---|---|")
        print("\n".join(rows))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
