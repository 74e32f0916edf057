"""The reading list, exports, topics and /forget through the real Application, fake Bot API
and a real database (SQLite always, PostgreSQL on a throw-away server)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import bibtexparser
import pytest
from telegram.ext import Application

from bot import render
from bot.config import Settings
from bot.i18n import translator
from bot.render import paper_ref, reading_list
from bot.render.callbacks import ToggleSave, Unfollow, encode, topic_ref
from bot.search import Index
from bot.store import MAX_TOPICS, Limits, SavedPaper, Store, snapshot
from bot.tg import admin, alerts
from bot.tg.app import build_application
from testkit.chat import Chat
from testkit.fake_bot_api import ApiCall, FakeBotApi, UploadedFile, parse_html
from testkit.papers import NEW_PAPER
from testkit.pg import Backend

ALICE, BOB = 1001, 2002
ADMIN = 3003
QUESTION = "neural network that compiles into a decision tree with if-else rules"
PAPER = "3rmh7qdh"  # the seed corpus's ArbNN (its stable content id), first for QUESTION


@pytest.fixture
async def kept(
    fake_api: FakeBotApi, index: Index, backend: Backend, corpus_dir: Path
) -> AsyncIterator[tuple[Application, Store]]:
    """The bot Application with an open store on `backend`, started (`async with`)."""
    settings = Settings(
        token=fake_api.token,
        api_base_url=fake_api.base_url,
        corpus=(corpus_dir,),
        admin_user_ids=frozenset({ADMIN}),
    )
    app = build_application(settings, index)
    store = await backend.open(timeout=2)
    app.bot_data.store = store
    async with app:
        yield app, store
    await store.close()


def buttons(call: ApiCall) -> list[tuple[str, str]]:
    markup = call.params.get("reply_markup") or call.result.get("reply_markup") or {}
    rows = markup["inline_keyboard"]
    data = ("callback_data", "switch_inline_query")  # a Share button switches inline
    return [(b["text"], next(b[k] for k in data if k in b)) for row in rows for b in row]


@pytest.fixture
def chat(kept: tuple[Application, Store], fake_api: FakeBotApi) -> Chat:
    return Chat(kept[0], fake_api)


# ------------------------------------------------------------------ save and list


async def test_every_result_has_a_save_button(chat: Chat) -> None:
    await chat.send(QUESTION)
    results = chat.last()
    text = parse_html(results.params["text"])
    shown = text.count("/paper_")
    stars = [(label, data) for label, data in buttons(results) if data.startswith("v:")]
    assert stars[0] == ("☆ 1", f"v:{PAPER}")
    assert [label for label, _ in stars] == [f"☆ {n}" for n in range(1, shown + 1)]


async def test_save_is_acknowledged_stored_and_flips_the_button(chat: Chat, kept) -> None:
    _app, store = kept
    await chat.send(QUESTION)
    results = chat.last()

    await chat.tap(f"v:{PAPER}", results)

    assert chat.toast() == "Saved to your reading list"
    [row] = await store.export_rows(ALICE)
    assert (row.paper_id, row.year, row.venue) == (PAPER, 2026, "ICML 2026")
    assert row.title.startswith("ArbNN")
    edited = chat.last("editMessageReplyMarkup")
    assert ("★ 1", f"u:{PAPER}") in buttons(edited)
    assert ("☆ 2", buttons(results)[1][1]) in buttons(edited)  # the others unchanged


async def test_saving_twice_keeps_one_and_says_so(chat: Chat, kept) -> None:
    await chat.send(QUESTION)
    results = chat.last()
    await chat.tap(f"v:{PAPER}", results)
    await chat.tap(f"v:{PAPER}", results)
    assert chat.toast() == "Already in your reading list"
    assert await kept[1].count_saved(ALICE) == 1


async def test_tapping_saved_removes_and_removing_again_changes_nothing(chat: Chat, kept) -> None:
    await chat.send(f"/paper {PAPER}")
    card = chat.last()
    assert ("☆ Save", f"v:{PAPER}") in buttons(card)
    await chat.tap(f"v:{PAPER}", card)

    await chat.tap(f"u:{PAPER}", card)
    assert chat.toast() == "Removed"
    await chat.tap(f"u:{PAPER}", card)

    assert chat.toast() == "That paper is not in your reading list — nothing changed."
    assert await kept[1].count_saved(ALICE) == 0


async def test_a_forged_remove_cannot_touch_another_users_list(chat: Chat, kept) -> None:
    await chat.send(QUESTION)
    results = chat.last()
    await chat.tap(f"v:{PAPER}", results, user=ALICE)

    await chat.tap(f"u:{PAPER}", results, user=BOB)  # Bob replays Alice's button data

    assert chat.toast() == "That paper is not in your reading list — nothing changed."
    assert await kept[1].is_saved(ALICE, PAPER)
    assert await kept[1].count_saved(BOB) == 0


async def test_saved_lists_newest_first_and_marks_papers_gone_from_the_corpus(
    chat: Chat, kept
) -> None:
    _app, store = kept
    gone = SavedPaper("vanished-42", "A paper the corpus dropped", ("Grace Hopper",), 2026)
    await store.save(ALICE, gone)
    await chat.send(QUESTION)
    await chat.tap(f"v:{PAPER}", chat.last())

    await chat.send("/saved")

    listing = chat.last_text()
    assert listing.startswith("Your reading list — 2 papers")
    assert listing.index("ArbNN") < listing.index("A paper the corpus dropped")
    assert "id vanished-42 · no longer in the corpus" in listing
    assert buttons(chat.last()) == [
        ("✕ 1", f"r:0:{PAPER}"),
        ("✕ 2", f"r:0:{paper_ref('vanished-42')}"),
        ("✨ Recommend similar", "c:0"),  # /recommend from the list
    ]


async def test_saved_pages_and_removes_in_place(chat: Chat, kept, index: Index) -> None:
    _app, store = kept
    per_page = kept[0].bot_data.per_page
    for paper in index.papers[: per_page + 2]:
        await store.save(ALICE, snapshot(paper))
    await chat.send("/saved")
    first = chat.last()
    assert "b:" + str(per_page) in [d for _, d in buttons(first)]

    await chat.tap(f"b:{per_page}", first)
    second = chat.last("editMessageText")
    assert parse_html(second.params["text"]).startswith(f"Your reading list — {per_page + 2}")
    assert f"{per_page + 1}. " in parse_html(second.params["text"])

    newest = (await store.list_saved(ALICE, limit=1))[0].paper_id
    await chat.tap(f"r:0:{paper_ref(newest)}", first)
    assert chat.toast() == "Removed"
    assert not await store.is_saved(ALICE, newest)
    assert await store.count_saved(ALICE) == per_page + 1


async def test_the_empty_list_says_how_to_fill_it(chat: Chat) -> None:
    await chat.send("/saved")
    assert chat.last_text().startswith("Your reading list is empty")


# ------------------------------------------------------------------ export


def bib_entries(document: UploadedFile) -> dict[str, dict[str, str]]:
    parsed = bibtexparser.parse_string(document.data.decode("utf-8"))
    assert not parsed.failed_blocks
    return {entry.key: {f.key: f.value for f in entry.fields} for entry in parsed.entries}


async def test_export_bib_sends_a_document_that_parses_back(chat: Chat, kept, index) -> None:
    for paper in index.papers[:3]:
        await kept[1].save(ALICE, snapshot(paper))

    await chat.send("/export bib")

    call = chat.last("sendDocument")
    document = call.params["document"]
    assert isinstance(document, UploadedFile) and document.filename == "reading-list.bib"
    assert call.params["caption"] == "Your reading list: 3 papers"
    entries = bib_entries(document)
    assert len(entries) == 3
    titles = {fields["title"].strip("{}") for fields in entries.values()}
    assert {snapshot(p).title for p in index.papers[:3]} == titles


async def test_export_buttons_send_csv_and_markdown(chat: Chat, kept, index) -> None:
    await kept[1].save(ALICE, snapshot(index.papers[0]))
    await chat.send("/export")
    prompt = chat.last()
    assert [d for _, d in buttons(prompt)] == ["x:bib", "x:md", "x:csv", "x:ics"]

    await chat.tap("x:csv", prompt)
    csv_file = chat.last("sendDocument").params["document"]
    await chat.tap("x:md", prompt)
    md_file = chat.last("sendDocument").params["document"]

    assert csv_file.filename == "reading-list.csv"
    assert csv_file.data.decode().splitlines()[0].startswith("paper_id,title,authors")
    assert md_file.filename == "reading-list.md"


async def test_export_of_an_empty_list_or_unknown_format_is_explained(chat: Chat) -> None:
    await chat.send("/export bib")
    assert chat.last_text() == "Nothing to export yet — your reading list is empty."
    await chat.send("/export pdf")
    assert chat.last_text().startswith("Choose a format: /export bib")
    assert not chat.api.calls_of("sendDocument")


# ------------------------------------------------------------------ follow


async def test_follow_following_and_unfollow(chat: Chat, kept) -> None:
    await chat.send("/follow   diffusion   models ")
    assert chat.last_text() == "I'll tell you about new papers on diffusion models."
    await chat.send("/follow Diffusion Models")
    assert chat.last_text() == "You already follow Diffusion Models."

    await chat.send("/following")
    listing = chat.last()
    assert "1. diffusion models" in parse_html(listing.params["text"])
    [(_label, data)] = buttons(listing)
    assert data == encode(Unfollow(topic_ref("diffusion models")))

    await chat.tap(data, listing)
    assert chat.toast() == "You no longer follow diffusion models."
    assert await kept[1].topics(ALICE) == ()
    await chat.tap(data, listing)
    assert chat.toast() == "You don't follow that topic — nothing changed."


async def test_unfollowing_the_longest_topic_fits_the_toast(chat: Chat, kept) -> None:
    topic = ("graph neural networks " * 20)[: kept[1].limits.max_topic_chars].strip()
    await chat.send("/follow " + topic)
    await chat.send("/follow diffusion")
    await chat.send("/following")
    listing = chat.last()
    data = buttons(listing)[0][1]

    await chat.tap(data, listing)  # before: 400 MESSAGE_TOO_LONG, the list not redrawn

    toast = chat.toast()
    assert toast.startswith("You no longer follow graph neural networks") and toast.endswith("….")
    assert len(toast) <= render.MAX_CALLBACK_ANSWER_CHARS
    [edit] = chat.api.calls_of("editMessageText")
    assert "diffusion" in parse_html(edit.params["text"])


async def test_bad_topics_get_clear_answers_and_change_nothing(chat: Chat, kept) -> None:
    await chat.send("/follow " + "x" * 10_000)
    assert chat.last_text().startswith("That topic is too long")
    await chat.send("/follow")
    assert chat.last_text().startswith("Usage: /follow <topic>")
    for number in range(MAX_TOPICS):
        await kept[1].follow(ALICE, f"topic {number}")

    await chat.send("/follow one too many")

    assert chat.last_text() == f"You already follow {MAX_TOPICS} topics — unfollow one first."
    assert len(await kept[1].topics(ALICE)) == MAX_TOPICS


async def test_a_forged_unfollow_changes_nothing(chat: Chat, kept) -> None:
    await kept[1].follow(ALICE, "graph neural networks")
    await chat.send("/following", user=ALICE)
    listing = chat.last()
    [(_label, data)] = buttons(listing)

    await chat.tap(data, listing, user=BOB)

    assert chat.toast() == "You don't follow that topic — nothing changed."
    assert await kept[1].topics(ALICE) == ("graph neural networks",)


# ------------------------------------------------------------------ alerts


def add_paper(corpus: Path) -> None:
    (corpus / "extra.jsonl").write_text(json.dumps(NEW_PAPER) + "\n", encoding="utf-8")


async def test_a_reload_adding_a_matching_paper_sends_one_alert(chat: Chat, kept, corpus_dir):
    app, _store = kept
    await chat.send("/follow quokkaformer tabular attention", user=ALICE)
    await chat.send("/follow quokkaformer", user=ALICE)  # two topics, one paper: listed once
    await chat.send("/follow diffusion models", user=BOB)  # nothing new on this
    add_paper(corpus_dir)
    before = len(chat.api.calls_of("sendMessage"))

    await chat.send("/reload", user=ADMIN)
    assert await app.bot_data.alerts_task == 1

    sent = chat.api.calls_of("sendMessage")[before:]
    [alert] = [c for c in sent if c.params["chat_id"] == ALICE]
    text = parse_html(alert.params["text"])
    assert text.startswith("New papers for quokkaformer tabular attention: 1 paper")
    assert "Quokkaformer: marsupial attention" in text and "/paper_quokka1" in text
    assert text.count("Quokkaformer:") == 1
    assert not [c for c in sent if c.params["chat_id"] == BOB]


async def test_a_user_who_blocked_the_bot_is_unsubscribed_quietly(
    chat: Chat, kept, corpus_dir, caplog: pytest.LogCaptureFixture
) -> None:
    app, store = kept
    await store.follow(ALICE, "quokkaformer")
    await store.follow(BOB, "quokkaformer tabular")
    chat.api.blocked.add(BOB)
    add_paper(corpus_dir)

    with caplog.at_level(logging.INFO, logger="bot.tg.alerts"):
        await chat.send("/reload", user=ADMIN)
        assert await app.bot_data.alerts_task == 1

    assert await store.topics(BOB) == ()
    assert await store.topics(ALICE) == ("quokkaformer",)
    assert "blocked the bot" in caplog.text
    assert "Traceback" not in caplog.text


def alerts_to(api: FakeBotApi, user: int) -> list[ApiCall]:
    return [c for c in api.calls_of("sendMessage") if c.params["chat_id"] == user]


@pytest.mark.slow
async def test_the_same_alert_run_twice_sends_one_alert(chat: Chat, kept, corpus_dir) -> None:
    app, store = kept
    await store.follow(ALICE, "quokkaformer")
    add_paper(corpus_dir)
    old = app.bot_data.index

    await chat.send("/reload", user=ADMIN)
    assert await app.bot_data.alerts_task == 1
    assert await alerts.send_alerts(app, old, app.bot_data.index) == 0  # e.g. a second SIGHUP

    [alert] = alerts_to(chat.api, ALICE)
    assert "/paper_quokka1" in parse_html(alert.params["text"])


@pytest.mark.slow
async def test_two_replicas_reloading_onto_one_database_send_one_alert(
    chat: Chat, kept, corpus_dir, backend: Backend
) -> None:
    app, store = kept
    await store.follow(ALICE, "quokkaformer")
    await store.follow(BOB, "quokkaformer tabular attention")
    # A second replica: its own Application and store (pool or thread) on the same database.
    replica = build_application(app.bot_data.settings, app.bot_data.index)
    replica.bot_data.store = await backend.open(timeout=2)
    add_paper(corpus_dir)
    try:
        async with replica:
            await asyncio.gather(admin.reload_index(app), admin.reload_index(replica))
            told = [await app.bot_data.alerts_task, await replica.bot_data.alerts_task]
    finally:
        await replica.bot_data.store.close()

    assert sum(told) == 2  # each follower told once, by one replica or the other
    assert len(alerts_to(chat.api, ALICE)) == 1
    assert len(alerts_to(chat.api, BOB)) == 1


async def test_an_alert_that_failed_to_send_is_retried_by_a_later_run(
    chat: Chat, kept, corpus_dir
) -> None:
    app, store = kept
    await store.follow(ALICE, "quokkaformer")
    add_paper(corpus_dir)
    old = app.bot_data.index
    chat.api.fail_next("sendMessage", code=502, description="Bad Gateway")  # the alert's

    await admin.reload_index(app)
    assert await app.bot_data.alerts_task == 0
    assert alerts_to(chat.api, ALICE) == []
    assert await store.topics(ALICE) == ("quokkaformer",)  # a transient error unfollows nothing

    assert await alerts.send_alerts(app, old, app.bot_data.index) == 1
    [alert] = alerts_to(chat.api, ALICE)
    assert "/paper_quokka1" in parse_html(alert.params["text"])


async def test_a_paper_back_after_a_half_copied_reload_alerts_nobody(
    chat: Chat, kept, corpus_dir
) -> None:
    app, store = kept
    add_paper(corpus_dir)
    await admin.reload_index(app)  # served, and nobody follows it yet
    assert await app.bot_data.alerts_task == 0
    (corpus_dir / "extra.jsonl").unlink()  # a copy in progress: the paper is missing
    assert (await admin.reload_index(app, force=True)).ok
    await app.bot_data.alerts_task
    await store.follow(BOB, "quokkaformer")
    add_paper(corpus_dir)  # the copy finished: the paper is back

    await admin.reload_index(app)

    assert await app.bot_data.alerts_task == 0
    assert alerts_to(chat.api, BOB) == []


async def test_a_long_alert_is_split_within_telegrams_limit(index: Index) -> None:
    many = [(f"topic {n}", index.papers[:20]) for n in range(5)]
    from bot.render import to_html
    from bot.render.limits import MAX_MESSAGE_CHARS

    parts = to_html(reading_list.alert_doc(many))
    assert len(parts) > 1
    assert all(len(parse_html(part.text)) <= MAX_MESSAGE_CHARS for part in parts)


def test_only_new_papers_that_match_confidently_are_alerts(index: Index) -> None:
    old = Index.build(index.papers[1:])
    new_ids = alerts.new_paper_ids(old, index)
    assert new_ids == {index.papers[0].id}
    assert [p.id for p in alerts.topic_matches(index, QUESTION, new_ids)] == [PAPER]
    assert alerts.topic_matches(index, "diffusion models", new_ids) == ()


def test_new_papers_come_from_the_id_sets_of_cached_and_hybrid_retrievers(
    corpus_dir: Path, tmp_path: Path
) -> None:
    from bot.search import HybridRetriever, load_cached, load_corpus_and_index
    from bot.search.storage.columns import PaperColumns

    load_corpus_and_index([corpus_dir], tmp_path / "cache", min_papers=1)  # writes the cache
    loaded = load_cached([corpus_dir], tmp_path / "cache")
    assert loaded is not None
    cached = loaded[1]
    assert isinstance(cached.papers, PaperColumns)
    everyone = {paper.id for paper in cached.papers}
    assert set(cached.paper_ids()) == everyone

    old = HybridRetriever(Index.build(cached.papers[1:]), embedder=None)  # type: ignore[arg-type]
    assert alerts.new_paper_ids(old, cached) == {cached.papers[0].id}
    assert alerts.new_paper_ids(None, cached) == everyone
    assert alerts.new_paper_ids(cached, old) == frozenset()


# ------------------------------------------------------------------ forget


async def test_forget_asks_first_then_deletes_everything(chat: Chat, kept, index) -> None:
    _app, store = kept
    await store.save(ALICE, snapshot(index.papers[0]))
    await store.follow(ALICE, "transformers")
    await store.save(BOB, snapshot(index.papers[0]))
    await chat.send("/forget")
    prompt = chat.last()
    assert [d for _, d in buttons(prompt)] == ["g:yes", "g:no"]

    await chat.tap("g:no", prompt)
    assert await store.count_saved(ALICE) == 1
    await chat.tap("g:yes", prompt)

    assert parse_html(chat.last("editMessageText").params["text"]).startswith("Done — I've deleted")
    assert await store.count_saved(ALICE) == 0 and await store.topics(ALICE) == ()
    assert await store.count_saved(BOB) == 1


async def test_save_data_never_carries_a_user_id() -> None:
    assert encode(ToggleSave(paper_ref("1"), save=True)) == "v:1"


# ------------------------------------------------------------------ outages


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_database_down_while_running_searches_work_and_saving_recovers(
    chat: Chat, kept, backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    _app, store = kept
    assert backend.cluster is not None
    await chat.send(QUESTION)
    results = chat.last()
    backend.cluster.stop()
    try:
        with caplog.at_level(logging.INFO, logger="bot.tg.replies"):
            await chat.send(QUESTION)  # search still answers; buttons say "☆ Save"
            answered = chat.last()
            await chat.tap(f"v:{PAPER}", results)
            first_toast = chat.toast()
            await chat.send("/export bib")
            export_answer = chat.last_text()
    finally:
        backend.cluster.start()
    for _attempt in range(5):  # the pool may first hand out a connection cut by the restart
        await chat.tap(f"v:{PAPER}", results)
        if chat.toast() != first_toast:
            break

    assert answered is not results and "ArbNN" in parse_html(answered.params["text"])
    assert ("☆ 1", f"v:{PAPER}") in buttons(answered)
    assert first_toast == "I couldn't save that right now, please try again."
    assert export_answer == "I couldn't save that right now, please try again."
    assert caplog.text.count("The database is not answering") == 1  # once, not per message
    assert "Traceback" not in caplog.text
    assert chat.toast() == "Saved to your reading list"
    assert await store.is_saved(ALICE, PAPER)


# ------------------------------------------------------------------ console and CLI


async def test_cli_export_writes_a_users_list(data_dir: Path, index: Index, capsys) -> None:
    from bot.cli import main
    from bot.store import open_store

    store = await open_store(None, data_dir)
    await store.save(ALICE, snapshot(index.papers[0]))
    await store.close()

    code = await asyncio.to_thread(main, ["export", "--user", str(ALICE), "--format", "bib"])

    assert code == 0
    entries = bibtexparser.parse_string(capsys.readouterr().out).entries
    assert [e.fields_dict["title"].value for e in entries] == [index.papers[0].title]


def test_console_follow_and_export_write_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path, index: Index
) -> None:
    from bot.cli.console import run_console
    from bot.cli.session import CONSOLE_USER_ID
    from bot.store import open_store

    async def save_one() -> None:
        store = await open_store(None, data_dir)
        await store.save(CONSOLE_USER_ID, snapshot(index.papers[0]))
        await store.close()

    asyncio.run(save_one())
    monkeypatch.chdir(tmp_path)
    commands = "/follow graph neural networks\n/following\n/saved\n/export md\n/forget yes\n"
    stdin = io.StringIO(commands + "/export md\n")
    stdout = io.StringIO()

    assert run_console(stdin=stdin, stdout=stdout) == 0

    output = stdout.getvalue()
    assert "I'll tell you about new papers on graph neural networks." in output
    assert "1. graph neural networks" in output
    assert "Your reading list — 1 paper" in output
    written = tmp_path / "reading-list.md"
    assert str(written) in output
    assert index.papers[0].title.split(":")[0] in written.read_text(encoding="utf-8")
    assert output.rstrip().endswith("Nothing to export yet — your reading list is empty.")
    assert "Done — I've deleted everything" in output


async def test_a_full_reading_list_says_so_and_saves_nothing(chat: Chat, kept, backend) -> None:
    app, _store = kept
    small = await backend.open(limits=Limits(max_saved=1))
    app.bot_data.store = small
    try:
        await chat.send(QUESTION)
        results = chat.last()
        second = [d for _, d in buttons(results) if d.startswith("v:")][1]
        await chat.tap(f"v:{PAPER}", results)

        await chat.tap(second, results)

        assert chat.toast() == "Your reading list is full (1 paper) — remove one to save another."
        assert await small.count_saved(ALICE) == 1
    finally:
        app.bot_data.store = _store
        await small.close()


async def test_sighup_reload_sends_the_alerts_too(chat: Chat, kept, corpus_dir) -> None:
    app, store = kept
    await store.follow(ALICE, "quokkaformer")
    add_paper(corpus_dir)

    await admin.reload_on_signal(app)  # what the SIGHUP handler runs
    assert await app.bot_data.alerts_task == 1

    [alert] = [c for c in chat.api.calls_of("sendMessage") if c.params["chat_id"] == ALICE]
    assert "/paper_quokka1" in parse_html(alert.params["text"])


def test_console_follow_answers_like_the_bot(tmp_path: Path) -> None:
    from bot.cli.console import run_console

    stdin = io.StringIO("/follow " + "y" * 10_000 + "\n/following\n")
    stdout = io.StringIO()

    assert run_console(stdin=stdin, stdout=stdout) == 0

    output = stdout.getvalue()
    assert "That topic is too long — please keep it under 200 characters." in output
    assert "You don't follow any topic yet." in output


async def test_groups_never_see_a_members_list(chat: Chat, kept) -> None:
    group = -100200300
    await kept[1].save(ALICE, snapshot(kept[0].bot_data.served_index().get(PAPER)))

    await chat.feed(
        chat.updates.message(f"/search {QUESTION}", chat_id=group, chat_type="group", user_id=ALICE)
    )
    results = chat.last()
    await chat.feed(chat.updates.message("/saved", chat_id=group, chat_type="group", user_id=ALICE))

    assert ("☆ 1", f"v:{PAPER}") in buttons(results)  # not "★" for all to see
    assert chat.last_text().startswith("Your reading list and topics are private")


async def test_an_alert_speaks_the_followers_language(chat: Chat, kept, corpus_dir) -> None:
    app, store = kept
    await store.follow(ALICE, "quokkaformer")
    await store.set_language(ALICE, "zh_Hant")
    add_paper(corpus_dir)

    await chat.send("/reload", user=ADMIN)
    assert await app.bot_data.alerts_task == 1

    [alert] = [c for c in chat.api.calls_of("sendMessage") if c.params["chat_id"] == ALICE]
    expected = translator("zh_Hant").ngettext("follow.alert", 1, topic="quokkaformer")
    assert parse_html(alert.params["text"]).startswith(expected)


# ------------------------------------------------------------------ forged list buttons


@pytest.mark.parametrize("data", ["b:0", "x:bib", "g:yes", "r:0:abc"])
async def test_a_forged_list_button_on_a_group_message_does_nothing(
    chat: Chat, kept, data: str
) -> None:
    await chat.send("/follow diffusion models")  # something /forget would delete
    group_answer = {
        "message_id": 77,
        "date": 1_700_000_000,
        "chat": {"id": -1001, "type": "supergroup", "title": "Reading group"},
        "from": {"id": chat.api.bot["id"], "is_bot": True, "first_name": "ICML Papers"},
        "text": "1. A group answer",
    }
    sent_before = len(chat.api.calls)

    await chat.feed(chat.updates.callback(data, message=group_answer, user_id=ALICE))

    methods = [c.method for c in chat.api.calls[sent_before:]]
    assert methods == ["answerCallbackQuery"]  # nothing posted to or edited in the group
    assert chat.toast() == translator("en").gettext("error.expired_button")
    assert await kept[1].topics(ALICE) == ("diffusion models",)  # /forget did not run
