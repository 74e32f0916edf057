"""The served corpus's facts: its programme, built once per index for each front end."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot.answers import FactsMemo, corpus_facts
from bot.answers.about import programme_of
from bot.cli.session import ConsoleSession
from bot.corpus import Fetched, Paper
from bot.fetch.sources import replace_together
from bot.loading import load_index
from bot.planner import build_programme
from bot.search import Index
from testkit.programme import write_feed
from testkit.week import load_week, week_events


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Paper]:
    return load_week(tmp_path_factory.mktemp("week"))


def test_the_programme_of_a_corpus_is_its_papers_sessions(week: dict[str, Paper]) -> None:
    papers = list(week.values())
    facts = corpus_facts(papers)
    assert facts.programme == build_programme(papers)
    assert [s.name for s in facts.programme.find("3")] == ["Poster Session 3"]


def test_a_corpus_without_presentations_has_an_empty_programme(papers) -> None:
    assert not programme_of(papers)


def test_a_cached_corpus_gives_the_same_programme(tmp_path: Path) -> None:
    feed = write_feed(tmp_path / "feed", week_events(), {})
    cache = tmp_path / "cache"
    load_index([feed], cache, cache_min_papers=0)
    _report, cached = load_index([feed], cache, cache_min_papers=0)
    assert type(cached.papers).__name__ == "PaperColumns"  # read back as columns
    assert programme_of(cached.papers) == build_programme(cached.papers)
    assert programme_of(cached.papers)


def test_the_facts_say_when_the_served_files_were_fetched_cached_or_not(tmp_path: Path) -> None:
    feed = write_feed(tmp_path / "feed", week_events(), {})
    _report, fresh = load_index([feed.parent])
    assert corpus_facts(fresh.papers).fetched is None  # files of one's own: nothing to say
    url = "https://icml.cc/static/virtual/data/icml-2026-orals-posters.json"
    at = datetime(2026, 7, 14, 3, 0, tzinfo=UTC)
    replace_together(feed.parent, {feed.name: feed.read_bytes()}, source=url, at=at)
    cache = tmp_path / "cache"
    for _ in range(2):  # built, then read back from the cache
        _report, index = load_index([feed.parent], cache, cache_min_papers=0)
        assert corpus_facts(index.papers).fetched == Fetched(date(2026, 7, 14), url)


def test_the_memo_builds_once_per_index(week: dict[str, Paper]) -> None:
    index = Index.build(list(week.values()))
    memo = FactsMemo()
    first = memo.of(index)
    assert memo.of(index) is first
    assert memo.of(Index.build(list(week.values()))) is not first  # another index: anew


def test_the_console_session_serves_the_programme(week: dict[str, Paper], index) -> None:
    session = ConsoleSession(Index.build(list(week.values())))
    assert session.programme() is session.programme()
    assert [s.name for s in session.programme().find("Oral 2B")] == [
        "Oral 2B Large Language Models"
    ]
    assert not ConsoleSession(index).programme()  # the seeds have no programme
