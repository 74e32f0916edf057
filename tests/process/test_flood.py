"""One user's flood of worst-case requests does not hold anyone else back (the real process).

At 20,000 papers one 4,000-character `/author` cost a search thread over a second (its key
was remade for every author of the surname), and `/author` had no rate limit: five of them
held another user's question back 5.5 s. Now the name is cut, matched once, and every
index-work request counts against the same per-user limit as questions.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.i18n import translator
from testkit.botenv import bot_env
from testkit.fake_bot_api import ApiCall, FakeBotApi, Updates
from testkit.papers import write_corpus
from testkit.process import start_bot

pytestmark = pytest.mark.slow  # starts bot processes

EN = translator("en")
PAPERS = 20_000  # the size: the old /author took ~1.1 s per 4,000-char name here
LIMIT = 5  # QUESTIONS_PER_MINUTE for the flooder
FLOOD = 20  # each kind: /author and a name-shaped question
START_TIMEOUT = 120.0
ANSWER_TIMEOUT = 120.0  # a bound on waiting, never the assertion
QUEUED_BEHIND_FLOOD = 1.1  # seconds: an answer this late waited for the flood to be worked off


class Bot:
    def __init__(self, api: FakeBotApi) -> None:
        self.api = api
        self.updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])

    def sent_to(self, chat_id: int) -> list[ApiCall]:
        return [c for c in self.api.calls_of("sendMessage") if c.params["chat_id"] == chat_id]

    def latency(self, text: str, chat_id: int) -> float:
        """Seconds from getUpdates handing `text` out to the bot's answer reaching the API."""
        before = len(self.sent_to(chat_id))
        [update] = self.api.push_updates([self.updates.message(text, chat_id=chat_id)])
        delivered = self.api.wait_delivered([update["update_id"]], ANSWER_TIMEOUT)
        calls = self.api.wait_for(
            "sendMessage",
            count=before + 1,
            predicate=lambda c: c.params["chat_id"] == chat_id,
            timeout=ANSWER_TIMEOUT,
        )
        return calls[before].at - delivered[update["update_id"]]


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    work = tmp_path_factory.mktemp("flood")
    corpus = work / "papers.jsonl"
    write_corpus(corpus, PAPERS)
    with FakeBotApi() as api:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_API_BASE_URL=api.base_url,
            CORPUS=str(corpus),
            INDEX_CACHE_DIR=str(work / "cache"),
            QUESTIONS_PER_MINUTE=str(LIMIT),
        )
        process = start_bot(env, work, work / "stderr.log")
        try:
            if not api.first_get_updates.wait(START_TIMEOUT):
                raise AssertionError((work / "stderr.log").read_text()[-3000:])
            bot = Bot(api)
            bot.latency("/author Wang", 9)  # builds the lazy author index before timing
            yield bot
        finally:
            process.kill()
            process.wait(10)


def test_a_flood_from_one_user_leaves_others_answered_at_once(bot: Bot) -> None:
    name = ("Wang " * 800)[:4000]
    bot.api.push_updates(
        [bot.updates.message("/author " + name, chat_id=7) for _ in range(FLOOD)]
        + [bot.updates.message("Wang Wang Wang", chat_id=7) for _ in range(FLOOD)]
    )
    start = bot.latency("/start", 8)
    question = bot.latency("w12 w13", 8)

    # Queued behind the flood on the one search thread, the question waited 5.5 s (5 floods);
    # the bounds are a fifth of that, loose enough for a loaded CI machine. The figures
    # themselves are measured by benchmarks/responsiveness.py, not here.
    assert start < QUEUED_BEHIND_FLOOD, f"/start took {start * 1000:.0f} ms during the flood"
    assert question < QUEUED_BEHIND_FLOOD, f"another user's question took {question * 1000:.0f} ms"
    # The flooder got LIMIT answers and one "slow down", the rest dropped quietly
    bot.api.wait_for("sendMessage", count=LIMIT + 1, predicate=lambda c: c.params["chat_id"] == 7)
    texts = [c.params["text"] for c in bot.sent_to(7)]
    assert texts.count(EN.gettext("error.rate_limited")) == 1
    assert len(texts) == LIMIT + 1
