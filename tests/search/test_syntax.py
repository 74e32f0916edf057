"""The query syntax parser: each element, broken syntax as plain text, and two properties."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.search.query import syntax
from bot.search.query.syntax import FieldFilter, ParsedQuery, Phrase, YearFilter, parse_query


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param(
            '"graph neural networks" molecules',
            ParsedQuery(
                '"graph neural networks" molecules',
                "graph neural networks molecules",
                phrases=(Phrase("graph neural networks"),),
            ),
            id="phrase",
        ),
        pytest.param(
            "generative adversarial networks -image",
            ParsedQuery(
                "generative adversarial networks -image",
                "generative adversarial networks",
                excluded=(Phrase("image", quoted=False),),
            ),
            id="excluded-word",
        ),
        pytest.param(
            'gans -"data augmentation"',
            ParsedQuery(
                'gans -"data augmentation"', "gans", excluded=(Phrase("data augmentation"),)
            ),
            id="excluded-phrase",
        ),
        pytest.param(
            "gan OR vae",
            ParsedQuery(
                "gan OR vae",
                "gan vae",
                any_of=((Phrase("gan", quoted=False), Phrase("vae", quoted=False)),),
            ),
            id="or",
        ),
        pytest.param(
            'gan|"normalizing flow" | vae',
            ParsedQuery(
                'gan|"normalizing flow" | vae',
                "gan normalizing flow vae",
                any_of=(
                    (
                        Phrase("gan", quoted=False),
                        Phrase("normalizing flow"),
                        Phrase("vae", quoted=False),
                    ),
                ),
            ),
            id="pipe",
        ),
        pytest.param(
            "year:2018 adversarial examples",
            ParsedQuery(
                "year:2018 adversarial examples",
                "adversarial examples",
                filters=(YearFilter(2018, 2018),),
            ),
            id="year",
        ),
        pytest.param(
            'author:"Yann LeCun" ti:convolution',
            ParsedQuery(
                'author:"Yann LeCun" ti:convolution',
                "convolution",
                filters=(FieldFilter("author", "Yann LeCun"), FieldFilter("title", "convolution")),
            ),
            id="quoted-author-and-title",
        ),
        pytest.param(
            "-author:Smith venue:ICML track:main status:Oral",
            ParsedQuery(
                "-author:Smith venue:ICML track:main status:Oral",
                "",
                excluded=(FieldFilter("author", "Smith"),),
                filters=(
                    FieldFilter("venue", "ICML"),
                    FieldFilter("track", "main"),
                    FieldFilter("status", "Oral"),
                ),
            ),
            id="negated-field-and-labels",
        ),
        pytest.param(
            "作者：张三 标题:扩散 年份:2019 会议:ICML",
            ParsedQuery(
                "作者：张三 标题:扩散 年份:2019 会议:ICML",
                "扩散",
                filters=(
                    FieldFilter("author", "张三"),
                    FieldFilter("title", "扩散"),
                    YearFilter(2019, 2019),
                    FieldFilter("venue", "ICML"),
                ),
            ),
            id="chinese-aliases-full-width-colon",
        ),
        pytest.param(
            "“graph mixup” AU:bengio",
            ParsedQuery(
                "“graph mixup” AU:bengio",
                "graph mixup",
                phrases=(Phrase("graph mixup"),),
                filters=(FieldFilter("author", "bengio"),),
            ),
            id="curly-quotes-and-upper-case-field",
        ),
    ],
)
def test_each_element_parses(query: str, expected: ParsedQuery) -> None:
    assert parse_query(query) == expected


@pytest.mark.parametrize(
    ("value", "low", "high"),
    [
        pytest.param("2018", 2018, 2018, id="one"),
        pytest.param("2015..2017", 2015, 2017, id="dots"),
        pytest.param("2015-2017", 2015, 2017, id="hyphen"),
        pytest.param("2015–2017", 2015, 2017, id="en-dash"),
        pytest.param("2019..2017", 2017, 2019, id="reversed"),
        pytest.param("2017..", 2017, None, id="from"),
        pytest.param("..2017", None, 2017, id="until"),
        pytest.param(">=2017", 2017, None, id="at-least"),
        pytest.param(">2017", 2018, None, id="after"),
        pytest.param("<2017", None, 2016, id="before"),
        pytest.param("２０１８年", 2018, 2018, id="full-width-with-nian"),
    ],
)
def test_year_values(value: str, low: int | None, high: int | None) -> None:
    assert parse_query(f"y:{value} x").filters == (YearFilter(low, high),)


PLAIN = [
    "self-supervised learning",
    "t-SNE embeddings",
    "C++ compilers for GPUs",
    "mail me at someone@example.org",
    "https://arxiv.org/abs/1706.03762 attention",
    "meeting at 10:30",
    "what is: diffusion",
    "Title: Attention Is All You Need",
    "state-of-the-art - a survey",
    "learning rate -1",
    "gradient clipping or normalisation",
    "",
    "   ",
]
BROKEN = [
    '"graph neural networks',
    "author: Bengio",
    "author:",
    "transformers -",
    "year:abc adversarial",
    "year:20188",
    'author:"Yann LeCun',
    '-"unclosed exclusion',
    "OR transformers",
    "transformers OR",
    "a OR OR b",
    "|",
    "x:y z:w",
]


@pytest.mark.parametrize("query", PLAIN + BROKEN)
def test_plain_and_broken_queries_are_their_own_free_text(query: str) -> None:
    parsed = parse_query(query)
    assert parsed == ParsedQuery(query, query)
    assert parsed.is_plain and parsed.conditions == 0


def test_empty_phrase_is_dropped() -> None:
    assert parse_query('"" graphs').is_plain
    assert parse_query('graphs -""').is_plain


def test_stray_or_beside_an_exclusion_is_no_operator() -> None:
    parsed = parse_query("graphs -images OR text")
    assert parsed.any_of == ()
    assert parsed.excluded == (Phrase("images", quoted=False),)
    assert parse_query(parsed.text).is_plain


def test_or_binds_fields() -> None:
    parsed = parse_query("author:Bengio OR author:Hinton deep")
    assert parsed.any_of == ((FieldFilter("author", "Bengio"), FieldFilter("author", "Hinton")),)
    assert parsed.text == "deep"


def test_conditions_count_or_groups_once() -> None:
    assert parse_query('a OR b "c d" -e year:2018').conditions == 4


def test_not_a_string_is_an_empty_query() -> None:
    assert parse_query(None).is_plain  # type: ignore[arg-type]


SYNTAX = st.sampled_from(
    ['"', "“", "”", "-", "|", "｜", ":", "：", " ", " OR ", "author:", "au:", "y:", "年份：",
     "title:", "-year:", "..", "2018", "x", "graph", "-", "\\", "\u0000", "é", "作者"]
)  # fmt: skip
QUERIES = st.one_of(st.text(max_size=80), st.lists(SYNTAX, max_size=25).map("".join))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(QUERIES)
def test_never_raises_and_free_text_is_plain(query: str) -> None:
    parsed = parse_query(query)
    again = parse_query(parsed.text)
    assert again.is_plain
    assert again.text == parsed.text
    if parsed.is_plain:
        assert parsed.text == query


PLAIN_WORDS = st.one_of(
    # "OR" is the one word of the syntax (between two words: either of them).
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9+@./'-]{0,12}", fullmatch=True).filter(
        lambda word: word != "OR"
    ),
    st.sampled_from(
        ["self-supervised", "t-SNE", "C++", "10:30", "is:", "http://a.b/c-d", "-", "or"]
    ),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(PLAIN_WORDS, max_size=12).map(" ".join))
def test_plain_text_parses_to_itself(query: str) -> None:
    assert parse_query(query) == ParsedQuery(query, query)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(QUERIES)
def test_the_plain_fast_path_reads_as_the_full_parse(query: str) -> None:
    """A query `parse_query` takes as plain at a glance parses the same the long way."""
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(syntax, "_SYNTAX", re.compile(""))  # matches anything: no fast path
        full = parse_query(query)
    assert parse_query(query) == full
