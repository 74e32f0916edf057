"""End to end: the real bot process loads a large corpus through the index cache.

Started twice against the same 2,500-paper JSONL corpus (above `CACHE_MIN_PAPERS`), the
bot builds and writes the cache the first time, reads it the second, and answers the
same question correctly both times.
"""

from __future__ import annotations

import json
import signal
import string
from pathlib import Path

import pytest

from bot.search.cache import CACHE_MIN_PAPERS
from testkit.botenv import bot_env
from testkit.fake_bot_api import FakeBotApi, Updates, parse_html
from testkit.process import START_TIMEOUT, start_bot

# Tiers (tests/README.md): starts bot processes.
pytestmark = pytest.mark.slow

PAPERS = 2_500
COMMON_WORDS = [
    "learning",
    "model",
    "training",
    "data",
    "neural",
    "network",
    "method",
    "results",
    "performance",
    "task",
    "language",
    "vision",
    "graph",
    "reinforcement",
    "policy",
    "optimization",
    "gradient",
    "sampling",
]
TARGET = 1_234  # the paper the question is about


def code_word(number: int) -> str:
    """A distinct letters-only word per paper (`zq` + base-26 digits), never a stop word."""
    letters = []
    for _ in range(4):
        number, digit = divmod(number, 26)
        letters.append(string.ascii_lowercase[digit])
    return "zq" + "".join(letters)


def write_corpus(path: Path) -> None:
    """PAPERS short abstracts, each with common words and its own code word."""
    with path.open("w", encoding="utf-8") as out:
        for n in range(PAPERS):
            common = " ".join(COMMON_WORDS[(n + k) % len(COMMON_WORDS)] for k in range(8))
            record = {
                "id": f"p{n}",
                "title": f"Paper {n} on {code_word(n)}",
                "abstract": f"We study {code_word(n)} for {common}. It improves {common}.",
            }
            out.write(json.dumps(record) + "\n")


def run_and_ask(workdir: Path, corpus: Path, cache_dir: Path, name: str) -> tuple[str, str]:
    """Start the bot, ask about TARGET, stop it with SIGINT; its first answer and stderr."""
    stderr_path = workdir / f"{name}.log"
    with FakeBotApi() as api:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_API_BASE_URL=api.base_url,
            CORPUS=str(corpus),
            INDEX_CACHE_DIR=str(cache_dir),
            LOG_LEVEL="INFO",
        )
        process = start_bot(env, workdir, stderr_path)
        try:
            if not api.first_get_updates.wait(START_TIMEOUT):
                raise AssertionError(f"bot never polled: {stderr_path.read_text()[-3000:]}")
            updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])
            api.push_update(updates.message(f"papers about {code_word(TARGET)}", chat_id=4001))
            [answer] = api.wait_for("sendMessage", predicate=lambda c: c.params["chat_id"] == 4001)
            process.send_signal(signal.SIGINT)
            assert process.wait(START_TIMEOUT) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
    return parse_html(answer.params["text"]), stderr_path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def two_starts(tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple[str, str], ...]:
    workdir = tmp_path_factory.mktemp("cached-bot")
    corpus = workdir / "papers.jsonl"
    write_corpus(corpus)
    cache_dir = workdir / "cache"
    return tuple(run_and_ask(workdir, corpus, cache_dir, name) for name in ("cold", "cached"))


def test_corpus_is_large_enough_to_be_cached() -> None:
    assert PAPERS >= CACHE_MIN_PAPERS


def test_first_start_builds_and_writes_the_cache(two_starts) -> None:
    (_, stderr), _ = two_starts
    assert f"indexed {PAPERS} papers in" in stderr
    assert "index cache written" in stderr
    assert "index cache hit" not in stderr


def test_second_start_reads_the_cache(two_starts) -> None:
    _, (_, stderr) = two_starts
    assert f"index cache hit: {PAPERS} papers" in stderr
    assert f"indexed {PAPERS} papers in" not in stderr


@pytest.mark.parametrize("start", [0, 1], ids=["cold", "cached"])
def test_both_starts_answer_with_the_right_paper(two_starts, start: int) -> None:
    answer, _ = two_starts[start]
    first_result = answer.split("\n\n")[1]
    assert first_result.startswith(f"1. Paper {TARGET} on {code_word(TARGET)}")
