"""The one load path: corpus paths from settings or the command line, empty corpora refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import DEFAULT_CORPUS, Settings
from bot.corpus import CorpusError
from bot.runtime import EmptyCorpusError, corpus_paths, load_index


def test_given_paths_win_over_settings() -> None:
    settings = Settings(corpus=(Path("/configured"),))
    assert corpus_paths(settings, ["a.jsonl", "b"]) == [Path("a.jsonl"), Path("b")]
    assert corpus_paths(settings, None) == [Path("/configured")]


def test_load_index_serves_the_seed_corpus() -> None:
    report, index = load_index([DEFAULT_CORPUS])
    assert report.papers and len(index) == len(report.papers)


def test_a_corpus_without_papers_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("not a corpus format\n")
    with pytest.raises(CorpusError, match="no"):
        load_index([tmp_path])


def test_no_papers_is_a_corpus_error() -> None:
    assert issubclass(EmptyCorpusError, CorpusError)  # every caller's CorpusError path holds
