"""Reload benchmark: does the bot keep answering while a large corpus is re-indexed?

Runs the real bot (`python -m bot run`) against the fake Bot API on 127.0.0.1 with a copy
of a synthetic corpus (`--size` papers, default 100,000), cached. Then one paper with a
unique word is appended to the corpus (so the cache misses) and an admin sends /reload.
Until the bot reports "Reloaded", a /start (every `--every` s, from a new chat) and a
question (every 4th tick) are sent; measured from the fake server's side: /start's
delivery -> answer, and whether each question is answered (from the old index). Memory:
the bot's VmHWM (peak resident) and the largest resident size seen of any child process
(the separate build), sampled every 50 ms; VmHWM is reset just before /reload. Afterwards
the new paper must be found.

    UV_PYTHON_DOWNLOADS=never uv run --group bench python -m benchmarks.reload
    ... -m benchmarks.reload --size 3300
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from benchmarks.scale import corpus_file
from benchmarks.startup import bot_env, rss_mb, stop
from testkit.fake_bot_api import DEFAULT_TOKEN, FakeBotApi, Updates

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

ADMIN = 4242
NEW_WORD = "quokkaflux"
QUESTION = "graph neural networks for molecules"


def status_mb(pid: int, field: str) -> float:
    """A /proc/PID/status memory field (VmHWM, VmRSS) in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


class ChildPeak(threading.Thread):
    """Samples the resident size of the bot's child processes until stopped."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.parent = psutil.Process(pid)
        self.peak_mb = 0.0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.05):
            for child in self.parent.children(recursive=True):
                with contextlib.suppress(psutil.Error):  # the child may just have exited
                    self.peak_mb = max(self.peak_mb, child.memory_info().rss / 2**20)


def main() -> int:
    """Measure one reload and print a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--every", type=float, default=0.25, help="seconds between /starts")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, FakeBotApi(DEFAULT_TOKEN) as api:
        corpus = Path(tmp) / "corpus.jsonl"
        shutil.copyfile(corpus_file(args.size), corpus)
        cache = Path(tmp) / "cache"
        env = bot_env(api, corpus, cache)
        env["ADMIN_USER_IDS"] = str(ADMIN)
        command = [sys.executable, "-m", "bot", "run"]
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, cwd=tmp, stdout=subprocess.DEVNULL)
        try:
            if not api.first_get_updates.wait(900):
                raise SystemExit("the bot never polled")
            print(f"cold start: {time.perf_counter() - started:.1f} s", file=sys.stderr)
            before_mb = rss_mb(process.pid)
            updates = Updates()
            record = {"id": "new1", "title": f"The {NEW_WORD} method", "abstract": "Fast."}
            with corpus.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
            # Reset the bot's VmHWM, so the peak below is the reload's (not the start's).
            Path(f"/proc/{process.pid}/clear_refs").write_text("5")
            sampler = ChildPeak(process.pid)
            sampler.start()
            reload_sent = time.monotonic()
            api.push_update(updates.message("/reload", chat_id=ADMIN, user_id=ADMIN))
            reload_seconds, during = ask_until_reloaded(api, updates, reload_sent, args.every)
            sampler.stopped.set()
            sampler.join()
            chat = during.last_chat + 1
            api.push_update(updates.message(NEW_WORD, chat_id=chat))
            [found] = api.wait_for(
                "sendMessage", predicate=lambda c: c.params["chat_id"] == chat, timeout=60
            )
            bot_peak = status_mb(process.pid, "VmHWM")
            after_mb = rss_mb(process.pid)
        finally:
            stop(process)

    swapped = NEW_WORD in found.params["text"]
    print_summary(args.size, reload_seconds, during, swapped, (before_mb, after_mb, bot_peak))
    print(f"| build process peak RSS (sampled) | {sampler.peak_mb:.0f} MB |")
    return 0


@dataclass
class During:
    """What users got while the reload ran."""

    starts_ms: list[float] = field(default_factory=list)
    """Each /start's delivery -> answer."""
    questions: int = 0
    answered: int = 0
    """Questions answered with papers (from the old index)."""
    last_chat: int = 10_000


def ask_until_reloaded(
    api: FakeBotApi, updates: Updates, reload_sent: float, every: float
) -> tuple[float, During]:
    """/start every `every` s and a question every 4th tick until the admin hears "Reloaded"."""
    during = During()
    tick = 0
    while True:
        done = [
            c
            for c in api.calls_of("sendMessage")
            if c.params["chat_id"] == ADMIN and "Reloaded" in c.params["text"]
        ]
        if done:
            return done[0].at - reload_sent, during
        if time.monotonic() - reload_sent > 900:
            raise SystemExit("no reload outcome within 900 s")
        during.last_chat += 1
        chat = during.last_chat
        text = QUESTION if tick % 4 == 3 else "/start"
        [update] = api.push_updates([updates.message(text, chat_id=chat)])
        [reply] = api.wait_for(
            "sendMessage", predicate=lambda c, cid=chat: c.params["chat_id"] == cid, timeout=60
        )
        delivered = api.wait_delivered([update["update_id"]])[update["update_id"]]
        if text == "/start":
            during.starts_ms.append((reply.at - delivered) * 1000)
        else:
            during.questions += 1
            during.answered += "paper_" in reply.params["text"]
        tick += 1
        time.sleep(every)


def print_summary(
    size: int, reload_seconds: float, during: During, swapped: bool, rss: tuple[float, ...]
) -> None:
    """The table (the build process's peak row follows it)."""
    before_mb, after_mb, bot_peak = rss
    print(f"\nReload of {size:,} papers (+1 new) while /start and questions arrive:\n")
    print("| measure | value |")
    print("|---|---:|")
    print(f"| /reload -> 'Reloaded' message | {reload_seconds:.1f} s |")
    print(f"| /start answered during the reload | {len(during.starts_ms)} |")
    if during.starts_ms:
        p50, worst = statistics.median(during.starts_ms), max(during.starts_ms)
        print(f"| /start delivery -> answer, p50 / max | {p50:.0f} / {worst:.0f} ms |")
    print(f"| questions answered from the old index | {during.answered}/{during.questions} |")
    print(f"| new paper found after the swap | {'yes' if swapped else 'NO'} |")
    print(f"| bot RSS before / after the reload | {before_mb:.0f} / {after_mb:.0f} MB |")
    print(f"| bot peak RSS during the reload (VmHWM) | {bot_peak:.0f} MB |")


if __name__ == "__main__":
    raise SystemExit(main())
