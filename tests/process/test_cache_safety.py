"""An index cache changed under the running bot can neither crash it nor change an answer.

An earlier bot mapped the cache file itself: truncating it in place (what `cp` over
it does) killed the bot with SIGBUS at the next question, without a log line. Now it maps a
private copy (`bot/search/storage/cache_file.py`). The real process, the fake Bot API.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.loading import load_index
from bot.search.cache import CACHE_MIN_PAPERS
from testkit.botenv import bot_env
from testkit.fake_bot_api import FakeBotApi, Updates
from testkit.papers import write_corpus
from testkit.process import LineWatch, start_bot

pytestmark = pytest.mark.slow  # starts bot processes

START_TIMEOUT = 120.0
QUESTION = "w12 w40 w77"


class Bot:
    def __init__(self, api: FakeBotApi, process: subprocess.Popen, log: LineWatch) -> None:
        self.api, self.process, self.log = api, process, log
        self.updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])

    def answer(self, text: str, chat_id: int) -> str:
        before = len(self._sent(chat_id))
        self.api.push_update(self.updates.message(text, chat_id=chat_id))
        calls = self.api.wait_for(
            "sendMessage", count=before + 1, predicate=lambda c: c.params["chat_id"] == chat_id
        )
        return calls[before].params["text"]

    def _sent(self, chat_id: int) -> list:
        return [c for c in self.api.calls_of("sendMessage") if c.params["chat_id"] == chat_id]


@pytest.fixture
def cached_corpus(tmp_path: Path) -> tuple[Path, Path]:
    """A corpus large enough to be cached, and its cache file, written beforehand."""
    corpus = tmp_path / "papers.jsonl"
    write_corpus(corpus, CACHE_MIN_PAPERS + 500)
    load_index([corpus], tmp_path / "cache")
    [cache] = (tmp_path / "cache").glob("index-*.idx")
    return corpus, cache


def _start(corpus: Path, cache: Path) -> Iterator[Bot]:
    with FakeBotApi() as api:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_API_BASE_URL=api.base_url,
            CORPUS=str(corpus),
            INDEX_CACHE_DIR=str(cache.parent),
            LOG_LEVEL="INFO",
        )
        process = start_bot(env, corpus.parent, stderr=subprocess.PIPE)
        log = LineWatch(process, "is up with")
        try:
            if not api.first_get_updates.wait(START_TIMEOUT):
                raise AssertionError(log.text()[-3000:])
            yield Bot(api, process, log)
        finally:
            process.kill()
            process.wait(10)


@pytest.fixture
def bot(cached_corpus: tuple[Path, Path]) -> Iterator[Bot]:
    yield from _start(*cached_corpus)


def test_the_bot_starts_from_the_cache(bot: Bot) -> None:
    assert "index cache hit" in bot.log.text()


def test_a_cache_truncated_then_rewritten_under_the_bot_changes_nothing(
    bot: Bot, cached_corpus: tuple[Path, Path]
) -> None:
    _corpus, cache = cached_corpus
    size = cache.stat().st_size
    first = bot.answer(QUESTION, 5)

    os.truncate(cache, 4096)  # what `cp` does first: O_TRUNC on the same inode
    after_cut = bot.answer(QUESTION, 5)
    with open(cache, "r+b") as rewrite:  # and then: other bytes where the old ones were
        rewrite.write(os.urandom(size))
    after_rewrite = bot.answer(QUESTION, 5)

    assert bot.process.poll() is None, bot.log.text()[-3000:]
    assert after_cut == first and after_rewrite == first


def test_a_corrupt_cache_at_start_is_logged_and_rebuilt(cached_corpus: tuple[Path, Path]) -> None:
    corpus, cache = cached_corpus
    with open(cache, "r+b") as flip:
        flip.seek(cache.stat().st_size // 2)
        flip.write(b"\xff" * 64)
    for bot in _start(corpus, cache):
        assert "unusable (checksum mismatch); rebuilding" in bot.log.text()
        assert "/paper_p" in bot.answer(QUESTION, 6)
