"""Rendering: escaped, balanced Telegram HTML within limits; callback data; console text."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime

import pytest
from telegram import constants

from bot import render
from bot.answers import results
from bot.commands import COMMANDS
from bot.corpus import MAX_COMMAND_CHARS, Fetched, Paper, parse_paper_command
from bot.corpus.profile import CorpusName, VenueYears
from bot.i18n import translator
from bot.render.blocks import EXAMPLE_KEYS
from bot.render.callbacks import encode
from bot.render.doc import HtmlMessage, InlineSwitch
from bot.render.limits import (
    MAX_BUTTONS,
    MAX_BUTTONS_PER_ROW,
    MAX_CALLBACK_DATA_BYTES,
    MAX_INLINE_RESULT_ID_BYTES,
    MAX_INLINE_RESULTS,
    MAX_MESSAGE_CHARS,
)
from bot.render.paper import paper_command
from bot.render.questions import classify_question
from bot.search import Hit, IndexStats, SearchResult
from bot.search.snippets.sentences import Snippet
from testkit.fake_bot_api import HtmlError, parse_html, utf16_len
from testkit.paths import REPO_ROOT

EXAMPLE_QUESTIONS = tuple(translator("en").gettext(key) for key in EXAMPLE_KEYS)


def make_paper(paper_id: str = "12", **fields: object) -> Paper:
    values: dict[str, object] = {
        "title": "Sparse attention for long documents",
        "abstract": "We study sparse attention. It scales to long documents.",
        "links": (),
    }
    values.update(fields)
    return Paper(id=paper_id, **values)  # type: ignore[arg-type]


def make_hit(paper: Paper, text: str = "We study sparse attention.", marks=((9, 15),)) -> Hit:
    return Hit(paper=paper, score=3.0, snippet=Snippet(text, tuple(marks)))


def make_result(hits, *, query="sparse attention", total=None, confident=True, offset=0):
    return SearchResult(
        query=query,
        terms=tuple(query.split()),
        hits=tuple(hits),
        total=len(hits) if total is None else total,
        confident=confident,
        offset=offset,
    )


def assert_telegram_accepts(message: HtmlMessage) -> None:
    plain = parse_html(message.text)  # raises like Telegram's "can't parse entities"
    assert plain.strip()
    assert utf16_len(plain) <= MAX_MESSAGE_CHARS
    assert utf16_len(message.text) <= MAX_MESSAGE_CHARS
    for row in message.keyboard:
        for label, data in row:
            assert label
            if isinstance(data, InlineSwitch):  # a Share button: the query it types
                assert 0 < len(data.query) <= 256 and render.limits.encodable(data.query)
            else:
                assert 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES


def test_limits_equal_telegram_constants() -> None:
    assert MAX_MESSAGE_CHARS == constants.MessageLimit.MAX_TEXT_LENGTH
    assert MAX_CALLBACK_DATA_BYTES == constants.InlineKeyboardButtonLimit.MAX_CALLBACK_DATA
    assert MAX_BUTTONS == constants.InlineKeyboardMarkupLimit.TOTAL_BUTTON_NUMBER
    assert MAX_BUTTONS_PER_ROW == constants.InlineKeyboardMarkupLimit.BUTTONS_PER_ROW
    assert MAX_INLINE_RESULTS == constants.InlineQueryLimit.RESULTS
    assert MAX_INLINE_RESULT_ID_BYTES == constants.InlineQueryResultLimit.MAX_ID_LENGTH
    assert (
        render.MAX_CALLBACK_ANSWER_CHARS
        == constants.CallbackQueryLimit.ANSWER_CALLBACK_QUERY_TEXT_LENGTH
    )
    assert MAX_COMMAND_CHARS == constants.BotCommandLimit.MAX_COMMAND
    assert render.INLINE_RESULTS <= MAX_INLINE_RESULTS


def test_result_shows_bold_title_highlight_and_tappable_id() -> None:
    paper = make_paper(links=(("Code", "https://github.com/org/sparse"),))
    [message] = render.to_html(render.results_doc(make_result([make_hit(paper)]), per_page=5))
    assert "1. <b>Sparse attention for long documents</b> · /paper_12\n" in message.text
    assert "We study <b>sparse</b> attention." in message.text
    assert '<a href="https://github.com/org/sparse">github.com/org/sparse</a>' in message.text


def test_a_result_is_opened_one_way_only() -> None:
    """The tappable /paper_<id> on the title line: no open buttons, one title per paper."""
    hits = [make_hit(make_paper(str(n), title=f"Paper number {n}")) for n in range(1, 4)]
    doc = render.results_doc(make_result(hits), per_page=5)
    [message] = render.to_html(doc)
    assert doc.keyboard == ()
    for n in range(1, 4):
        assert message.text.count(f"Paper number {n}") == 1
        assert message.text.count(f"/paper_{n}") == 1


def test_adjacent_marks_become_one_highlight() -> None:
    hit = make_hit(make_paper(), "deep neural networks here", ((5, 11), (12, 20)))
    [message] = render.to_html(render.results_doc(make_result([hit]), per_page=5))
    assert "deep <b>neural networks</b> here" in message.text


@pytest.mark.parametrize(
    "hostile",
    [
        pytest.param("<script>alert(1)</script>", id="tags"),
        pytest.param("a & b < c > d \"q\" 's'", id="specials"),
        pytest.param("&amp; &lt;b&gt; &#x41;", id="entity-lookalikes"),
        pytest.param("</b></i><b>", id="stray-closers"),
        pytest.param("x\x00y\x07z\u202e", id="control-chars"),
    ],
)
def test_corpus_and_user_text_are_escaped(hostile: str) -> None:
    paper = make_paper(
        title=hostile, abstract=hostile, authors=(hostile,), links=(("Page", hostile),)
    )
    hit = make_hit(paper, hostile, ((0, 3),))
    docs = [
        render.results_doc(make_result([hit], query=hostile), per_page=5),
        render.paper_doc(paper),
        render.similar_doc(paper, [hit]),
        render.not_found_doc(hostile),
        render.hint_doc("no_match", hostile),
    ]
    for doc in docs:
        for message in render.to_html(doc):
            assert_telegram_accepts(message)
            assert "<script>" not in message.text


def test_long_abstract_is_cut_on_a_word_boundary() -> None:
    words = " ".join(f"word{i}" for i in range(2000))
    [card] = render.to_html(render.paper_doc(make_paper(abstract=words)))
    assert_telegram_accepts(card)
    body = parse_html(card.text)
    cut = body.split("…")[0].split()[-1]
    assert cut.startswith("word") and cut in words.split()


def test_message_over_the_limit_splits_between_blocks_keyboard_last() -> None:
    blocks = tuple((render.Segment(f"block {i} " + "x" * 900, "b"),) for i in range(10))
    doc = render.Doc(blocks, keyboard=((("Similar papers", "s:1"),),))
    messages = render.to_html(doc)
    assert len(messages) > 1
    for message in messages:
        assert_telegram_accepts(message)
        assert message.text.count("<b>") == message.text.count("</b>")
    assert [m.keyboard for m in messages[:-1]] == [()] * (len(messages) - 1)
    assert messages[-1].keyboard
    joined = "".join(parse_html(m.text) for m in messages)
    assert all(f"block {i} " in joined for i in range(10))


def test_page_of_huge_hits_still_fits_one_message() -> None:
    hits = [
        make_hit(make_paper(str(i), title="&" * 3000), "<" * 3000, ((0, 2000),)) for i in range(10)
    ]
    messages = render.to_html(render.results_doc(make_result(hits, total=40), per_page=10))
    assert len(messages) == 1
    assert_telegram_accepts(messages[0])


def test_next_and_previous_carry_the_query_when_it_fits() -> None:
    hits = [make_hit(make_paper(str(i))) for i in range(5)]
    doc = render.results_doc(make_result(hits, total=12, offset=5), per_page=5)
    nav = doc.keyboard[-1]
    assert nav == (("◀ Previous", "q:0:sparse attention"), ("Next ▶", "q:10:sparse attention"))
    assert render.parse_callback(nav[1][1]) == render.TurnPage(10, query="sparse attention")


def test_long_query_pages_through_a_state_key() -> None:
    query = "sparse attention " * 10
    hits = [make_hit(make_paper(str(i))) for i in range(5)]
    doc = render.results_doc(make_result(hits, query=query, total=12), per_page=5, page_key="K1")
    assert doc.keyboard[-1] == (("Next ▶", "k:5:K1"),)


def test_long_query_without_key_gets_no_page_buttons() -> None:
    hits = [make_hit(make_paper(str(i))) for i in range(5)]
    doc = render.results_doc(make_result(hits, query="é" * 40, total=12), per_page=5)
    assert all(not label.startswith(("Next", "◀")) for row in doc.keyboard for label, _ in row)


def test_long_paper_ids_use_hashed_callback_refs() -> None:
    long_id = "openreview/" + "x" * 80
    data = encode(render.OpenPaper(render.paper_ref(long_id)))
    assert len(data.encode()) <= MAX_CALLBACK_DATA_BYTES
    action = render.parse_callback(data)
    assert isinstance(action, render.OpenPaper)
    assert action.ref == render.paper_ref(long_id) and action.ref.startswith("#")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(None, id="none"),
        pytest.param("", id="empty"),
        pytest.param("zz", id="short"),
        pytest.param("x:1", id="unknown-kind"),
        pytest.param("q:abc:query", id="bad-offset"),
        pytest.param("q:99999999:query", id="huge-offset"),
        pytest.param("q:5:", id="no-query"),
        pytest.param("p:", id="no-ref"),
        pytest.param("k:5", id="no-key"),
        pytest.param("q:٣:x", id="non-ascii-digit"),
    ],
)
def test_garbage_callback_data_parses_to_none(data: object) -> None:
    assert render.parse_callback(data) is None


WEAK = {
    "en": "The closest matches (none is a clear match):",
    "zh_Hans": "最接近的结果（没有明确匹配的）：",
    "zh_Hant": "最接近的結果（沒有明確符合的）：",
}


@pytest.mark.parametrize("language", sorted(WEAK))
def test_a_weak_match_shows_the_closest_papers_and_keeps_its_pages(language: str) -> None:
    t = translator(language)
    hits = [make_hit(make_paper(paper_id=f"p{i}", title=f"Paper {i}")) for i in range(5)]
    result = make_result(hits, confident=False, total=12, offset=5)
    [message] = render.to_html(render.results_doc(result, per_page=5, t=t))
    assert_telegram_accepts(message)
    assert parse_html(message.text).startswith(WEAK[language])
    labels = [label for row in message.keyboard for label, _ in row]
    assert labels == [t.gettext("button.previous"), t.gettext("button.next")]
    assert t.gettext("results.page", page=2, pages=3) in parse_html(message.text)


def test_weak_match_says_it_in_one_sentence() -> None:
    result = make_result([make_hit(make_paper())], confident=False, total=1)
    header = render.to_console(render.results_doc(result, per_page=5)).split("\n\n")[0]
    assert header == WEAK["en"]  # no second sentence saying it again


@pytest.mark.parametrize(
    ("query", "terms", "kind"),
    [
        pytest.param("", (), "empty", id="empty"),
        pytest.param("   ", (), "empty", id="blank"),
        pytest.param("🤖🔥", (), "symbols", id="emoji"),
        pytest.param("the of and", (), "common_words", id="stopwords"),
        pytest.param("нейронные сети", ("нейрон",), "non_english", id="russian"),
        pytest.param("图神经网络", (), "non_english", id="chinese"),
        pytest.param("quantum zebra", ("quantum", "zebra"), "no_match", id="no-match"),
    ],
)
def test_questions_that_find_nothing_get_a_matching_hint(query, terms, kind) -> None:
    assert classify_question(query, terms) == kind
    result = SearchResult(query=query, terms=terms, hits=(), total=0, confident=False)
    [message] = render.to_html(render.results_doc(result, per_page=5))
    assert_telegram_accepts(message)
    assert "Try for example" in message.text


def test_help_lists_every_command() -> None:
    [message] = render.to_html(render.help_doc())
    for command in COMMANDS:
        assert f"/{command.name} — " in message.text


def test_paper_card_has_links_id_and_similar_button() -> None:
    paper = make_paper(
        links=(("Code", "https://github.com/org/x"), ("Page", "ftp://weird place")),
        authors=("A. Lovelace",),
    )
    [card] = render.to_html(render.paper_doc(paper))
    assert_telegram_accepts(card)
    assert "<i>A. Lovelace</i>" in card.text
    assert "ftp://weird place" in parse_html(card.text)
    assert "/similar" not in card.text and "id 12" not in card.text  # the button says it
    assert card.keyboard == ((("Similar papers", "s:12"), ("Share", InlineSwitch("/paper_12"))),)
    assert "t.me" not in card.text  # without the bot's name, no link to copy


def test_a_card_shows_the_link_that_opens_it_and_shares_by_its_command() -> None:
    [card] = render.to_html(render.paper_doc(make_paper(), bot_username="icml_papers_bot"))
    assert_telegram_accepts(card)
    assert "Link to this paper: <code>https://t.me/icml_papers_bot?start=12</code>" in card.text
    [odd] = render.to_html(render.paper_doc(make_paper("2401.01234"), bot_username="bot_name"))
    assert "t.me" not in odd.text  # no /start payload can carry the dot
    assert odd.keyboard[0][1] == ("Share", InlineSwitch("/paper 2401.01234"))
    [unsendable] = render.to_html(render.paper_doc(make_paper("a\x07b")))
    assert len(unsendable.keyboard[0]) == 1  # Similar only: no query could type that id


def test_ids_outside_command_charset_fall_back_to_paper_space_id() -> None:
    assert paper_command("12") == "/paper_12"
    assert paper_command("2401.01234") == "/paper 2401.01234"


def test_stats_and_start_render() -> None:
    stats = IndexStats(papers=57, sources=3, terms=1900, postings=5000, memory_bytes=2_500_000)
    loaded = datetime(2026, 12, 1, 4, 30, tzinfo=UTC)
    [message] = render.to_html(render.stats_doc(stats, loaded_at=loaded))
    assert message.text == (
        "<b>Papers I search</b>\nPapers: <b>57</b>\nSources: 3 files\nLoaded: 2026-12-01 04:30 UTC"
    )
    [start] = render.to_html(render.start_doc(57))
    assert "I search <b>57 papers</b>" in start.text  # nothing names them
    for example in EXAMPLE_QUESTIONS:
        assert example in start.text
    named = CorpusName((VenueYears("ICML", 2026, 2026),))
    [start] = render.to_html(render.start_doc(57, name=named, examples=["sparse <routers>"]))
    assert "I search <b>57 ICML 2026 papers</b>" in start.text
    assert "<code>/search sparse &lt;routers&gt;</code>" in start.text  # the corpus's own
    assert EXAMPLE_QUESTIONS[0] not in start.text
    assert "List from" not in start.text  # no record of a fetch: nothing said of freshness


FEED_URL = "https://icml.cc/static/virtual/data/icml-2026-orals-posters.json"


@pytest.mark.parametrize(
    ("lang", "start_line", "stats_line"),
    [
        ("en", "List from icml.cc as of 14 Jul 2026.", "List: icml.cc, as of 14 Jul 2026"),
        (
            "zh_Hans",
            "论文列表来自 icml.cc，截至 2026年7月14日。",
            "列表：icml.cc，截至 2026年7月14日",
        ),
        (
            "zh_Hant",
            "論文列表來自 icml.cc，截至 2026年7月14日。",
            "列表：icml.cc，截至 2026年7月14日",
        ),
    ],
)
def test_start_and_stats_say_where_the_list_came_from_and_as_of_when(
    lang: str, start_line: str, stats_line: str
) -> None:
    t, fetched = translator(lang), Fetched(date(2026, 7, 14), FEED_URL)
    named = CorpusName((VenueYears("ICML", 2026, 2026),))
    [start] = render.to_html(render.start_doc(6628, name=named, t=t, fetched=fetched))
    assert_telegram_accepts(start)
    assert start.text.split("\n")[1] == start_line  # under the welcome
    stats = IndexStats(papers=6628, sources=1, terms=1, postings=1, memory_bytes=1)
    [message] = render.to_html(render.stats_doc(stats, t=t, fetched=fetched))
    assert message.text.split("\n")[3] == stats_line  # after the files it came from


def test_inline_article_has_snippet_description_and_short_card() -> None:
    paper = make_paper(abstract="word " * 1000)
    article = render.inline_article(paper, make_hit(paper))
    assert article.title == paper.title
    assert article.description == "We study sparse attention."
    assert_telegram_accepts(HtmlMessage(article.message_html))
    assert "/paper_12" in article.message_html
    assert len(parse_html(article.message_html)) < 1000


def test_console_text_uses_the_same_blocks_without_tags() -> None:
    doc = render.results_doc(make_result([make_hit(make_paper())]), per_page=5)
    plain = render.to_console(doc)
    assert "1. Sparse attention for long documents" in plain
    assert "<b>" not in plain and "\033[" not in plain
    bold = render.to_console(doc, ansi=True)
    assert "\033[1msparse\033[0m" in bold


def test_fake_server_html_validator_rejects_what_telegram_rejects() -> None:
    for bad in ["<b>x", "x</b>", "<div>x</div>", "a & b", "<b><i>x</b></i>", "1 < 2"]:
        with pytest.raises(HtmlError):
            parse_html(bad)
    assert parse_html('<a href="https://x.org/?a=1&amp;b=2">x &lt; y</a>') == "x < y"


def test_example_questions_find_papers_in_the_seed_corpus(index) -> None:
    for example in EXAMPLE_QUESTIONS:
        result = results(index, example, limit=3)
        assert result.hits and result.confident, example


@pytest.mark.parametrize(
    ("paper_id", "tappable"),
    [
        pytest.param("1", True, id="short"),
        pytest.param("a" * 26, True, id="longest-command"),
        pytest.param("a" * 27, False, id="too-long-for-a-command"),
        pytest.param("2024.123-x", False, id="not-command-characters"),
    ],
)
def test_paper_command_and_shortcut_follow_one_rule(paper_id: str, tappable: bool) -> None:
    command = paper_command(paper_id)
    assert command.startswith("/paper_") is tappable
    parsed = parse_paper_command(f"/paper_{paper_id}@icml_papers_bot")
    assert (parsed == (paper_id, "icml_papers_bot")) is tappable
    assert len(command.split()[0]) - 1 <= MAX_COMMAND_CHARS or not tappable


@pytest.mark.slow
def test_oversized_callback_data_raises_even_under_python_O() -> None:
    code = (
        "from bot.render.callbacks import CallbackDataError, page_data\n"
        "try:\n"
        "    page_data(0, key='k' * 100)\n"
        "except CallbackDataError:\n"
        "    raise SystemExit(0)\n"
        "raise SystemExit(1)\n"
    )
    done = subprocess.run(
        [sys.executable, "-O", "-c", code], cwd=REPO_ROOT, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
