"""The answer header's line naming the conditions that applied, in the three languages."""

from __future__ import annotations

import pytest

from bot.i18n import LANGUAGES, translator
from bot.render.filter_summary import MAX_VALUE_CHARS, filter_labels, filter_summary
from bot.search.syntax import parse_query

ISSUE_EXAMPLE = "author:Bengio year:2015..2017 generative adversarial networks -image"


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        pytest.param("en", "3 filters: author Bengio · year 2015–2017 · without 'image'", id="en"),
        pytest.param(
            "zh_Hans", "3 个筛选条件：作者 Bengio · 2015–2017 年 · 不含“image”", id="hans"
        ),
        pytest.param(
            "zh_Hant", "3 個篩選條件：作者 Bengio · 2015–2017 年 · 不含「image」", id="hant"
        ),
    ],
)
def test_the_issue_example(lang: str, text: str) -> None:
    assert filter_summary(parse_query(ISSUE_EXAMPLE), translator(lang)) == text  # type: ignore[arg-type]


def test_one_filter_is_singular() -> None:
    parsed = parse_query('"graph neural networks" molecules')
    assert filter_summary(parsed, translator("en")) == "1 filter: with 'graph neural networks'"


def test_a_plain_query_has_no_line() -> None:
    assert filter_summary(parse_query("graph neural networks"), translator("en")) is None


@pytest.mark.parametrize(
    ("query", "label"),
    [
        pytest.param("year:2018", "year 2018", id="year"),
        pytest.param("year:2015..", "year 2015 or later", id="year-from"),
        pytest.param("year:<=2017", "year 2017 or earlier", id="year-until"),
        pytest.param('ti:"attention is all"', "title with 'attention is all'", id="title"),
        pytest.param("venue:ICML", "venue ICML", id="venue"),
        pytest.param("track:main", "track main", id="track"),
        pytest.param("status:oral", "status oral", id="status"),
        pytest.param("-author:Smith", "not author Smith", id="negated-field"),
        pytest.param("gan OR vae | flow", "with 'gan' or with 'vae' or with 'flow'", id="or"),
    ],
)
def test_each_condition_in_words(query: str, label: str) -> None:
    assert filter_labels(parse_query(query), translator("en")) == (label,)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_condition_has_a_label_with_its_value(lang: str) -> None:
    query = (
        "y:2016 y:2015.. y:..2019 y:2014-2015 ti:xx au:yy venue:vv track:tt status:ss"
        ' "pp" -ee -au:nn a OR b'
    )
    labels = filter_labels(parse_query(query), translator(lang))  # type: ignore[arg-type]
    assert len(labels) == 13
    for value in ("2016", "2015", "2019", "2014", "xx", "yy", "vv", "tt", "ss", "pp", "ee", "nn"):
        assert any(value in label for label in labels), value


def test_long_values_are_cut() -> None:
    phrase = " ".join(["word"] * 40)
    (label,) = filter_labels(parse_query(f'"{phrase}"'), translator("en"))
    assert len(label) <= len("with ''") + MAX_VALUE_CHARS
    assert label.endswith("…'")
