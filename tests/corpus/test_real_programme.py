"""The real ICML 2026 programme as the bot serves it: counts, tiers, cards and sessions in
Seoul time (the feed writes -07:00), `day:` by the Seoul date, boards as the feed writes them,
papers not presented on site, `topic:` by area or subarea, and VENUE_TIMEZONE."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bot import answers, render
from bot.config import ConfigError, load_settings
from bot.corpus import LoadReport, Paper, load_corpus
from bot.i18n import translator
from bot.search import Index
from testkit.fake_bot_api import parse_html
from testkit.real_programme import real_programme

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(real_programme() is None, reason="the real feed is not here"),
]
EN, HANS = translator("en"), translator("zh_Hans")


@pytest.fixture(scope="module")
def report() -> LoadReport:
    folder = real_programme()
    assert folder is not None
    return load_corpus([folder])


@pytest.fixture(scope="module")
def index(report: LoadReport) -> Index:
    return Index.build(list(report.papers))


def card(paper: Paper, t=EN) -> str:
    [message] = render.to_html(render.paper_doc(paper, t=t))
    return parse_html(message.text)


def titled(report: LoadReport, start: str) -> Paper:
    return next(p for p in report.papers if p.title.startswith(start))


def test_every_paper_once_with_its_tier(report: LoadReport) -> None:
    assert len(report.papers) == 6628 and report.merged == 168  # each oral joins its poster
    tiers = Counter(paper.tier for paper in report.papers)
    assert tiers["oral"] == 168  # their decision says spotlight: an oral is an Oral
    assert tiers["spotlight"] == 574 - 168


def test_an_orals_card_in_seoul_time(report: LoadReport) -> None:
    text = card(titled(report, "Learning Unmasking Policies for Diffusion Language Models"))
    assert "ICML 2026 · 🎤 Oral" in text and "Spotlight" not in text
    assert "Oral · Tue 7 Jul 10:15–10:30 Seoul time · Hall C" in text
    assert "Poster · Tue 7 Jul 14:00–15:45 Seoul time · HALL A · #2114" in text


def test_a_posters_card_keeps_the_feeds_board(report: LoadReport) -> None:
    text = card(titled(report, "WorldCompass"))
    assert "Poster · Tue 7 Jul 10:30–12:15 Seoul time · HALL A · #108" in text
    assert "##" not in text
    llm = next(p for p in report.papers if p.topic == "Deep Learning->Large Language Models")
    assert "Topic: Deep Learning → Large Language Models" in card(llm)
    assert "海报 · 7月7日 周二 10:30–12:15 首尔时间" in card(titled(report, "WorldCompass"), HANS)


def test_papers_not_presented_on_site_say_so(report: LoadReport) -> None:
    posters = [s for p in report.papers for s in p.presentations if s.kind == "poster"]
    assert sum(not s.on_site for s in posters) == 763  # no session, start or end in the feed
    away = [p for p in report.papers if not any(s.on_site for s in p.presentations)]
    assert len(away) == 762  # one of them is an oral, presented on site as a talk
    assert "Poster · not presented on site" in card(away[0])


def test_boards_repeat_across_sessions(report: LoadReport) -> None:
    sessions_of = Counter(
        s.board for p in report.papers for s in p.presentations if s.board == "#107"
    )
    assert sessions_of["#107"] >= 8  # unique within a session only


def test_session_one_is_tuesday_morning_in_seoul(index: Index) -> None:
    programme = answers.corpus_facts(index.papers).programme
    text = parse_html(render.to_html(answers.session(programme, "1", t=EN).doc)[0].text)
    assert text.startswith("Poster Session 1\nTue 7 Jul 10:30–12:15 Seoul time · HALL A\n")
    assert "785 papers" in text and "##" not in text


def test_day_and_status_read_the_seoul_date(index: Index) -> None:
    result = answers.results(index, "day:tue status:oral diffusion", limit=20)
    assert result.hits
    for hit in result.hits:
        (talk,) = [s for s in hit.paper.presentations if s.kind == "oral"]
        assert talk.starts_at is not None and talk.starts_at.strftime("%a") == "Tue"
        assert hit.paper.tier == "oral"


@pytest.mark.parametrize("topic", ["Deep Learning", "Large Language Models"])
def test_topic_matches_an_area_or_a_subarea(index: Index, topic: str) -> None:
    want = {p.id for p in index.papers if topic in p.topic.split("->")}
    result = answers.results(index, f'topic:"{topic}"', limit=10_000, snippets=False)
    assert want and {hit.paper.id for hit in result.hits} == want


def test_venue_timezone_overrides_the_table(report: LoadReport, tmp_path: Path) -> None:
    folder = real_programme()
    assert folder is not None
    berlin = load_corpus([folder], venue_timezone="Europe/Berlin")
    paper = next(p for p in berlin.papers if p.title.startswith("WorldCompass"))
    assert "Poster · Tue 7 Jul 03:30–05:15 Berlin time · HALL A · #108" in card(paper)


def test_a_bad_venue_timezone_is_a_start_up_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="VENUE_TIMEZONE"):
        load_settings({"VENUE_TIMEZONE": "Mars/Olympus"}, env_file=tmp_path / "none")
