"""Handlers driven through the real Application (no polling); requests go to the fake Bot API."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application, CommandHandler

from bot import render
from bot.commands import COMMANDS
from bot.i18n import translator
from bot.render.blocks import EXAMPLE_KEYS
from bot.search import Index
from testkit.fake_bot_api import ApiCall, FakeBotApi, Updates, parse_html
from testkit.paths import TEST_DATA

EN = translator("en")

PARAPHRASE = "neural network that compiles into a decision tree with if-else rules"
PARAPHRASE_PAPER = "3rmh7qdh"  # ArbNN: Arboreal Neural Networks, in the seed corpus
GROUP = -100200300


@pytest.fixture
def updates() -> Updates:
    return Updates()


async def feed(app: Application, *payloads: dict[str, Any]) -> None:
    """Process updates one after another, as PTB would after getUpdates."""
    for number, payload in enumerate(payloads, start=1):
        await app.process_update(Update.de_json({"update_id": number, **payload}, app.bot))


def texts(api: FakeBotApi) -> list[str]:
    return [call.params["text"] for call in api.calls_of("sendMessage")]


def last_sent(api: FakeBotApi) -> ApiCall:
    return api.calls_of("sendMessage")[-1]


async def test_start_says_how_many_papers_and_how_to_ask(app, fake_api, updates, index) -> None:
    async with app:
        await feed(app, updates.message("/start"))
    [text] = texts(fake_api)
    assert f"{len(index)} ICML 2026 papers" in text
    assert EN.gettext(EXAMPLE_KEYS[0]) in text


async def test_help_lists_every_registered_command(app, fake_api, updates) -> None:
    registered = {
        command
        for group in app.handlers.values()
        for h in group
        if isinstance(h, CommandHandler)
        for command in h.commands
    }
    async with app:
        await feed(app, updates.message("/help"))
    [text] = texts(fake_api)
    assert registered == {command.name for command in COMMANDS}
    for command in registered:
        assert f"/{command} —" in text


async def test_private_question_finds_the_paraphrased_paper(app, fake_api, updates) -> None:
    async with app:
        await feed(app, updates.message(PARAPHRASE))
    call = last_sent(fake_api)
    assert call.ok  # the fake server accepted the HTML and the keyboard
    first_result = call.params["text"].split("\n\n")[1]
    title_line = first_result.split("\n")[0]
    assert title_line.startswith("1. <b>") and title_line.endswith(f" · /paper_{PARAPHRASE_PAPER}")
    assert call.params["parse_mode"] == "HTML"
    [nav] = call.params["reply_markup"]["inline_keyboard"]  # buttons only turn pages
    assert [b["text"] for b in nav] == ["Next ▶"]


async def test_search_command_and_usage(app, fake_api, updates) -> None:
    async with app:
        await feed(app, updates.message(f"/search {PARAPHRASE}"), updates.message("/search"))
    answer, usage = texts(fake_api)
    assert f"/paper_{PARAPHRASE_PAPER}" in answer.split("\n\n")[1]
    assert "Usage:" in usage


async def test_paper_commands_show_the_full_abstract(app, fake_api, updates, index) -> None:
    paper = index.get(PARAPHRASE_PAPER)
    async with app:
        await feed(app, updates.message("/paper_3rmh7qdh"), updates.message("/paper 3rmh7qdh"))
    for text in texts(fake_api):
        assert parse_html(text).startswith(paper.title)
        assert paper.abstract[-40:] in parse_html(text)
    assert last_sent(fake_api).params["reply_markup"]["inline_keyboard"] == [
        [
            {"text": "Similar papers", "callback_data": f"s:{PARAPHRASE_PAPER}"},
            {"text": "Share", "switch_inline_query": f"/paper_{PARAPHRASE_PAPER}"},
        ]
    ]


async def test_unknown_paper_id_is_named(app, fake_api, updates) -> None:
    async with app:
        await feed(app, updates.message("/paper <nope>"))
    assert "I don't know a paper with id <code>&lt;nope&gt;</code>" in texts(fake_api)[0]


async def test_similar_random_and_stats(app, fake_api, updates, index) -> None:
    async with app:
        await feed(
            app,
            updates.message(f"/similar {PARAPHRASE_PAPER}"),
            updates.message("/random"),
            updates.message("/stats"),
        )
    similar, random_card, stats = texts(fake_api)
    assert similar.startswith("Papers similar to <b>ArbNN")
    assert "/paper_3rmh7qdh\n" not in similar  # a paper is not similar to itself
    assert any(parse_html(random_card).startswith(p.title) for p in index.papers)
    assert f"Papers: <b>{len(index)}</b>" in stats


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        pytest.param("🤖🔥🔥", "emoji and symbols", id="emoji"),
        pytest.param("the of and", "too common", id="stopwords"),
        pytest.param("нейронные сети для графов", "ask in English", id="russian"),
    ],
)
async def test_unsearchable_questions_get_a_friendly_hint(
    app, fake_api, updates, question, expected
) -> None:
    async with app:
        await feed(app, updates.message(question))
    [text] = texts(fake_api)
    assert expected in text and "Try for example" in text


async def test_sticker_in_private_gets_a_hint(app, fake_api, updates) -> None:
    async with app:
        await feed(app, updates.sticker())
    assert "only read text" in texts(fake_api)[0]


async def test_edited_question_is_answered_anew_as_a_reply(app, fake_api, updates) -> None:
    async with app:
        await feed(app, updates.message("diffusion models", message_id=77))
        await feed(app, updates.message(PARAPHRASE, message_id=77, edited=True))
    first, second = fake_api.calls_of("sendMessage")
    assert "reply_parameters" not in first.params
    assert second.params["reply_parameters"]["message_id"] == 77
    assert f"/paper_{PARAPHRASE_PAPER}" in second.params["text"].split("\n\n")[1]


async def test_private_unknown_command_points_to_help(app, fake_api, updates) -> None:
    async with app:
        await feed(app, updates.message("/frobnicate"))
    assert "/help" in texts(fake_api)[0]


# ------------------------------------------------------------------ groups


async def test_group_chatter_and_other_bots_commands_are_ignored(app, fake_api, updates) -> None:
    async with app:
        await feed(
            app,
            updates.message("anyone read the diffusion papers?", chat_id=GROUP, chat_type="group"),
            updates.message("/search@other_bot diffusion", chat_id=GROUP, chat_type="supergroup"),
            updates.message("/paper_3rmh7qdh@other_bot", chat_id=GROUP, chat_type="supergroup"),
            updates.message("/frobnicate", chat_id=GROUP, chat_type="group"),
            updates.message("@someone_else diffusion", chat_id=GROUP, chat_type="group"),
        )
    assert fake_api.calls_of("sendMessage") == []


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(f"/search {PARAPHRASE}", id="search"),
        pytest.param(f"/search@icml_papers_bot {PARAPHRASE}", id="search-at-bot"),
        pytest.param(f"@icml_papers_bot {PARAPHRASE}", id="mention"),
        pytest.param(f"hey @ICML_Papers_Bot: {PARAPHRASE}", id="mention-mid-text"),
    ],
)
async def test_group_questions_for_the_bot_are_answered(app, fake_api, updates, text) -> None:
    async with app:
        await feed(app, updates.message(text, chat_id=GROUP, chat_type="supergroup"))
    [call] = fake_api.calls_of("sendMessage")
    assert call.params["chat_id"] == GROUP
    assert f"/paper_{PARAPHRASE_PAPER}" in call.params["text"].split("\n\n")[1]
    assert "reply_parameters" in call.params  # quoted, so the group sees what it answers


async def test_group_reply_to_the_bot_is_a_question(app, fake_api, updates) -> None:
    bot_message = {
        "message_id": 5,
        "date": 0,
        "chat": updates.chat(GROUP, "group"),
        "from": fake_api.bot,
        "text": "Results for …",
    }
    async with app:
        await feed(
            app,
            updates.message(PARAPHRASE, chat_id=GROUP, chat_type="group", reply_to=bot_message),
        )
    assert f"/paper_{PARAPHRASE_PAPER}" in texts(fake_api)[0]


# ------------------------------------------------------------------ buttons


async def ask(app, api: FakeBotApi, updates: Updates, question: str) -> dict[str, Any]:
    await feed(app, updates.message(question))
    sent = last_sent(api).result
    return api.message_json(sent["chat"]["id"], sent["message_id"])


def button_data(message: dict[str, Any], label_prefix: str) -> str:
    for row in message["reply_markup"]["inline_keyboard"]:
        for button in row:
            if button["text"].startswith(label_prefix):
                return button["callback_data"]
    raise AssertionError(f"no button {label_prefix!r}")


async def test_next_and_previous_edit_the_message_in_place(app, fake_api, updates) -> None:
    async with app:
        message = await ask(app, fake_api, updates, "neural networks")
        await feed(app, updates.callback(button_data(message, "Next"), message=message))
        page2 = fake_api.message_json(message["chat"]["id"], message["message_id"])
        await feed(app, updates.callback(button_data(page2, "◀ Previous"), message=page2))
    first, back = fake_api.calls_of("editMessageText")
    assert first.params["message_id"] == message["message_id"]
    assert parse_html(first.params["text"]).split("\n\n")[1].startswith("6. ")
    assert parse_html(back.params["text"]).split("\n\n")[1].startswith("1. ")
    assert len(fake_api.calls_of("answerCallbackQuery")) == 2
    assert len(fake_api.calls_of("sendMessage")) == 1


async def test_long_question_pages_through_bot_data(app, fake_api, updates) -> None:
    question = "neural networks " + " ".join(["training"] * 20)
    async with app:
        message = await ask(app, fake_api, updates, question)
        data = button_data(message, "Next")
        assert data.startswith("k:5:") and len(data.encode()) <= 64
        await feed(app, updates.callback(data, message=message))
    [edit] = fake_api.calls_of("editMessageText")
    assert parse_html(edit.params["text"]).split("\n\n")[1].startswith("6. ")


async def test_open_and_similar_buttons_send_new_messages(app, fake_api, updates, index) -> None:
    async with app:
        message = await ask(app, fake_api, updates, PARAPHRASE)
        # Answers sent by older bots carry open buttons ("p:<id>"): they still work.
        await feed(app, updates.callback(f"p:{PARAPHRASE_PAPER}", message=message))
        card = last_sent(fake_api).result
        card = fake_api.message_json(card["chat"]["id"], card["message_id"])
        await feed(app, updates.callback(button_data(card, "Similar"), message=card))
    _, card_call, similar_call = fake_api.calls_of("sendMessage")
    assert parse_html(card_call.params["text"]).startswith(index.get(PARAPHRASE_PAPER).title)
    assert similar_call.params["text"].startswith("Papers similar to")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param("k:5:forgotten-key", id="state-lost-after-restart"),
        pytest.param("p:no-such-paper", id="paper-gone"),
        pytest.param("s:#0123456789abcdef", id="unknown-hash"),
        pytest.param("garbage", id="garbage"),
        pytest.param("q:500:neural networks", id="page-past-the-end"),
    ],
)
async def test_stale_buttons_get_a_short_notice(app, fake_api, updates, data) -> None:
    async with app:
        message = await ask(app, fake_api, updates, "neural networks")
        await feed(app, updates.callback(data, message=message))
    [answer] = fake_api.calls_of("answerCallbackQuery")
    assert answer.params["text"] == EN.gettext("error.expired_button")
    assert fake_api.calls_of("editMessageText") == []


async def test_button_on_an_inaccessible_message_gets_a_notice(app, fake_api, updates) -> None:
    old = {"message_id": 3, "date": 0, "chat": updates.chat(1001)}
    async with app:
        await feed(app, updates.callback("q:5:neural networks", message=old))
    [answer] = fake_api.calls_of("answerCallbackQuery")
    assert answer.params["text"] == EN.gettext("error.expired_button")


async def test_double_tap_on_the_same_page_is_quiet(app, fake_api, updates, caplog) -> None:
    async with app:
        message = await ask(app, fake_api, updates, "neural networks")
        data = button_data(message, "Next")
        await feed(app, updates.callback(data, message=message))
        await feed(app, updates.callback(data, message=message))
    assert len(fake_api.calls_of("editMessageText")) == 1
    assert len(fake_api.calls_of("answerCallbackQuery")) == 2
    assert "Error while handling" not in caplog.text


# ------------------------------------------------------------------ inline mode


async def test_inline_query_returns_articles(app, fake_api, updates) -> None:
    async with app:
        await feed(app, updates.inline(PARAPHRASE))
    [call] = fake_api.calls_of("answerInlineQuery")
    results = call.params["results"]
    assert 1 <= len(results) <= render.INLINE_RESULTS
    first = results[0]
    assert first["type"] == "article" and first["id"] == PARAPHRASE_PAPER
    assert first["title"].startswith("ArbNN")
    assert first["description"]
    content = first["input_message_content"]
    assert content["parse_mode"] == "HTML" and "/paper_3rmh7qdh" in content["message_text"]
    assert int(call.params["cache_time"]) > 0


async def test_inline_answers_are_in_the_users_language(app, fake_api, updates) -> None:
    async with app:
        await feed(app, updates.speaking("zh-hant").inline(PARAPHRASE))
        await feed(app, updates.speaking("zh-hant").inline("zzqxv"))
    found, none = fake_api.calls_of("answerInlineQuery")
    assert found.params["is_personal"] in (True, "true")  # not shared across languages
    assert (
        f"編號 {PARAPHRASE_PAPER} · /paper_{PARAPHRASE_PAPER}"
        in found.params["results"][0]["input_message_content"]["message_text"]
    )
    assert none.params["button"]["text"] == "沒有符合的論文——怎麼提問"


async def test_empty_inline_query_shows_a_sample(app, fake_api, updates, index) -> None:
    async with app:
        await feed(app, updates.inline(""))
    [call] = fake_api.calls_of("answerInlineQuery")
    ids = [r["id"] for r in call.params["results"]]
    assert len(ids) == min(render.INLINE_RESULTS, len(index)) == len(set(ids))


# ------------------------------------------------------------------ concurrency, errors


class RecordingIndex:
    """Wraps the real index; records the thread each search runs on."""

    def __init__(self, index: Index) -> None:
        self._index = index
        self.threads: list[threading.Thread] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)

    def __len__(self) -> int:
        return len(self._index)

    def search(self, *args: Any, **kwargs: Any):
        self.threads.append(threading.current_thread())
        return self._index.search(*args, **kwargs)


async def test_search_runs_off_the_event_loop_thread(app, fake_api, updates, index) -> None:
    recording = RecordingIndex(index)
    app.bot_data.index = recording
    async with app:
        await feed(app, updates.message("diffusion models"), updates.inline("diffusion"))
    assert len(recording.threads) == 2
    assert threading.current_thread() not in recording.threads


class BrokenIndex(RecordingIndex):
    def search(self, *args: Any, **kwargs: Any):
        raise RuntimeError("index exploded")


async def test_errors_are_logged_with_update_id_and_the_user_told(
    app, fake_api, updates, index, caplog
) -> None:
    app.bot_data.index = BrokenIndex(index)
    caplog.set_level(logging.ERROR)
    async with app:
        await app.process_update(
            Update.de_json({"update_id": 4242, **updates.message("x")}, app.bot)
        )
    assert "Error while handling update 4242" in caplog.text
    assert "index exploded" in caplog.text
    assert texts(fake_api) == [EN.gettext("error.something_went_wrong")]


async def test_error_handler_copes_with_no_update(app, fake_api, caplog) -> None:
    caplog.set_level(logging.ERROR)
    async with app:
        await app.process_error(None, RuntimeError("polling broke"))
    assert "Error while handling update None" in caplog.text
    assert fake_api.calls_of("sendMessage") == []


async def test_channel_posts_are_ignored(app, fake_api, updates) -> None:
    post = updates.message("/search diffusion", chat_id=-100999, chat_type="channel")
    async with app:
        await feed(app, {"channel_post": post["message"]})
    assert fake_api.calls_of("sendMessage") == []


# ------------------------------------------------------------------ real paper lists


@pytest.fixture
def lists_app(fake_api: FakeBotApi):
    """The bot serving every tests/data shape (authors, venues, links), 4 records skipped."""

    from bot.config import Settings
    from bot.corpus import load_corpus
    from bot.tg.app import build_application

    report = load_corpus([TEST_DATA])
    settings = Settings(token=fake_api.token, api_base_url=fake_api.base_url)
    return build_application(settings, Index.build(report.papers), skipped=len(report.skipped))


async def test_author_command_lists_a_persons_papers(lists_app, fake_api, updates) -> None:
    async with lists_app:
        await feed(lists_app, updates.message("/author J. Müller"), updates.message("/author"))
    answer, usage = [c.params for c in fake_api.calls_of("sendMessage")]
    text = parse_html(answer["text"])
    assert text.startswith("3 papers by J. Müller")
    assert "Sharp Rates for Private Stochastic Convex Optimization with Heavy Tails" in text
    assert "Jonas Müller, Ana Lucía Ortega" in text
    assert text.count(" · /paper_") == 3  # one way to open each, as in answers (no open buttons)
    assert "/author <name>" in parse_html(usage["text"])


async def test_a_question_that_is_just_a_name_finds_their_papers(
    lists_app, fake_api, updates
) -> None:
    async with lists_app:
        await feed(lists_app, updates.message("Kwame Mensah"))
    text = parse_html(last_sent(fake_api).params["text"])
    assert text.startswith("1 paper by Kwame Mensah")
    assert "Diffusion Policies with Test-Time Constraint Guidance" in text


async def test_paper_card_shows_all_authors_venue_and_clickable_links(
    lists_app, fake_api, updates
) -> None:
    async with lists_app:
        await feed(lists_app, updates.message("/paper aB3dE-fGh1"))  # the id as OpenReview has it
    html = last_sent(fake_api).params["text"]
    text = parse_html(html)
    assert "Laura Fernández, Kwame Mensah, Yi-Ting Lin" in text
    assert "ICML 2025 · Poster" in text  # venue, then its tier
    assert '<a href="https://openreview.net/forum?id=aB3dE-fGh1">' in html
    assert "Code: " in text and '<a href="https://github.com/lfernandez/' in html


async def test_stats_counts_the_skipped_records(lists_app, fake_api, updates) -> None:
    async with lists_app:
        await feed(lists_app, updates.message("/stats"))
    assert "records skipped" in parse_html(last_sent(fake_api).params["text"])
