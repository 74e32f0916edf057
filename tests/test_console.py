"""Console mode: the same answers as plain text, from stdin to stdout, no token."""

from __future__ import annotations

import io

import pytest

from bot.answers import results
from bot.cli.console import LazyStore, console_language, run_console
from bot.cli.session import CONSOLE_USER_ID, ConsoleSession
from bot.i18n import translator
from bot.render import text_doc, to_console


def test_console_conversation(monkeypatch) -> None:
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    stdin = io.StringIO("graph neural networks\n/paper_3rmh7qdh\n/help\n/quit\n/stats\n")
    stdout = io.StringIO()
    assert run_console(None, stdin=stdin, stdout=stdout) == 0
    out = stdout.getvalue()
    assert "> graph neural networks" in out and "Results for graph neural networks" in out
    assert "ArbNN: Arboreal Neural Networks" in out
    assert "/similar — " in out
    assert "Papers I search" not in out  # /quit stopped reading
    assert "<b>" not in out and "\033[" not in out  # not a TTY: plain text


def test_console_next_and_prev_turn_pages(index) -> None:
    session = ConsoleSession(index, per_page=5)
    first = to_console(session.answer("neural networks"))
    second = to_console(session.answer("/next"))
    back = to_console(session.answer("/prev"))
    assert "\n1. " in first and "\n6. " in second and back == first


def test_console_hints_and_unknown_commands(index) -> None:
    session = ConsoleSession(index)
    assert "Try for example" in to_console(session.answer("🙂"))
    assert "/help" in to_console(session.answer("/frobnicate"))
    assert session.answer("   ") is None


def test_next_before_any_search_says_there_is_nothing_to_page(index) -> None:
    session = ConsoleSession(index)
    for command in ("/next", "/prev"):
        text = to_console(session.answer(command))
        assert text == "There is nothing to page through yet — ask a question first."


def test_console_help_lists_paging_and_quit(index) -> None:
    text = to_console(ConsoleSession(index).answer("/help"))
    for line in ("/next — Next page of results", "/prev — ", "/quit — "):
        assert line in text
    assert "/lang — " not in text and "Inline" not in text  # Telegram-only


def test_banner_names_no_particular_conference(index, tmp_path, monkeypatch) -> None:
    corpus = tmp_path / "mine.jsonl"
    corpus.write_text('{"title": "T", "abstract": "Graph mixup for molecules."}\n')
    stdout = io.StringIO()
    assert run_console([corpus], stdin=io.StringIO(""), stdout=stdout, lang="en") == 0
    assert stdout.getvalue().splitlines()[0] == (
        "1 paper loaded. Ask a question, /help for commands, /quit or Ctrl-D to leave."
    )


@pytest.mark.parametrize("lang", ["zh_Hans", "zh_Hant"])
def test_console_speaks_the_chosen_language(index, lang) -> None:
    t = translator(lang)
    session = ConsoleSession(index, t=t)
    shown = to_console(session.answer("diffusion models"))
    assert shown.startswith(
        t.gettext(
            "results.header",
            query="diffusion models",
            first=1,
            last=5,
            total=results(index, "diffusion models").total,
        )
    )
    assert t.gettext("console.more", commands="/next") in shown
    assert t.gettext("command.next") in to_console(session.answer("/help"))


@pytest.mark.parametrize(
    ("code", "lang"),
    [pytest.param("zh-TW", "zh_Hant", id="zh-TW"), pytest.param("zh", "zh_Hans", id="zh")],
)
def test_lang_takes_telegram_style_codes_too(index, code: str, lang: str) -> None:
    session = ConsoleSession(index)
    session.answer(f"/lang {code}")
    assert session.t.lang == lang


def test_lang_command_switches_the_console(index) -> None:
    session = ConsoleSession(index)
    assert "/lang zh_Hant — 繁體中文" in to_console(session.answer("/lang"))
    assert to_console(session.answer("/lang zh_hans")) == "好的，之后我会用简体中文回复你。"
    assert session.t.lang == "zh_Hans"


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        pytest.param({"LANG": "zh_CN.UTF-8"}, "zh_Hans", id="zh_CN"),
        pytest.param({"LANG": "zh_TW.UTF-8"}, "zh_Hant", id="zh_TW"),
        pytest.param({"LANG": "zh_TW.UTF-8", "LC_ALL": "en_US.UTF-8"}, "en", id="lc-all-wins"),
        pytest.param({"LANG": "C.UTF-8"}, "en", id="C"),
        pytest.param({}, "en", id="unset"),
    ],
)
def test_console_language_follows_the_locale(environ, lang) -> None:
    assert console_language(environ) == lang


