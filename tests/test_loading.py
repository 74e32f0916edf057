"""The one load path: corpus paths from settings or the command line, empty corpora refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.answers import results
from bot.config import Settings
from bot.corpus import CorpusError
from bot.loading import EmptyCorpusError, corpus_paths, load_index
from testkit.paths import SEED_CORPUS


def test_given_paths_win_over_settings() -> None:
    settings = Settings(corpus=(Path("/configured"),))
    assert corpus_paths(settings, ["a.jsonl", "b"]) == [Path("a.jsonl"), Path("b")]
    assert corpus_paths(settings, None) == [Path("/configured")]


def test_load_index_serves_the_seed_corpus() -> None:
    report, index = load_index([SEED_CORPUS])
    assert report.papers and len(index) == len(report.papers)


def test_a_corpus_without_papers_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("not a corpus format\n")
    with pytest.raises(CorpusError, match="no"):
        load_index([tmp_path])


def test_no_papers_is_a_corpus_error() -> None:
    assert issubclass(EmptyCorpusError, CorpusError)  # every caller's CorpusError path holds


@pytest.mark.slow
def test_a_large_corpus_is_built_in_another_process(tmp_path: Path, monkeypatch) -> None:
    from bot.search import Index
    from bot.search.storage.columns import PaperColumns

    built_here: list[int] = []
    real_build = Index.build.__func__  # type: ignore[attr-defined]

    def counting_build(cls, papers, **kwargs):  # type: ignore[no-untyped-def]
        built_here.append(len(papers))
        return real_build(cls, papers, **kwargs)

    monkeypatch.setattr(Index, "build", classmethod(counting_build))
    report, index = load_index([SEED_CORPUS], tmp_path, separate_build_bytes=0)
    assert built_here == []  # the child built it and wrote the cache
    assert list(tmp_path.glob("index-*.idx"))
    assert isinstance(index.papers, PaperColumns)  # served from the memory-mapped cache
    fresh = Index.build(tuple(report.papers))
    query = "decision tree attention"
    assert [h.paper for h in results(index, query).hits] == [
        h.paper for h in results(fresh, query).hits
    ]


@pytest.mark.slow
def test_a_failed_separate_build_reports_the_loader_error(tmp_path: Path, caplog) -> None:
    corpus = tmp_path / "broken.json"  # an unclosed array: the file as a whole is unreadable
    corpus.write_text('[{"id": "a", "title": "T", "abstract": "A text."},\n{not json\n')
    with pytest.raises(CorpusError) as raised:
        load_index([corpus], tmp_path / "cache", separate_build_bytes=0)
    assert raised.value.path == str(corpus) and raised.value.line == 2
    assert "building here" not in caplog.text  # the child's error, not a second load


@pytest.mark.slow
def test_a_corpus_without_papers_is_refused_after_a_separate_build(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "notes.md").write_text("not a corpus format\n")
    with pytest.raises(CorpusError, match="no"):
        load_index([corpus], tmp_path / "cache", separate_build_bytes=0)
