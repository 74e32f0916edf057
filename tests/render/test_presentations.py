"""The programme where users look: the card's tier, presentations and institutions, the badge
of each listed paper, in three languages, in the venue's own time; escaped and within limits."""

from __future__ import annotations

import dataclasses

import pytest

from bot import render
from bot.answers import results
from bot.corpus import Paper, Presentation
from bot.i18n import translator
from bot.render.limits import INLINE_DESCRIPTION_CHARS, MAX_MESSAGE_CHARS
from bot.render.presentations import hit_badge, kind_label
from bot.search import Hit, Index
from bot.search.snippets.sentences import Snippet
from testkit.fake_bot_api import parse_html, utf16_len
from testkit.week import load_week

EN, HANS, HANT = translator("en"), translator("zh_Hans"), translator("zh_Hant")


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Paper]:
    return load_week(tmp_path_factory.mktemp("week"))


def card_text(paper: Paper, t=EN) -> str:
    [message] = render.to_html(render.paper_doc(paper, t=t))
    return parse_html(message.text)


@pytest.mark.parametrize(
    ("t", "lines"),
    [
        pytest.param(EN, [
            "ICML 2026 · 🎤 Oral",
            "Oral · Tue 14 Jul 10:00–10:15 Seoul time · West Ballroom A",
            "Poster · Wed 15 Jul 11:00–13:30 Seoul time · East Exhibition Hall A-B · #E-300",
            "Topic: Theory → Learning Theory",
            "Institutions: KAIST, Mila",
        ], id="en"),
        pytest.param(HANS, [
            "ICML 2026 · 🎤 口头报告",
            "口头报告 · 7月14日 周二 10:00–10:15 首尔时间 · West Ballroom A",
            "海报 · 7月15日 周三 11:00–13:30 首尔时间 · East Exhibition Hall A-B · #E-300",
            "主题：Theory → Learning Theory",
            "机构：KAIST, Mila",
        ], id="zh_Hans"),
        pytest.param(HANT, [
            "ICML 2026 · 🎤 口頭報告",
            "口頭報告 · 7月14日 週二 10:00–10:15 首爾時間 · West Ballroom A",
            "海報 · 7月15日 週三 11:00–13:30 首爾時間 · East Exhibition Hall A-B · #E-300",
            "主題：Theory → Learning Theory",
            "機構：KAIST, Mila",
        ], id="zh_Hant"),
    ],
)  # fmt: skip
def test_a_card_says_the_tier_when_and_where_and_the_institutions(week, t, lines) -> None:
    text = card_text(week["D"], t)
    title, authors, *rest = text.split("\n\n")[0].split("\n")
    assert (title, authors) == (week["D"].title, "D. Author, Jia Chen")
    assert rest == lines


def test_the_times_are_the_venues_as_the_feed_gives_them(week) -> None:
    # L's oral is at 08:30 in Seoul on Wednesday, still Tuesday in UTC: Wednesday it says.
    assert "Oral · Wed 15 Jul 08:30–08:45 Seoul time · West Ballroom B" in card_text(week["L"])
    elsewhere = Presentation("poster", start="2026-12-01T18:30:00-08:00", room="Hall <B> & C")
    paper = dataclasses.replace(week["A"], presentations=(elsewhere,), affiliations=())
    text = card_text(paper)
    # No venue's clock known: its own offset, said as such; not 02:30 on Wednesday (UTC).
    assert "Poster · Tue 1 Dec 18:30 UTC-08:00 · Hall <B> & C" in text
    assert "Institutions" not in text
    [message] = render.to_html(render.paper_doc(paper))
    assert "Hall &lt;B&gt; &amp; C" in message.text


def test_a_paper_not_presented_on_site_says_so(week) -> None:
    text = card_text(week["J"])
    assert "Poster · not presented on site" in text and "ICML 2026 · Poster" in text
    assert "未在现场展示" in card_text(week["J"], HANS)
    assert "Poster · East Exhibition Hall A-B · #E-999" in card_text(week["I"])  # no time


