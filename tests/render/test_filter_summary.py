"""The answer header's line naming the conditions that applied, in the three languages."""

from __future__ import annotations

import pytest

from bot.i18n import LANGUAGES, translator
from bot.render.questions import MAX_VALUE_CHARS, filter_labels, filter_summary
from bot.search.query.syntax import parse_query

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
        pytest.param("status:oral", "status Oral", id="status"),
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


PROGRAMME_EXAMPLE = "session:3 day:2026-07-15 diffusion"


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        pytest.param("en", "2 filters: session Poster Session 3 · day Wed 15 Jul", id="en"),
        pytest.param("zh_Hans", "2 个筛选条件：场次 海报第 3 场 · 日期 7月15日 周三", id="hans"),
        pytest.param("zh_Hant", "2 個篩選條件：場次 海報第 3 場 · 日期 7月15日 週三", id="hant"),
    ],
)
def test_the_programme_example(lang: str, text: str) -> None:
    assert filter_summary(parse_query(PROGRAMME_EXAMPLE), translator(lang)) == text  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "en", "hans", "hant"),
    [
        pytest.param('session:"Oral 2B"', "session Oral 2B", "场次 Oral 2B", "場次 Oral 2B",
                     id="session-name"),
        pytest.param("day:thu", "day Thu", "日期 周四", "日期 週四", id="weekday"),
        pytest.param("day:今天", "day today", "日期 今天", "日期 今天", id="today"),
        pytest.param("day:tomorrow", "day tomorrow", "日期 明天", "日期 明天", id="tomorrow"),
        pytest.param("day:7/14", "day 14 Jul", "日期 7月14日", "日期 7月14日", id="month-day"),
        pytest.param("day:2025-12-03", "day Wed 3 Dec", "日期 12月3日 周三", "日期 12月3日 週三",
                     id="another-date"),
        pytest.param('room:"West Ballroom A"', "room West Ballroom A", "会场 West Ballroom A",
                     "會場 West Ballroom A", id="room"),
        pytest.param("机构:tsinghua", "institution tsinghua", "机构 tsinghua", "機構 tsinghua",
                     id="institution"),
        pytest.param("topic:theory", "topic theory", "主题 theory", "主題 theory", id="topic"),
        pytest.param("status:poster", "status Poster", "状态 海报", "狀態 海報", id="status"),
        pytest.param("-session:3", "not session Poster Session 3", "排除场次 海报第 3 场",
                     "排除場次 海報第 3 場", id="negated-session"),
        pytest.param("session:3 OR day:wed", "session Poster Session 3 or day Wed",
                     "场次 海报第 3 场或日期 周三", "場次 海報第 3 場或日期 週三", id="or"),
    ],
)  # fmt: skip
def test_each_programme_condition_in_three_languages(
    query: str, en: str, hans: str, hant: str
) -> None:
    for lang, label in (("en", en), ("zh_Hans", hans), ("zh_Hant", hant)):
        assert filter_labels(parse_query(query), translator(lang)) == (label,), lang  # type: ignore[arg-type]
