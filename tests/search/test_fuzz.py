"""Fuzzed input: arbitrary Unicode through the loader, analyzer, search and renderer.

Run size: `HYPOTHESIS_PROFILE` picks `fast` (default, 150 examples per test), `ci` (1,000)
or `long` (10,000). Inputs mix any code point (controls, lone surrogates, RTL marks,
zero-widths) with HTML, Markdown and LaTeX fragments.

Lone surrogates cannot arrive from Telegram (its JSON is valid UTF-16 pairs), only from a
corpus file's JSON escapes (`"\\ud800"`): the loader turns them into U+FFFD and control
characters into spaces; the renderer does the same for any text it is given (keeping
newlines), only links to http(s) URLs without controls or spaces become `<a href>`, and
callback data with a lone surrogate is refused. The regression tests at the end pin each case.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot import render
from bot.answers import results
from bot.corpus import CorpusError, Paper, clean_abstract, clean_title, derive_title, load_corpus
from bot.render.callbacks import page_data
from bot.render.doc import HtmlMessage, InlineSwitch
from bot.render.limits import (
    MAX_BUTTONS_PER_ROW,
    MAX_CALLBACK_DATA_BYTES,
    MAX_INLINE_RESULT_ID_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_URL_CHARS,
)
from bot.render.questions import classify_question
from bot.search import Index
from bot.search.query.analysis import EnglishAnalyzer, analyze_query
from testkit.fake_bot_api import parse_html, utf16_len
from testkit.fuzz import FUZZ

ENGLISH = EnglishAnalyzer()
analyze, analyze_spans = ENGLISH.analyze, ENGLISH.analyze_spans

FRAGMENTS = [
    "<b>", "</b>", "<i>x</i>", "<a href=\"javascript:alert(1)\">", "</a>", "<pre><code>",
    "&", "&amp;", "&lt;", "&#0;", "&#x110000;", "&bogus;", "<", ">", '"', "'",
    "**bold**", "__u__", "_i_", "`code`", "```py\nx\n```", "[link](http://x.y)", "~~s~~",
    "||spoiler||", "$x^2$", "$$\\frac{a}{b}$$", "\\textbf{T}", "\\cite{k}", "\\\\", "{", "}",
    "^", "_", "\\begin{equation}", "\u202e", "\u200f", "\u200b", "\u2066", "\ufeff", "\x00",
    "\x1b[1m", "\r\n", "\n\n", "\t", "\ud800", "\udfff", "🤖", "👩🏽‍🔬", "e\u0301",
    "https://github.com/a/b", "http://x.y/<script>", "/paper_1", "@icml_papers_bot", " ",
]  # fmt: skip
ANY_CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
TEXT = st.lists(
    st.one_of(st.text(ANY_CHAR, max_size=30), st.sampled_from(FRAGMENTS)), max_size=40
).map("".join)


LONG_TEXT = st.lists(
    st.one_of(st.text(ANY_CHAR, max_size=200), st.sampled_from(FRAGMENTS)), max_size=120
).map("".join)


URL_TEXT = st.one_of(
    TEXT,
    st.builds(
        "{}{}{}".format,
        st.sampled_from(["", "\x1b", "\x08", "\t", " ", "\u202e", "\ud800"]),
        st.sampled_from(["http://", "HTTP://", "https://", "javascript:", "tg://", ""]),
        TEXT,
    ),
)
# What no message may hold: controls other than newline, lone surrogates.
UNSENDABLE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def assert_telegram_accepts(messages: list[HtmlMessage]) -> None:
    assert messages
    for message in messages:
        plain = parse_html(message.text)  # raises HtmlError like Telegram's "can't parse"
        assert 0 < utf16_len(plain) <= MAX_MESSAGE_CHARS
        assert plain.strip()
        assert not UNSENDABLE.search(message.text)
        for row in message.keyboard:
            assert len(row) <= MAX_BUTTONS_PER_ROW
            for label, data in row:
                assert label.strip()
                if isinstance(data, InlineSwitch):  # a Share button: the query it types
                    assert 0 < len(data.query) <= 256 and render.limits.encodable(data.query)
                else:
                    assert 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES


# ------------------------------------------------------------------ corpus


@FUZZ
@given(TEXT)
def test_cleaners_never_raise(raw: str) -> None:
    abstract, links = clean_abstract(raw)
    assert isinstance(abstract, str) and all(isinstance(link, str) for link in links)
    assert isinstance(clean_title(raw), str)
    assert isinstance(derive_title(raw), str)


@pytest.mark.slow
@FUZZ
@given(
    st.sampled_from([".txt", ".md", ".jsonl", ".json", ".csv"]),
    st.one_of(st.binary(max_size=400), TEXT.map(lambda t: t.encode("utf-8", "surrogatepass"))),
)
def test_loader_reads_any_bytes_or_raises_corpus_error(suffix: str, content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"corpus{suffix}"
        path.write_bytes(content)
        try:
            report = load_corpus([path])
        except CorpusError as exc:
            assert str(path) in str(exc)  # the error names the file
            return
    for paper in report.papers:
        assert paper.id and isinstance(paper.title, str) and paper.abstract


@pytest.mark.slow
@FUZZ
@given(
    st.lists(
        st.fixed_dictionaries(
            {"abstract": TEXT},
            optional={"title": TEXT, "url": URL_TEXT, "id": TEXT, "authors": TEXT},
        ),
        min_size=1,
        max_size=5,
    )
)
def test_loader_reads_fuzzed_jsonl_records(records: list[dict[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "papers.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
        try:
            report = load_corpus([path])
        except CorpusError:
            return
    index = Index.build(report.papers)  # whatever loads, indexes
    for paper in report.papers:
        assert_telegram_accepts(render.to_html(render.paper_doc(paper)))
    assert len(index) == len(report.papers)


# ------------------------------------------------------------------ analyzer and search


@FUZZ
@given(LONG_TEXT)
def test_analyzer_never_raises_and_spans_point_into_the_text(text: str) -> None:
    assert all(isinstance(term, str) and term for term in analyze(text))
    assert isinstance(analyze_query(text, ENGLISH), list)
    for term, start, end in analyze_spans(text):
        assert term and 0 <= start < end <= len(text)


@FUZZ
@given(question=LONG_TEXT, offset=st.integers(0, 60))
def test_search_never_raises_and_renders_as_telegram_html(
    index: Index, question: str, offset: int
) -> None:
    result = results(index, question, limit=5, offset=offset)
    assert len(result.hits) <= 5
    doc = render.results_doc(result, per_page=5, page_key="k3y")
    if not result.hits:
        doc = render.hint_doc(classify_question(question, result.terms), question)
    assert_telegram_accepts(render.to_html(doc))


# ------------------------------------------------------------------ renderer


PAPERS = st.builds(
    Paper,
    id=st.one_of(st.from_regex(r"[A-Za-z0-9_.:-]{1,80}", fullmatch=True), TEXT.filter(str.strip)),
    title=TEXT,
    abstract=LONG_TEXT.filter(str.strip),
    links=st.lists(
        st.tuples(st.sampled_from(["Page", "PDF", "Code", "arXiv"]), URL_TEXT), max_size=3
    ).map(tuple),
    authors=st.lists(TEXT, max_size=5).map(tuple),
    keywords=st.lists(TEXT, max_size=3).map(tuple),
    venue=TEXT,
    track=TEXT,
    status=TEXT,
    year=st.one_of(st.none(), st.integers(1900, 2100)),
)


@pytest.mark.slow
@FUZZ
@given(PAPERS)
def test_any_paper_renders_as_telegram_html(paper: Paper) -> None:
    assert_telegram_accepts(render.to_html(render.paper_doc(paper)))
    assert_telegram_accepts(render.to_html(render.author_doc(paper.title, [paper])))
    article = render.inline_article(paper)
    assert parse_html(article.message_html) and article.title.strip()
    assert 1 <= len(article.id.encode("utf-8")) <= MAX_INLINE_RESULT_ID_BYTES


@FUZZ
@given(TEXT)
def test_any_id_or_question_in_a_notice_renders_as_telegram_html(text: str) -> None:
    assert_telegram_accepts(render.to_html(render.not_found_doc(text)))
    assert_telegram_accepts(render.to_html(render.hint_doc("no_match", text)))


@FUZZ
@given(st.one_of(TEXT, st.binary().map(lambda b: b.decode("latin-1")), st.none(), st.integers()))
def test_any_callback_data_parses_or_is_refused(data: object) -> None:
    action = render.parse_callback(data)
    assert action is None or isinstance(action, render.OpenPaper | render.TurnPage)


@pytest.mark.parametrize("query", ["", "a" * 64, "ü" * 40, "\u202e" * 30])
def test_page_buttons_fit_64_bytes_or_use_a_key(query: str) -> None:
    if render.query_fits_callback(query):
        assert len(page_data(5, query=query).encode()) <= MAX_CALLBACK_DATA_BYTES
    assert len(page_data(5, key="k" * 11).encode()) <= MAX_CALLBACK_DATA_BYTES


# ------------------------------------------------------------------ regressions (once bugs)


def test_loader_turns_lone_surrogates_from_json_escapes_into_replacement_chars(
    tmp_path: Path,
) -> None:
    path = tmp_path / "papers.jsonl"
    record = (
        '{"abstract": "A model \\ud800 for graphs.", "title": "T\\udfff", "authors": ["\\ud83e"]}'
    )
    path.write_text(record + "\n", encoding="utf-8")
    (paper,) = load_corpus([path]).papers
    assert (paper.abstract, paper.title, paper.authors) == (
        "A model \ufffd for graphs.",
        "T\ufffd",
        ("\ufffd",),
    )


def test_loader_turns_control_characters_into_spaces_in_every_field(tmp_path: Path) -> None:
    path = tmp_path / "papers.jsonl"
    record = {
        "abstract": "Graph\x00networks\x1b[1m for\tgraphs.\x85",
        "title": "\x07Title\x7f",
        "authors": "A\x0bB",
        "url": "\x1bHTTP://0\n",
        "id": "\x00x1",
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (paper,) = load_corpus([path]).papers
    assert paper.abstract == "Graph networks [1m for graphs."
    assert (paper.title, paper.authors, paper.links, paper.id) == (
        "Title",
        ("A B",),
        (("Page", "HTTP://0"),),
        "x1",
    )


def test_notice_with_a_lone_surrogate_renders_as_telegram_html() -> None:
    messages = render.to_html(render.not_found_doc("x\ud800\x1b"))
    assert_telegram_accepts(messages)
    assert "x\ufffd" in messages[0].text


def test_console_text_has_no_lone_surrogates_or_controls() -> None:
    text = render.to_console(render.not_found_doc("x\ud800\x1b[2J"), ansi=True)
    assert "\ud800" not in text and "\x1b[2J" not in text


def test_callback_data_with_a_lone_surrogate_is_refused() -> None:
    assert render.parse_callback("p:\ud800") is None
    assert render.parse_callback("q:0:graph\udfff") is None


def test_a_paper_with_a_lone_surrogate_in_its_id_gets_hashed_callback_data() -> None:
    paper = Paper(id="a\ud800", title="T", abstract="A paper.")
    assert_telegram_accepts(render.to_html(render.paper_doc(paper)))
    assert render.paper_ref(paper.id).startswith("#")


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("\x08HTTP://0", id="control-before-scheme"),
        pytest.param("http://a.b/x\ty", id="tab-inside"),
        pytest.param("http://a.b/\u202ex", id="bidi-override"),
        pytest.param("http://a.b/\ud800", id="lone-surrogate"),
        pytest.param("http://a.b/" + "x" * MAX_URL_CHARS, id="too-long"),
        pytest.param("javascript:alert(1)", id="not-web"),
    ],
)
def test_a_url_telegram_would_refuse_is_shown_as_text_not_linked(url: str) -> None:
    paper = Paper(id="0", title="T", abstract="A paper.", links=(("Page", url),))
    messages = render.to_html(render.paper_doc(paper))
    assert_telegram_accepts(messages)
    assert "<a " not in "".join(m.text for m in messages)


def test_a_clean_url_with_an_upper_case_scheme_is_linked() -> None:
    paper = Paper(id="0", title="T", abstract="A paper.", links=(("Page", "HTTP://0"),))
    (message,) = render.to_html(render.paper_doc(paper))
    assert '<a href="HTTP://0">' in message.text