class _Terminal(io.StringIO):
    """A stdout that says it is a terminal, as a person's would."""

    def isatty(self) -> bool:
        return True


def _run(corpus, stdin: str, environ: dict[str, str] | None = None) -> str:
    stdout = _Terminal()
    code = run_console([corpus], stdin=io.StringIO(stdin), stdout=stdout, lang="en",
                       environ=environ or {})  # fmt: skip
    assert code == 0
    return stdout.getvalue()


@pytest.fixture
def small_corpus(tmp_path):
    corpus = tmp_path / "papers"
    corpus.mkdir()
    (corpus / "a.jsonl").write_text(
        '{"title": "Graph mixup", "abstract": "Mixup for molecule graphs.", "authors": ["Ada"]}\n'
        '{"title": "Tree search", "abstract": "Monte Carlo tree search for proofs."}\n'
        "not json\n"
    )
    (corpus / "b.jsonl").write_text(
        '{"title": "Quokka vision", "abstract": "Seeing quokkas in the wild."}\n'
    )
    (corpus / "c.jsonl").write_text("garbage\n")  # read, but holds no paper
    return corpus


def test_a_terminal_gets_bold_unless_no_color_is_set(small_corpus) -> None:
    assert "\x1b[1m" in _run(small_corpus, "graph mixup\n")
    assert "\x1b[" not in _run(small_corpus, "graph mixup\n", {"NO_COLOR": "1"})


def test_a_console_that_only_searches_creates_no_database(small_corpus, data_dir) -> None:
    _run(small_corpus, "graph mixup\n/stats\n")
    assert list(data_dir.iterdir()) == []


def test_the_loads_skip_report_is_shown_at_start(small_corpus) -> None:
    first_lines = _run(small_corpus, "").splitlines()[:2]
    assert first_lines[1] == "2 records skipped (unreadable or duplicates)"


def test_versions_merged_into_a_paper_are_not_counted_as_skipped(tmp_path) -> None:
    import shutil

    from testkit.paths import TEST_DATA

    for name in ("icml-2026-orals-posters.json", "icml-2026-abstracts.json"):
        shutil.copy(TEST_DATA / "programme" / name, tmp_path)
    out = _run(tmp_path, "/stats\n")
    # The feed's 4 orals are merged into their posters and the sidecar is read with the feed
    # (nothing lost); the skip a user is told of is the feed's events that are not papers.
    assert out.splitlines()[1] == "1 record skipped (unreadable or duplicate)"
    assert out.count("1 record skipped") == 2  # the banner and /stats


def test_stats_counts_the_files_the_load_read_as_search_does(small_corpus, capsys) -> None:
    from bot import cli

    out = _run(small_corpus, "/stats\n")
    assert cli.main(["search", "--corpus", str(small_corpus), "graph"]) == 0
    assert "3 papers from 3 files" in capsys.readouterr().err
    assert "Sources: 3 files" in out  # c.jsonl was read, though none of its records was a paper


def test_console_saves_lists_and_removes_by_result_number(index, tmp_path) -> None:
    from bot.store import open_store

    store = LazyStore(lambda: open_store(None, tmp_path))
    session = ConsoleSession(index, per_page=5, store=store)
    try:
        first = to_console(session.answer("graph neural networks"))
        assert to_console(session.answer("/save 1")) == "Saved to your reading list"
        assert to_console(session.answer("/save 1")) == "Already in your reading list"
        saved = to_console(session.answer("/saved"))
        assert saved.startswith("Your reading list — 1 paper")
        title = first.split("\n1. ", 1)[1].split(" · ", 1)[0]
        assert title in saved
        assert to_console(session.answer("/remove 1")) == "Removed"
        assert to_console(session.answer("/saved")) == to_console(text_doc("list.empty"))
    finally:
        store.close()


def test_console_save_without_a_paper_says_how(index) -> None:
    session = ConsoleSession(index)
    assert to_console(session.answer("/save")) == (
        "Which paper? Type the number shown beside it or its id, e.g. /save 1"
    )
    assert "/paper_3rmh7qdh" in to_console(session.answer("/save nonsense-id"))  # the ids hint


def test_console_save_of_a_card_needs_no_number(index, tmp_path) -> None:
    from bot.store import open_store

    store = LazyStore(lambda: open_store(None, tmp_path))
    session = ConsoleSession(index, store=store)
    try:
        session.answer("/paper_3rmh7qdh")
        assert to_console(session.answer("/save")) == "Saved to your reading list"
        rows = session._stored(lambda store: store.export_rows(CONSOLE_USER_ID))
        assert [row.paper_id for row in rows] == ["3rmh7qdh"]
    finally:
        store.close()


