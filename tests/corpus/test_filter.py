"""A load filter keeps only matching records, deciding most lines before parsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.corpus import LoadFilter, load_corpus
from bot.corpus.model import Paper
from testkit.paths import TEST_DATA

DATA = TEST_DATA


def _paper(**fields: object) -> Paper:
    return Paper(id="x", title="T", abstract="A", **fields)  # type: ignore[arg-type]


def test_terms_on_different_fields_all_hold_alternatives_any() -> None:
    keep = LoadFilter.parse("categories:cs.LG,stat.ML year:2024-2025")
    assert keep is not None
    assert keep.matches(_paper(keywords=("stat.ML",), year=2024))
    assert keep.matches(_paper(keywords=("cs.lg",), year=2025))  # categories in any case
    assert not keep.matches(_paper(keywords=("cs.LG",), year=2023))
    assert not keep.matches(_paper(keywords=("cs.CV",), year=2025))
    assert not keep.matches(_paper(keywords=("cs.LG",)))  # no year: not from 2024-2025


def test_venue_and_author_terms() -> None:
    keep = LoadFilter.parse("venue:icml author:Mueller")
    assert keep is not None
    assert keep.matches(_paper(venue="Proceedings of ICML 2025", authors=("Jonas Müller",)))
    assert not keep.matches(_paper(venue="NeurIPS", authors=("Jonas Müller",)))


@pytest.mark.parametrize("text", ["cs.LG", "colour:red", "year:25", "year:2025-2020", "year:"])
def test_a_bad_filter_says_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match="filter"):
        LoadFilter.parse(text)


def test_an_empty_filter_is_none() -> None:
    assert LoadFilter.parse("  ") is None


def test_the_raw_line_test_never_drops_a_match() -> None:
    keep = LoadFilter.parse("categories:cs.NE year:2024")
    assert keep is not None
    lines = (DATA / "arxiv_snapshot.jsonl").read_bytes().splitlines()
    matching = [p for p in load_corpus([DATA / "arxiv_snapshot.jsonl"]).papers if keep.matches(p)]
    assert matching
    assert all(keep.may_match(lines[p.line - 1]) for p in matching)
    assert not keep.may_match(b'{"categories": "cs.CV", "update_date": "2024-01-01"}')


def test_a_snapshot_loads_only_the_matching_slice(tmp_path: Path) -> None:
    snapshot = tmp_path / "arxiv-metadata-oai-snapshot.json"
    snapshot.write_bytes((DATA / "arxiv_snapshot.jsonl").read_bytes())
    everything = load_corpus([snapshot]).papers
    keep = LoadFilter.parse("categories:cs.LG year:2024")
    report = load_corpus([snapshot], keep=keep)
    assert keep is not None
    assert report.papers == tuple(p for p in everything if keep.matches(p))
    assert 0 < len(report.papers) < len(everything)
    left_out = len(everything) - len(report.papers)
    assert report.skipped[-1] == f"filter 'categories:cs.LG year:2024': {left_out} records left out"


@pytest.mark.slow
def test_progress_is_reported_on_a_long_load(tmp_path: Path, monkeypatch) -> None:
    from bot.corpus import loader

    path = tmp_path / "many.jsonl"
    lines = (json.dumps({"title": f"Paper {i}", "abstract": f"Text {i}."}) for i in range(9000))
    path.write_text("\n".join(lines) + "\n")
    clock = iter(range(0, 10**6, 3))  # every tick three "seconds" later: no real waiting
    monkeypatch.setattr(loader.time, "monotonic", lambda: float(next(clock)))
    said: list[str] = []
    load_corpus([path], progress=said.append)
    assert said and all(line.startswith(f"corpus: reading {path}: ") for line in said)
    assert said[0].endswith(": 8,192 records, 6 s")  # the first tick past 5 s


def test_a_term_with_accents_is_decided_on_the_parsed_record() -> None:
    keep = LoadFilter.parse("venue:Zürich")
    assert keep is not None
    assert keep.may_match(b'{"venue": "ETH Z\\u00fcrich"}')  # JSON's escape: no false "no"


# --- the load path: CORPUS_FILTER and `search --filter`, `--author` totals ---------------------


def test_corpus_filter_setting_is_checked_at_start_up() -> None:
    from bot.config import ConfigError, load_settings

    assert load_settings(
        {"CORPUS_FILTER": " year:2024  cat:cs.LG "}, env_file=None
    ).corpus_filter == ("year:2024 cat:cs.LG")
    with pytest.raises(ConfigError, match="CORPUS_FILTER"):
        load_settings({"CORPUS_FILTER": "colour:red"}, env_file=None)


def _cli_json(capsys, *argv: str) -> dict:
    from bot import cli

    assert cli.main(["search", "--json", "--no-semantic", *argv]) == 0
    return json.loads(capsys.readouterr().out.splitlines()[-1])


def test_search_filter_loads_only_the_slice(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("INDEX_CACHE_DIR", str(tmp_path / "cache"))
    snapshot = str(DATA / "arxiv_snapshot.jsonl")
    answer = _cli_json(capsys, "--corpus", snapshot, "--filter", "categories:cs.NE", "models")
    assert [r["id"] for r in answer["results"]] == ["2402_05678"]
    answer = _cli_json(capsys, "--corpus", snapshot, "models")
    assert len(answer["results"]) > 1  # the unfiltered load is not served from the slice's cache


def test_search_filter_typo_is_a_usage_error(capsys) -> None:
    from bot import cli

    code = cli.main(
        ["search", "--corpus", str(DATA / "arxiv_snapshot.jsonl"), "--filter", "x", "q"]
    )
    assert code == cli.EXIT_USAGE
    assert "--filter" in capsys.readouterr().err


def test_author_lookup_says_how_many_match_beyond_those_shown(tmp_path: Path, capsys) -> None:
    path = tmp_path / "many.jsonl"
    records = (
        {"title": f"Paper {i}", "abstract": f"Text {i}.", "authors": "Ana Ortega"}
        for i in range(14)
    )
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    answer = _cli_json(capsys, "--corpus", str(path), "--author", "Ortega", "--limit", "5")
    assert answer["total"] == 14 and len(answer["results"]) == 5
    from bot import cli

    assert cli.main(["search", "--corpus", str(path), "--author", "Ortega", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("14 papers by Ortega") and "… and 9 more" in out
