"""What several benchmarks share: paths, corpora, timing summaries, a real bot process."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import synth
from testkit.botenv import bot_env
from testkit.devset import PAPERLISTS
from testkit.fake_bot_api import ApiCall, FakeBotApi, Updates
from testkit.paths import SEED_CORPUS
from testkit.process import LineWatch

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
CACHE = RESULTS / "cache"
"""Index caches and paper vectors of every benchmark (INDEX_CACHE_DIR)."""
SEED = SEED_CORPUS
CRANFIELD = PAPERLISTS.parent / "cranfield"


def corpus_file(n_docs: int) -> Path:
    """The seed corpus for 57, else `n_docs` synthetic papers as JSONL, written once."""
    if n_docs == 57:
        return SEED
    path = RESULTS / f"synth-{n_docs}.jsonl"
    if not path.exists():
        print(f"generating {n_docs:,} papers -> {path}", file=sys.stderr, flush=True)
        synth.write_jsonl(synth.generate(n_docs).papers, path)
    return path


def paperlists_files() -> list[Path]:
    """The ICML 2013-2019 lists (3,017 papers), as the loader reads them."""
    return sorted(PAPERLISTS.glob("icml*.json"))


def status_mb(pid: int, field: str = "VmRSS") -> float:
    """A /proc/PID/status memory field (VmRSS, VmHWM) in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: Sequence[float], q: float) -> float:
    """The `q`-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def ms(seconds: Sequence[float]) -> str:
    """`p50 / p90 ms` of seconds."""
    return f"{statistics.median(seconds) * 1e3:.2f} / {pct(seconds, 90) * 1e3:.2f} ms"


def timed(work: Callable[[Any], object], items: Iterable[Any]) -> list[float]:
    """Seconds of `work(item)` for each item."""
    out = []
    for item in items:
        started = time.perf_counter()
        work(item)
        out.append(time.perf_counter() - started)
    return out


def load_line() -> str:
    """The machine: cores and load average (the figures move with the load)."""
    return f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"


@dataclass
class Bot:
    """A real `python -m bot run` polling a fake Bot API; its stderr is watched for a line."""

    api: FakeBotApi
    process: subprocess.Popen
    popen_at: float
    """`time.perf_counter()` at Popen."""
    started_in: float
    """Seconds from Popen to the first getUpdates."""
    log: LineWatch
    updates: Updates
    next_chat: int = 100_000

    def chats(self, n: int) -> list[int]:
        """`n` chat ids never used before (each user's question limit starts fresh)."""
        self.next_chat += n
        return list(range(self.next_chat - n, self.next_chat))

    def answered_at(self, chat_id: int, *, timeout: float = 60.0) -> float:
        """When the first sendMessage to `chat_id` arrived (waits for it)."""
        [call, *_] = self.api.wait_for(
            "sendMessage", predicate=lambda c: c.params["chat_id"] == chat_id, timeout=timeout
        )
        return call.at

    def answer(self, text: str) -> ApiCall:
        """The bot's answer to `text`, asked in a new chat."""
        [chat] = self.chats(1)
        self.api.push_update(self.updates.message(text, chat_id=chat))
        [call, *_] = self.api.wait_for(
            "sendMessage", predicate=lambda c: c.params["chat_id"] == chat, timeout=60
        )
        return call

    def ask(self, text: str) -> float:
        """Seconds from queuing `text` in a new chat to its answer's sendMessage."""
        queued = time.monotonic()  # ApiCall.at uses the same clock
        return self.answer(text).at - queued

    @property
    def rss(self) -> float:
        """The bot's VmRSS, MB."""
        return status_mb(self.process.pid)

    def stop(self) -> int:
        """SIGINT, as Ctrl-C (killed after 30 s); the exit code."""
        self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def start_bot(
    api: FakeBotApi,
    corpus: Path,
    *,
    cache_dir: Path = CACHE,
    watch: str = "Semantic search ready",
    timeout: float = 900,
    **env: str,
) -> Bot:
    """`python -m bot run` on `corpus` polling `api` (SEMANTIC off unless `env` says);
    returns at its first getUpdates. A PYTHONPYCACHEPREFIX in `env` lets it write and read
    bytecode there (else it runs as this environment does)."""
    settings = {"CORPUS": str(corpus), "INDEX_CACHE_DIR": str(cache_dir), "LOG_LEVEL": "INFO"}
    full = bot_env(
        TELEGRAM_BOT_TOKEN=api.token, TELEGRAM_API_BASE_URL=api.base_url, **{**settings, **env}
    )
    if full.get("PYTHONPYCACHEPREFIX"):  # bytecode kept there, so later starts read it
        full.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        full.pop("PYTHONPYCACHEPREFIX", None)
    api.first_get_updates.clear()
    cwd = tempfile.mkdtemp(prefix="bot-cwd-")  # no stray .env is read
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        cwd=cwd,
        env=full,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    log = LineWatch(process, watch)
    if not api.first_get_updates.wait(timeout):
        process.kill()
        raise SystemExit(f"the bot never polled:\n{log.text()[-2000:]}")
    return Bot(api, process, started, time.perf_counter() - started, log, Updates())