def test_console_unfollow_by_number(index, tmp_path) -> None:
    from bot.store import open_store

    store = LazyStore(lambda: open_store(None, tmp_path))
    session = ConsoleSession(index, store=store)
    try:
        session.answer("/follow diffusion models")
        assert "/unfollow 1" in to_console(session.answer("/unfollow 7"))
        done = to_console(session.answer("/unfollow 1"))
        assert done.startswith("You no longer follow diffusion models.")
        assert "You don't follow any topic yet." in done
    finally:
        store.close()


def test_console_help_lists_its_typed_buttons(index) -> None:
    text = to_console(ConsoleSession(index).answer("/help"))
    for name in ("/save — ", "/remove — ", "/unfollow — "):
        assert name in text


def test_a_name_on_a_corpus_without_authors_gets_the_author_answer(index) -> None:
    assert not any(paper.authors for paper in index.papers)  # the seed corpus lists none
    session = ConsoleSession(index)
    asked = to_console(session.answer("Yoshua Bengio"))
    assert asked == to_console(session.answer("/author Yoshua Bengio"))
    assert asked == "I found no papers by Yoshua Bengio."


def test_a_lower_case_topic_on_a_corpus_without_authors_still_searches(index) -> None:
    answer = to_console(ConsoleSession(index).answer("music generation"))
    assert "I found no papers by" not in answer


def test_console_session_pages_with_next_and_prev(tmp_path) -> None:
    from bot.corpus import load_corpus
    from bot.search import Index
    from testkit.hall import hall_events
    from testkit.programme import write_feed

    papers = load_corpus([write_feed(tmp_path, hall_events(), {})]).papers
    session = ConsoleSession(Index.build(papers), t=translator("zh_Hans"))
    first = to_console(session.answer("/session 1"))
    second = to_console(session.answer("/next"))
    back = to_console(session.answer("/prev"))
    assert first.startswith("Poster Session 1\n7月14日 周二 11:00–13:30 首尔时间")
    assert "\n#E-1 · Poster paper number 1 · /paper_" in first and "更多：/next" in first
    assert "\n#E-11 · " in second and "更多：/prev /next" in second
    assert back == first
    assert "/session Oral 1A Theory" in to_console(session.answer("/session 9"))


def test_the_banner_and_start_name_the_corpus(tmp_path, monkeypatch) -> None:
    stdout = io.StringIO()
    assert run_console(None, stdin=io.StringIO("/start\n"), stdout=stdout, lang="en") == 0
    lines = stdout.getvalue().splitlines()
    assert lines[0].startswith("57 ICML 2026 papers loaded.")  # the seeds, by their header
    assert "Hi! I search 57 ICML 2026 papers" in stdout.getvalue()
    corpus = tmp_path / "mine.jsonl"
    corpus.write_text('{"title": "T", "abstract": "Graph mixup for molecules."}\n')
    monkeypatch.setenv("CORPUS_NAME", "NeurIPS 2025 reading group")
    stdout = io.StringIO()
    assert run_console([corpus], stdin=io.StringIO("/help\n"), stdout=stdout, lang="en") == 0
    text = stdout.getvalue()
    assert text.startswith("1 NeurIPS 2025 reading group paper loaded.")
    assert "I search 1 NeurIPS 2025 reading group paper." in text
    assert "/random — A random paper from NeurIPS 2025 reading group" in text


def test_console_schedule_now_export_ics_and_remind(tmp_path) -> None:
    from bot.search import Index
    from bot.store import open_store
    from testkit.week import load_week

    week = load_week(tmp_path / "week")
    store = LazyStore(lambda: open_store(None, tmp_path / "data"))
    session = ConsoleSession(Index.build(list(week.values())), store=store, export_dir=tmp_path)
    try:
        assert to_console(session.answer("/schedule")).startswith("Nothing on your schedule yet")
        for name in "DF":
            session.answer(f"/paper_{week[name].id}")
            assert to_console(session.answer("/save")) == "Saved to your reading list"
        schedule = to_console(session.answer("/schedule"))
        assert "⚠ Clash in Poster Session 3" in schedule and "Page" not in schedule  # one page
        now = to_console(session.answer("/now"))  # on the wall clock: before, during or after
        assert now.startswith(("The conference r", "Now: ")) and " Jul" in now
        written = to_console(session.answer("/export ics"))
        assert (
            written.endswith("reading-list.ics")
            and b"BEGIN:VEVENT" in (tmp_path / "reading-list.ics").read_bytes()
        )
        assert "send /remind 15 to the bot" in to_console(session.answer("/remind 15"))
    finally:
        store.close()
