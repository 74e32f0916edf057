"""`/reload` of a large corpus while users ask: does the bot keep answering?

The real bot on a copy of a synthetic corpus (`--size` papers), its index cached. One paper
with a new word is appended (the cache misses, the build runs in a separate process) and an
admin sends /reload; until "Reloaded", a /start every `--every` s from a new chat and a
question every 4th tick. Measured from the fake server: /start's delivery -> answer, the
questions answered (from the old index), the bot's peak VmRSS over the reload (VmHWM, reset
before it), the build process's peak (sampled every 50 ms), and the new paper found after.

    uv run python -m benchmarks.reload --size 100000
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.common import Bot, corpus_file, load_line, start_bot, status_mb
from testkit.fake_bot_api import FakeBotApi

ADMIN = 4242
NEW_WORD = "quokkaflux"
QUESTION = "graph neural networks for molecules"


def children(pid: int) -> list[int]:
    """Every descendant process of `pid`."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids = [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            continue
        for kid in kids:
            found += [kid, *children(kid)]
    return found


def child_peak(pid: int, stop: threading.Event, peak: list[float]) -> None:
    """The largest VmRSS of any descendant of `pid` until `stop`, into `peak[0]`."""
    while not stop.wait(0.05):
        for kid in children(pid):
            try:
                peak[0] = max(peak[0], status_mb(kid))
            except OSError:  # it just exited
                continue


def ask_until_reloaded(bot: Bot, every: float) -> tuple[float, list[float], int, int]:
    """Seconds to "Reloaded", /start latencies (ms), questions asked and answered meanwhile."""
    sent = time.monotonic()
    bot.api.push_update(bot.updates.message("/reload", chat_id=ADMIN, user_id=ADMIN))
    starts, asked, answered, tick = [], 0, 0, 0
    while True:
        done = [c for c in bot.api.calls_of("sendMessage")
                if c.params["chat_id"] == ADMIN and "Reloaded" in c.params["text"]]  # fmt: skip
        if done:
            return done[0].at - sent, starts, asked, answered
        if time.monotonic() - sent > 900:
            raise SystemExit("no reload outcome within 900 s")
        [chat] = bot.chats(1)
        text = QUESTION if tick % 4 == 3 else "/start"
        [update] = bot.api.push_updates([bot.updates.message(text, chat_id=chat)])
        [reply] = bot.api.wait_for(
            "sendMessage", predicate=lambda c, cid=chat: c.params["chat_id"] == cid, timeout=60
        )
        delivered = bot.api.wait_delivered([update["update_id"]])[update["update_id"]]
        if text == "/start":
            starts.append((reply.at - delivered) * 1000)
        else:
            asked += 1
            answered += "paper_" in reply.params["text"]
        tick += 1
        time.sleep(every)


def main() -> None:
    """One reload, measured; the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--every", type=float, default=0.25, help="seconds between /starts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeBotApi() as api:
        corpus, cache = Path(tmp) / "corpus.jsonl", Path(tmp) / "cache"
        shutil.copyfile(corpus_file(args.size), corpus)
        bot = start_bot(api, corpus, cache_dir=cache, ADMIN_USER_IDS=str(ADMIN))
        try:
            before = bot.rss
            record = {"id": "new1", "title": f"The {NEW_WORD} method", "abstract": "Fast."}
            with corpus.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
            Path(f"/proc/{bot.process.pid}/clear_refs").write_text("5")  # VmHWM from here
            stop, peak = threading.Event(), [0.0]
            sampler = threading.Thread(target=child_peak, args=(bot.process.pid, stop, peak))
            sampler.start()
            seconds, starts, asked, answered = ask_until_reloaded(bot, args.every)
            stop.set()
            sampler.join()
            found = NEW_WORD in bot.answer(NEW_WORD).params["text"]
            bot_peak, after = status_mb(bot.process.pid, "VmHWM"), bot.rss
        finally:
            bot.stop()
    print(f"\nReload of {args.size:,} papers (+1 new) while users ask ({load_line()}):\n")
    print("| measure | value |\n|---|---:|")
    print(f"| /reload -> 'Reloaded' | {seconds:.1f} s |")
    print(f"| /start during it, p50 / max (aim 200 ms) | {statistics.median(starts):.0f} / "
          f"{max(starts):.0f} ms ({len(starts)} asks) |")  # fmt: skip
    print(f"| questions answered meanwhile, from the old index | {answered}/{asked} |")
    print(f"| new paper found after the swap | {'yes' if found else 'NO'} |")
    print(f"| bot VmRSS before / after; peak during (VmHWM) | {before:.0f} / {after:.0f}; "
          f"{bot_peak:.0f} MB |")  # fmt: skip
    print(f"| build process peak VmRSS (sampled) | {peak[0]:.0f} MB |")


if __name__ == "__main__":
    main()