def test_a_card_stays_within_a_message(week) -> None:
    many = tuple(
        Presentation("poster", "S", f"2026-07-{14 + n % 5}T11:00:00+09:00", room="R" * 300,
                     position="P" * 300)
        for n in range(40)
    )  # fmt: skip
    paper = dataclasses.replace(
        week["A"], presentations=many, authors=("X",) * 200, affiliations=("Inst " * 50,) * 200
    )
    for t in (EN, HANS, HANT):
        for message in render.to_html(render.paper_doc(paper, t=t)):
            assert utf16_len(message.text) <= MAX_MESSAGE_CHARS
        assert card_text(paper, t).count("\n" + kind_label("poster", t)) <= 6


@pytest.mark.parametrize(
    ("name", "en", "hans", "hant"),
    [
        (
            "D",
            "🎤 Oral · Tue 10:00 Seoul time",
            "🎤 口头报告 · 周二 10:00 首尔时间",
            "🎤 口頭報告 · 週二 10:00 首爾時間",
        ),
        (
            "A",
            "Poster · Tue 11:00 Seoul time",
            "海报 · 周二 11:00 首尔时间",
            "海報 · 週二 11:00 首爾時間",
        ),
        (
            "L",
            "🎤 Oral · Wed 08:30 Seoul time",
            "🎤 口头报告 · 周三 08:30 首尔时间",
            "🎤 口頭報告 · 週三 08:30 首爾時間",
        ),
        ("I", "", "", ""),  # a poster with no time: nothing to say
    ],
)
def test_each_listed_paper_gets_a_compact_badge(week, name, en, hans, hant) -> None:
    paper = week[name]
    assert [hit_badge(paper, t) for t in (EN, HANS, HANT)] == [en, hans, hant]


def test_a_tier_without_a_time_is_badged_above_poster_only(week) -> None:
    spotlight = dataclasses.replace(week["J"], status="spotlight")
    assert hit_badge(spotlight, HANS) == "✨ 亮点报告"
    assert hit_badge(dataclasses.replace(week["J"], status="poster")) == ""
    assert hit_badge(dataclasses.replace(week["J"], status="", venue="")) == ""


def test_results_similar_and_author_lists_carry_the_badge(week) -> None:
    index = Index.build(list(week.values()))
    result = results(index, "provably stable policy gradients", limit=3)
    page = parse_html(render.to_html(render.results_doc(result, per_page=5))[0].text)
    assert page.split("\n\n")[1].split("\n")[2] == "🎤 Oral · Tue 10:15 Seoul time"
    hits = index.similar(week["D"].id, limit=5)
    similar = parse_html(render.to_html(render.similar_doc(week["D"], hits, t=HANT))[0].text)
    assert similar.count(" · 週") >= len(hits) - 1  # every timed hit names its day
    doc = render.author_doc("Jia Chen", index.by_author("Jia Chen"))
    listed = parse_html(render.to_html(doc)[0].text)
    first = listed.split("\n\n")[1].split("\n")  # a poster, then an oral paper
    assert first[2:] == [
        "Poster · Tue 11:00 Seoul time",
        "ICML 2026",
    ]  # the tier once, in the badge
    assert "🎤 Oral · Tue 10:00 Seoul time\nICML 2026\n" in listed + "\n"


def test_an_inline_description_starts_with_the_badge(week) -> None:
    paper = week["G"]
    hit = Hit(paper, 1.0, Snippet("Speculative decoding for long contexts: what it shows.", ()))
    for t, badge in (
        (EN, "🎤 Oral · Wed 11:30 Seoul time"),
        (HANS, "🎤 口头报告 · 周三 11:30 首尔时间"),
    ):
        article = render.inline_article(paper, hit, t=t)
        assert article.description.startswith(badge + " · Speculative decoding")
        assert len(article.description) <= INLINE_DESCRIPTION_CHARS
    plain = render.inline_article(week["I"], t=EN)
    assert not plain.description.startswith("·")
