"""/reload, SIGHUP and ALLOWED_CHAT_IDS through the real Application and the fake Bot API."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application

from bot.config import Settings
from bot.i18n import translator
from bot.search import Index
from bot.store import open_store
from bot.tg import admin
from bot.tg.app import build_application
from testkit.botenv import bot_env
from testkit.fake_bot_api import FakeBotApi, Updates, parse_html
from testkit.papers import NEW_PAPER
from testkit.process import start_bot

EN = translator("en")

ADMIN = 1001
CHOOSER = 3003
STRANGER = 2002


def make_app(fake_api: FakeBotApi, index: Index, corpus: Path, **settings: Any) -> Application:
    return build_application(
        Settings(
            token=fake_api.token,
            api_base_url=fake_api.base_url,
            corpus=(corpus,),
            admin_user_ids=frozenset({ADMIN}),
            **settings,
        ),
        index,
    )


async def feed(app: Application, *payloads: dict[str, Any]) -> None:
    for number, payload in enumerate(payloads, start=1):
        await app.process_update(Update.de_json({"update_id": number, **payload}, app.bot))


def texts_to(api: FakeBotApi, chat_id: int) -> list[str]:
    return [
        parse_html(c.params["text"]) if c.params.get("parse_mode") == "HTML" else c.params["text"]
        for c in api.calls_of("sendMessage")
        if c.params["chat_id"] == chat_id
    ]


def add_paper(corpus: Path) -> None:
    (corpus / "extra.jsonl").write_text(json.dumps(NEW_PAPER) + "\n", encoding="utf-8")


# ------------------------------------------------------------------ /reload


async def test_admin_reload_swaps_in_the_new_corpus(fake_api, index, corpus_dir) -> None:
    app = make_app(fake_api, index, corpus_dir)
    updates = Updates()
    add_paper(corpus_dir)
    async with app:
        await feed(app, updates.message("/reload", chat_id=ADMIN))
        await feed(app, updates.message("quokkaformer tabular attention", chat_id=ADMIN))
    _reloading, outcome, answer = texts_to(fake_api, ADMIN)
    assert outcome.startswith(f"Reloaded: {len(index) + 1} papers indexed in ")
    assert app.bot_data.index is not index
    assert app.bot_data.index.get("quokka1") is not None
    assert "Quokkaformer" in answer.split("\n\n")[1]


async def test_broken_corpus_keeps_the_old_index_and_tells_the_admin(
    fake_api, index, corpus_dir
) -> None:
    app = make_app(fake_api, index, corpus_dir, corpus_strict=True)
    # A JSON array that cannot be parsed as a whole fails the file (one bad line would not);
    # in a folder it is skipped, so strict mode is what refuses the reload here.
    (corpus_dir / "broken.json").write_text('[{"abstract": "<b>unclosed & bad\n', encoding="utf-8")
    async with app:
        await feed(app, Updates().message("/reload", chat_id=ADMIN))
    [call] = [c for c in fake_api.calls_of("sendMessage") if c.params.get("parse_mode") == "HTML"]
    assert app.bot_data.index is index
    plain = parse_html(call.params["text"])  # the fake server accepted the escaped error
    assert f"still serving the previous {len(index)} papers" in plain
    assert "broken.json:1" in plain and "malformed JSON" in plain


async def test_a_broken_file_in_the_folder_is_skipped_and_counted(
    fake_api, index, corpus_dir
) -> None:
    app = make_app(fake_api, index, corpus_dir)
    add_paper(corpus_dir)
    (corpus_dir / "broken.json").write_text('[{"abstract": "<b>unclosed & bad\n', encoding="utf-8")
    async with app:
        await feed(app, Updates().message("/reload", chat_id=ADMIN))
    [call] = [c for c in fake_api.calls_of("sendMessage") if c.params.get("parse_mode") == "HTML"]
    assert len(app.bot_data.index) == len(index) + 1  # one broken file never sinks the folder
    assert "Reloaded" in parse_html(call.params["text"]) and app.bot_data.skipped == 1


async def test_a_bad_record_is_skipped_and_the_reload_answer_counts_it(
    fake_api, index, corpus_dir
) -> None:
    app = make_app(fake_api, index, corpus_dir)
    add_paper(corpus_dir)
    (corpus_dir / "broken.jsonl").write_text('{"abstract": "<b>unclosed & bad\n', encoding="utf-8")
    async with app:
        await feed(app, Updates().message("/reload", chat_id=ADMIN))
    [call] = [c for c in fake_api.calls_of("sendMessage") if c.params.get("parse_mode") == "HTML"]
    assert app.bot_data.index is not index and len(app.bot_data.index) == len(index) + 1
    plain = parse_html(call.params["text"])
    assert "Reloaded" in plain and "1 record skipped" in plain
    assert app.bot_data.skipped == 1


async def test_stats_after_a_reload_counts_every_file_the_load_read(
    fake_api, index, corpus_dir
) -> None:
    app = make_app(fake_api, index, corpus_dir)
    files = len(list(corpus_dir.iterdir())) + 1
    (corpus_dir / "broken.jsonl").write_text("not a paper\n", encoding="utf-8")  # read, no paper
    async with app:
        await feed(app, Updates().message("/reload", chat_id=ADMIN))
        await feed(app, Updates().message("/stats", chat_id=ADMIN))
    stats = texts_to(fake_api, ADMIN)[-1]
    assert f"Sources: {files} files" in stats  # as `search` counts them: "from N files"


@pytest.mark.parametrize("text", ["/reload", "/reload@icml_papers_bot now"])
async def test_non_admin_reload_is_refused_and_nothing_happens(
    fake_api, index, corpus_dir, text
) -> None:
    app = make_app(fake_api, index, corpus_dir)
    add_paper(corpus_dir)
    async with app:
        await feed(app, Updates().message(text, chat_id=STRANGER))
    assert texts_to(fake_api, STRANGER) == [
        EN.gettext("error.admin_only")
    ]  # not also "unknown command"
    assert app.bot_data.index is index


async def test_reload_of_another_bot_is_ignored(fake_api, index, corpus_dir) -> None:
    app = make_app(fake_api, index, corpus_dir)
    async with app:
        await feed(
            app, Updates().message("/reload@other_bot", chat_id=-100, chat_type="supergroup")
        )
    assert fake_api.calls_of("sendMessage") == []


async def test_questions_are_answered_from_the_old_index_during_a_rebuild(
    fake_api, index, corpus_dir, monkeypatch
) -> None:
    building, finish = threading.Event(), threading.Event()
    real_build = admin._load_and_build

    def slow_build(*args):
        building.set()
        assert finish.wait(30)
        return real_build(*args)

    monkeypatch.setattr(admin, "_load_and_build", slow_build)
    app = make_app(fake_api, index, corpus_dir)
    updates = Updates()
    add_paper(corpus_dir)
    async with app:
        reload = asyncio.create_task(feed(app, updates.message("/reload", chat_id=ADMIN)))
        assert await asyncio.to_thread(building.wait, 30)
        await feed(app, updates.message("quokkaformer", chat_id=3003))  # mid-rebuild
        assert app.bot_data.index is index
        finish.set()
        await reload
        await feed(app, updates.message("quokkaformer", chat_id=3004))
    [during] = texts_to(fake_api, 3003)
    [after] = texts_to(fake_api, 3004)
    assert "Quokkaformer" not in during  # the old index, whole
    assert "Quokkaformer" in after.split("\n\n")[1]


# ------------------------------------------------------------------ ALLOWED_CHAT_IDS


async def test_allowed_chats_are_served_others_refused_once(fake_api, index, corpus_dir) -> None:
    app = make_app(fake_api, index, corpus_dir, allowed_chat_ids=frozenset({5005, -1005}))
    updates = Updates()
    async with app:
        await feed(
            app,
            updates.message("diffusion models", chat_id=5005),
            updates.message("diffusion models", chat_id=6006),
            updates.message("graph networks", chat_id=6006),
            updates.message("/start", chat_id=6006),
            updates.message("/search diffusion", chat_id=-1005, chat_type="group"),
            updates.message("/search diffusion", chat_id=-1006, chat_type="group"),
        )
    assert "Results for" in texts_to(fake_api, 5005)[0]
    assert texts_to(fake_api, 6006) == [
        EN.gettext("error.private_bot")
    ]  # once per chat, not per message
    assert "Results for" in texts_to(fake_api, -1005)[0]
    assert texts_to(fake_api, -1006) == [EN.gettext("error.private_bot")]


async def test_inline_and_buttons_from_outside_users_are_refused(
    fake_api, index, corpus_dir
) -> None:
    app = make_app(fake_api, index, corpus_dir, allowed_chat_ids=frozenset({5005}))
    updates = Updates()
    message = {"message_id": 9, "date": 0, "chat": updates.chat(6006)}
    async with app:
        await feed(
            app,
            updates.inline("diffusion", user_id=6006),
            updates.inline("diffusion", user_id=5005),
            updates.callback("q:5:diffusion", message=message, user_id=6006),
        )
    refused, served = fake_api.calls_of("answerInlineQuery")
    assert refused.params["results"] == [] and refused.params["button"]["text"]
    assert served.params["results"]
    [toast] = fake_api.calls_of("answerCallbackQuery")
    assert toast.params["text"] == EN.gettext("button.private_bot")
    assert fake_api.calls_of("editMessageText") == []


async def test_admins_are_served_even_outside_allowed_chats(fake_api, index, corpus_dir) -> None:
    app = make_app(fake_api, index, corpus_dir, allowed_chat_ids=frozenset({5005}))
    async with app:
        await feed(app, Updates().message("diffusion models", chat_id=ADMIN))
    assert "Results for" in texts_to(fake_api, ADMIN)[0]


# ------------------------------------------------------------------ SIGHUP, end to end


@pytest.mark.slow
def test_sighup_reloads_and_reports_to_the_admin(tmp_path: Path, corpus_dir: Path) -> None:
    with FakeBotApi() as api:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_API_BASE_URL=api.base_url,
            CORPUS=str(corpus_dir),
            ADMIN_USER_IDS=f"{ADMIN}, 42",
        )
        log = tmp_path / "stderr.log"
        process = start_bot(env, tmp_path, log)
        updates = Updates()
        try:
            assert api.first_get_updates.wait(60), log.read_text()
            add_paper(corpus_dir)
            process.send_signal(signal.SIGHUP)
            [report] = api.wait_for(
                "sendMessage", predicate=lambda c: c.params["chat_id"] == ADMIN, timeout=60
            )
            assert "SIGHUP: Reloaded:" in parse_html(report.params["text"])
            api.push_update(updates.message("quokkaformer", chat_id=7007))
            [answer] = api.wait_for("sendMessage", predicate=lambda c: c.params["chat_id"] == 7007)
            assert "Quokkaformer" in parse_html(answer.params["text"]).split("\n\n")[1]
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 0
        finally:
            if process.poll() is None:
                process.kill()


# ------------------------------------------------------------------ a half-copied corpus


def jsonl_records(count: int) -> str:
    """`count` whole JSON Lines records, distinct papers."""
    return "".join(
        json.dumps(
            {
                "id": f"extra{n}",
                "title": f"Extra paper number {n}",
                "abstract": f"{NEW_PAPER['abstract']} Variant {n} of {count}, word x{n}y.",
            }
        )
        + "\n"
        for n in range(count)
    )


def cut_jsonl(corpus: Path) -> Path:
    """A JSON Lines file cut in the middle of its last record, as a copy in progress leaves it."""
    whole = jsonl_records(6)
    path = corpus / "more.jsonl"
    path.write_text(whole[: len(whole) - 40], encoding="utf-8")
    return path


async def test_a_corpus_under_half_the_size_is_refused_unless_forced(
    fake_api, index, tmp_path
) -> None:
    small = tmp_path / "small"
    small.mkdir()
    (small / "papers.jsonl").write_text(jsonl_records(10), encoding="utf-8")
    app = make_app(fake_api, index, small)
    async with app:
        await feed(app, Updates().message("/reload", chat_id=ADMIN))
        assert app.bot_data.index is index
        await feed(app, Updates().message("/reload force", chat_id=ADMIN))
    _reloading, refused, _again, forced = texts_to(fake_api, ADMIN)
    assert refused == EN.gettext("admin.reload_refused_shrunk", new=10, old=len(index))
    assert "/reload force" in refused
    assert forced.startswith("Reloaded: 10 papers") and len(app.bot_data.index) == 10


async def test_a_file_cut_mid_record_is_refused_and_named(fake_api, index, corpus_dir) -> None:
    cut_jsonl(corpus_dir)
    app = make_app(fake_api, index, corpus_dir)
    async with app:
        await feed(app, Updates().message("/reload", chat_id=ADMIN))
    _reloading, refused = texts_to(fake_api, ADMIN)
    assert app.bot_data.index is index
    assert refused == EN.gettext("admin.reload_refused_cut", file="more.jsonl", old=len(index))


@pytest.mark.parametrize("lang", ["zh_Hans", "zh_Hant"])
async def test_the_refusal_is_in_the_admins_language(fake_api, index, corpus_dir, lang) -> None:
    cut_jsonl(corpus_dir)
    app = make_app(fake_api, index, corpus_dir)
    async with app:
        await feed(app, Updates().speaking(lang).message("/reload", chat_id=ADMIN))
    refused = texts_to(fake_api, ADMIN)[-1]
    assert refused == translator(lang).gettext(
        "admin.reload_refused_cut", file="more.jsonl", old=len(index)
    )


@pytest.mark.slow
def test_sighup_refuses_a_half_copied_file_and_logs_why(tmp_path: Path, corpus_dir: Path) -> None:
    with FakeBotApi() as api:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_API_BASE_URL=api.base_url,
            CORPUS=str(corpus_dir),
            ADMIN_USER_IDS=str(ADMIN),
        )
        log = tmp_path / "stderr.log"
        process = start_bot(env, tmp_path, log)
        try:
            assert api.first_get_updates.wait(60), log.read_text()
            cut_jsonl(corpus_dir)
            process.send_signal(signal.SIGHUP)
            [report] = api.wait_for(
                "sendMessage", predicate=lambda c: c.params["chat_id"] == ADMIN, timeout=60
            )
            text = parse_html(report.params["text"])
            assert text.startswith("SIGHUP: Not reloaded: the last record of more.jsonl is cut")
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 0
            assert "Reload refused, still serving 57 papers" in log.read_text()
        finally:
            if process.poll() is None:
                process.kill()


async def test_a_reload_that_renames_the_corpus_renames_the_menus(
    fake_api, index, tmp_path
) -> None:
    from testkit.paths import TEST_DATA

    app = make_app(fake_api, index, TEST_DATA / "paperlists_sample")
    app.bot_data.store = store = await open_store(None, tmp_path)
    await store.set_language(CHOOSER, "zh_Hant")  # chose 繁體 with /lang: their chat has a menu
    await store.set_language(CHOOSER + 1, "klingon")  # a tag no catalogue has: left alone
    updates = Updates()
    async with app:
        await app.bot_data.corpus_facts()  # the seeds' facts, built as at start-up
        await feed(app, updates.message("/reload force", chat_id=ADMIN))
        await app.bot_data.set_commands_task
        await feed(app, updates.message("/start", chat_id=ADMIN))
    await store.close()
    menus = fake_api.calls_of("setMyCommands")
    # The default menu, the Chinese one, and the chooser's chat's.
    chat_scope = {"type": "chat", "chat_id": CHOOSER}
    assert [m.params.get("scope") for m in menus] == [None, None, chat_scope]
    assert [m.params.get("language_code") for m in menus] == [None, "zh", None]
    random = {c["command"]: c["description"] for c in menus[0].params["commands"]}["random"]
    assert random == "A random paper from ICML 2013–2019"
    chat = {c["command"]: c["description"] for c in menus[2].params["commands"]}["random"]
    assert "ICML 2013–2019" in chat and chat != random  # in 繁體, naming the new corpus
    assert texts_to(fake_api, ADMIN)[-1].startswith("Hi! I search 305 papers from ICML 2013–2019")


async def test_a_reload_that_keeps_the_name_leaves_the_menus(fake_api, index, corpus_dir) -> None:
    app = make_app(fake_api, index, corpus_dir)
    add_paper(corpus_dir)  # one paper naming no venue beside the seeds: still ICML 2026
    async with app:
        await app.bot_data.corpus_facts()
        await feed(app, Updates().message("/reload", chat_id=ADMIN))
        await app.bot_data.set_commands_task
    assert fake_api.calls_of("setMyCommands") == []
