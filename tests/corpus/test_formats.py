"""Every real-world shape loads, is found by a title word and an author's surname, and shows its
authors, venue and links in `/paper` (the real render path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot import cli, render
from bot.answers import results
from bot.corpus import LoadReport, StrictCorpusError, compact_authors, load_corpus
from bot.search import Index
from testkit.fake_bot_api import parse_html
from testkit.paths import TEST_DATA

DATA = TEST_DATA


def _card(paper) -> str:
    """`/paper`'s card as Telegram would show it (plain text), after the fake API's HTML check."""
    [message] = render.to_html(render.paper_doc(paper))
    return parse_html(message.text)


def _links(paper) -> list[str]:
    [message] = render.to_html(render.paper_doc(paper))
    return [url for _label, url in paper.links if f'<a href="{url}">' in message.text]


@pytest.mark.parametrize(
    ("name", "title_word", "surname", "title", "venue", "link"),
    [
        pytest.param(
            "paperlists_icml2025.json",
            "Koopman",
            "Qiu",
            "K²VAE: A Koopman-Kalman",
            "main · Poster",
            "https://icml.cc/virtual/2025/poster/46346",
            id="paperlists-no-abstracts",
        ),
        pytest.param(
            "arxiv_snapshot.jsonl",
            "tabular",
            "Jones",
            "Contrastive Pretraining for Tabular Data",
            "2024",
            "https://arxiv.org/abs/2401.01234",
            id="arxiv-snapshot",
        ),
        pytest.param(
            "openreview_v2.json",
            "denoising",
            "Mensah",
            "Diffusion Policies with Test-Time Constraint Guidance",
            "ICML 2025",  # the venue; its tier ("poster") is the status
            "https://openreview.net/forum?id=aB3dE-fGh1",
            id="openreview",
        ),
        pytest.param(
            "papers.bib",
            "convex",
            "Ortega",
            "Sharp Rates for Private Stochastic Convex",
            "International Conference on Machine Learning",
            "https://proceedings.mlr.press/v267/muller25a.html",
            id="bibtex",
        ),
        pytest.param(
            "papers_semicolon_bom.csv",
            "surrogate",
            "Duarte",
            "Warm Starts for Bayesian Optimization",
            "2024",
            "https://arxiv.org/pdf/2406.01010",
            id="csv-bom-semicolon",
        ),
    ],
)
def test_each_shape_loads_is_found_and_shows_authors_venue_links(
    name: str, title_word: str, surname: str, title: str, venue: str, link: str
) -> None:
    report = load_corpus([DATA / name])
    index = Index.build(report.papers)
    [by_word] = [h.paper for h in results(index, title_word, limit=1).hits]
    assert by_word.title.startswith(title)
    by_author = index.by_author(surname)
    assert by_word in by_author
    assert index.named_author(surname)  # a plain question that is just the name
    card = _card(by_word)
    assert ", ".join(by_word.authors) in card and surname in card
    assert venue in card
    assert link in _links(by_word)  # clickable


def test_a_title_only_paper_is_found_by_keyword_and_shown_without_a_snippet() -> None:
    index = Index.build(load_corpus([DATA / "paperlists_icml2025.json"]).papers)
    [hit] = results(index, "federated learning client drift", limit=1).hits
    assert hit.paper.title == "Federated Graph Prompting under Client Drift"
    assert hit.paper.abstract == "" and hit.snippet.text == ""
    [message] = render.to_html(
        render.results_doc(results(index, "federated learning client drift", limit=1), per_page=5)
    )
    text = parse_html(message.text)
    assert "Mei Tanaka, Rahul Venkataraman, Olga Petrova" in text  # three names: all shown
    assert "/paper_site_1c07f2ab94" in text


def test_answers_show_authors_compactly() -> None:
    index = Index.build(load_corpus([DATA / "openreview_v2.json"]).papers)
    result = results(index, "diffusion policies constraint guidance", limit=1)
    [message] = render.to_html(render.results_doc(result, per_page=5))
    assert "Laura Fernández, Kwame Mensah, Yi-Ting Lin" in parse_html(message.text)
    long = (*result.hits[0].paper.authors, "D. Fourth")
    assert compact_authors(long) == "Laura Fernández, Kwame Mensah et al."


def test_author_search_tolerates_initials_accents_and_order() -> None:
    index = Index.build(load_corpus([DATA]).papers)
    found = {p.id for p in index.by_author("Jonas Müller")}
    assert found and all(
        {p.id for p in index.by_author(form)} == found
        for form in ("J. Müller", "jonas muller", "Müller, Jonas", "muller")
    )
    assert not index.by_author("K. Müller")


def test_jsonl_with_two_empty_records_loads_28_and_says_so() -> None:
    report = load_corpus([DATA / "thirty_two_empty.jsonl"])
    assert len(report.papers) == 28 and report.bad_records == 2
    assert report.summary() == "28 papers from 1 file; 2 skipped (2 bad records)"
    assert [line.split(": ", 1)[0].rsplit(":", 1)[1] for line in report.skipped] == ["9", "22"]


def test_strict_refuses_the_jsonl_naming_every_bad_line() -> None:
    with pytest.raises(StrictCorpusError) as info:
        load_corpus([DATA / "thirty_two_empty.jsonl"], strict=True)
    assert [p.split(":")[-2] for p in info.value.problems] == ["9", "22"]


def test_cli_strict_refuses_and_names_the_lines(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / "thirty_two_empty.jsonl")
    assert cli.main(["search", "--corpus", path, "--strict", "privacy"]) == 2
    err = capsys.readouterr().err
    assert "2 bad records" in err
    assert "thirty_two_empty.jsonl:9:" in err and "thirty_two_empty.jsonl:22:" in err


def test_cli_without_strict_answers_and_reports_the_skips(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(DATA / "thirty_two_empty.jsonl")
    assert cli.main(["search", "--corpus", path, "--json", "private fine-tuning"]) == 0
    out, err = capsys.readouterr()
    assert "28 papers from 1 file; 2 skipped" in err
    authors = [hit["authors"] for hit in json.loads(out)["results"]]
    assert ["Sara Lindgren", "Tomasz Nowak"] in authors


def test_cli_author_lists_a_persons_papers(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["search", "--corpus", str(DATA), "--author", "J. Müller", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["author"] == "J. Müller"
    assert any("Sharp Rates for Private" in hit["title"] for hit in answer["results"])


def test_corpus_strict_setting_makes_the_bot_refuse_bad_records(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CORPUS_STRICT", "true")
    path = str(DATA / "thirty_two_empty.jsonl")
    assert cli.main(["search", "--corpus", path, "privacy"]) == 2
    assert "thirty_two_empty.jsonl:22:" in capsys.readouterr().err


def test_a_cached_corpus_is_refused_by_strict_too(tmp_path: Path) -> None:
    from bot.loading import load_index

    path = tmp_path / "c.jsonl"
    path.write_text((DATA / "thirty_two_empty.jsonl").read_text(encoding="utf-8"), "utf-8")
    report, _ = load_index([path], tmp_path / "cache")
    assert isinstance(report, LoadReport) and report.bad_records == 2
    with pytest.raises(StrictCorpusError):
        load_index([path], tmp_path / "cache", strict=True)


def test_a_typed_original_id_finds_the_paper() -> None:
    index = Index.build(load_corpus([DATA / "arxiv_snapshot.jsonl"]).papers)
    paper = index.get("2401_01234")
    assert paper is not None and paper.source_id == "2401.01234"
    for typed in ("2401.01234", "arXiv:2401.01234", "/paper_2401_01234"):
        assert index.get(typed) is paper
