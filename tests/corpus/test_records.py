"""Record normalisation over one tests/data file per real-world shape, CSV and BibTeX readers."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.corpus.model import Paper
from bot.corpus.readers.bibtex import read_bibtex_entries as read_bibtex
from bot.corpus.readers.csv_table import MissingColumnError, read_csv_records, sniff_delimiter
from bot.corpus.records import canonical_field, normalise_record
from testkit.paths import TEST_DATA

DATA = TEST_DATA


def _fields(raw: dict[str, object]) -> Paper:
    """The record's fields; fails the test if it was refused."""
    fields = normalise_record(raw)
    assert isinstance(fields, Paper), fields
    return fields


def _json(name: str) -> list[dict[str, object]]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def _jsonl(name: str) -> list[dict[str, object]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize(
    ("column", "field"),
    [
        pytest.param("Title", "title", id="title-case"),
        pytest.param("paperAbstract", "abstract", id="camel"),
        pytest.param("summary", "abstract", id="summary"),
        pytest.param("Author", "authors", id="author"),
        pytest.param("paper_id", "source_id", id="paper-id"),
        pytest.param("journal-ref", "venue", id="dash"),
        pytest.param("PDF", "pdf", id="pdf"),
        pytest.param("github", "code", id="github"),
        pytest.param("site", "url", id="site"),
        pytest.param("favourite colour", None, id="unknown"),
    ],
)
def test_field_names_match_case_insensitively_with_synonyms(column: str, field: str) -> None:
    assert canonical_field(column) == field


def test_paperlists_array_without_abstracts() -> None:
    papers = [_fields(raw) for raw in _json("paperlists_icml2025.json")]
    k2vae = papers[0]
    assert k2vae.title == (
        "K²VAE: A Koopman-Kalman Enhanced Variational AutoEncoder for Probabilistic Time "
        "Series Forecasting"
    )
    assert k2vae.abstract == ""
    assert k2vae.authors == ("Xingjian Wu", "Xiangfei Qiu", "Hongfan Gao")
    assert k2vae.keywords == ("time series forecasting", "variational autoencoder",
                              "Koopman operator")  # fmt: skip
    assert (k2vae.status, k2vae.track, k2vae.source_id) == ("Poster", "main", "site_8aee33c0ce")
    assert k2vae.links == (("Page", "https://icml.cc/virtual/2025/poster/46346"),)
    assert papers[1].authors == ("Mei Tanaka", "Rahul Venkataraman", "Olga Petrova")  # "authors"
    assert papers[4].title == "Sparse Mixture-of-Experts Routing with Optimal Transport"
    assert papers[5].keywords == ()


def test_arxiv_snapshot_jsonl() -> None:
    papers = [_fields(raw) for raw in _jsonl("arxiv_snapshot.jsonl")]
    first = papers[0]
    assert first.title == "Contrastive Pretraining for Tabular Data with Missing Values"
    assert first.abstract.startswith("Tabular datasets in medicine and finance often have")
    assert "\n" not in first.abstract and "  " not in first.abstract
    assert first.authors == ("A. Smith", "B. Jones", "C. Lee")
    assert first.keywords == ("cs.LG", "stat.ML")
    assert first.year == 2024
    assert first.links == (("arXiv", "https://arxiv.org/abs/2401.01234"),)
    second = papers[1]
    assert second.authors == ("Jürgen Bauer", "Marta Rossi")
    assert second.venue == "Proceedings of ICML 2024, PMLR 235"
    assert ("DOI", "https://doi.org/10.48550/arXiv.2402.05678") in second.links
    old = papers[2]
    assert old.links[0] == ("arXiv", "https://arxiv.org/abs/hep-th/9901001")
    assert old.year == 2008  # update_date, as the snapshot gives it


def test_openreview_v2_nesting_and_v1_plain_content() -> None:
    papers = [_fields(raw) for raw in _json("openreview_v2.json")]
    first = papers[0]
    assert first.title == "Diffusion Policies with Test-Time Constraint Guidance"
    assert first.authors == ("Laura Fernández", "Kwame Mensah", "Yi-Ting Lin")
    assert first.keywords == ("diffusion models", "robot learning", "constrained sampling")
    assert first.venue == "ICML 2025 poster"
    assert first.year == 2025
    assert first.source_id == "aB3dE-fGh1"
    assert first.links == (
        ("Page", "https://openreview.net/forum?id=aB3dE-fGh1"),
        ("PDF", "https://openreview.net/pdf/3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a.pdf"),
        ("Code", "https://github.com/lfernandez/constrained-diffusion-policies"),
    )
    assert papers[1].title == "On the Expressivity of SE(3)-Equivariant Message Passing"
    v1 = papers[3]
    assert v1.title == "Tree Search Distillation for Small Language Models"
    assert v1.authors == ("Chioma Eze", "Lukas Brandt")
    assert v1.year == 2024


def test_jsonl_with_two_empty_abstracts_keeps_28() -> None:
    results = [normalise_record(raw) for raw in _jsonl("thirty_two_empty.jsonl")]
    refused = [n for n, result in enumerate(results, start=1) if isinstance(result, str)]
    assert len(results) == 30
    assert refused == [9, 22]
    assert results[8] == "no title and no abstract"
    kept = [r for r in results if isinstance(r, Paper)]
    assert all(paper.title and paper.abstract and paper.authors for paper in kept)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        pytest.param({"id": "x"}, "no title and no abstract", id="nothing"),
        pytest.param({"title": "  ", "abstract": "{ }"}, "no title and no abstract",
                     id="empty-after-cleaning"),
        pytest.param({"title": {"en": "T"}}, "field 'title' is not text", id="object-title"),
        pytest.param({"abstract": True}, "field 'abstract' is not text", id="bool-abstract"),
    ],
)  # fmt: skip
def test_unusable_record_gives_a_reason(raw: dict[str, object], reason: str) -> None:
    assert normalise_record(raw) == reason


def test_abstract_only_record_leaves_the_title_to_derive() -> None:
    fields = _fields({"abstract": "We study things. See https://github.com/x/y."})
    assert fields.title == ""
    assert fields.links == (("Code", "https://github.com/x/y"),)


def test_csv_with_bom_and_semicolons() -> None:
    text = (DATA / "papers_semicolon_bom.csv").read_bytes().decode("utf-8")
    rows = list(read_csv_records(text.replace("\r\n", "\n")))
    records = [(line, row) for line, row in rows if isinstance(row, dict)]
    skipped = [(line, row) for line, row in rows if isinstance(row, str)]
    assert len(records) == 4
    assert skipped == [(5, "2 cells, the header has 5")]
    first = _fields(records[0][1])
    assert first.title == "Warm Starts for Bayesian Optimization; a Meta-Learning View"
    assert first.authors == ("Ines Duarte", "Tobias Weber")
    assert first.year == 2024
    assert ("PDF", "https://arxiv.org/pdf/2406.01010") in first.links
    assert _fields(records[2][1]).links == ()  # an empty PDF cell is no link


@pytest.mark.parametrize(
    ("header", "delimiter"),
    [
        pytest.param("Title,Authors,Abstract", ",", id="comma"),
        pytest.param("Title;Authors;Abstract", ";", id="semicolon"),
        pytest.param("Title\tAuthors\tAbstract", "\t", id="tab"),
        pytest.param("abstract", ",", id="one-column"),
        pytest.param('"Title, long";Abstract', ";", id="quoted-comma"),
    ],
)
def test_sniff_delimiter(header: str, delimiter: str) -> None:
    assert sniff_delimiter(header) == delimiter


def test_csv_without_text_column_lists_the_columns_found() -> None:
    with pytest.raises(MissingColumnError, match="columns found: 'name', 'pages'"):
        list(read_csv_records("name,pages\nx,3\n"))


def test_csv_unclosed_quote_skips_the_rest_with_a_reason() -> None:
    rows = list(read_csv_records('title,abstract\nA,ok\n"B,never closed\nC,d\n'))
    assert rows[0] == (2, {"title": "A", "abstract": "ok"})
    assert isinstance(rows[-1][1], str)


def test_bibtex_file_skips_the_broken_entry_only() -> None:
    entries = list(read_bibtex((DATA / "papers.bib").read_text(encoding="utf-8")))
    good = [fields for _, fields in entries if isinstance(fields, dict)]
    bad = [(line, reason) for line, reason in entries if isinstance(reason, str)]
    assert [fields["id"] for fields in good] == [
        "mueller2025sharp", "kjaer2024recovery", "chen2025moe", "becker2025conformal"
    ]  # fmt: skip
    assert len(bad) == 1
    assert bad[0][0] == 22 and bad[0][1].startswith("malformed BibTeX")
    assert [line for line, _ in entries] == sorted(line for line, _ in entries)


def test_bibtex_entries_normalise_with_accents_math_and_links() -> None:
    entries = [f for _, f in read_bibtex((DATA / "papers.bib").read_text(encoding="utf-8"))]
    sharp, recovery, moe, conformal = (_fields(e) for e in entries if isinstance(e, dict))
    assert sharp.title == "Sharp Rates for Private Stochastic Convex Optimization with Heavy Tails"
    assert sharp.authors == ("Jonas Müller", "Ana Lucía Ortega")
    assert "k-th moments" in sharp.abstract and "√d" in sharp.abstract
    assert sharp.venue == "Proceedings of the 42nd International Conference on Machine Learning"
    assert sharp.links[0] == ("Page", "https://proceedings.mlr.press/v267/muller25a.html")
    assert recovery.authors == ("Søren Kjær", "Priya Natarajan")
    assert recovery.keywords == ("embodied AI", "evaluation", "robustness")
    assert recovery.links == (("DOI", "https://doi.org/10.48550/arXiv.2405.00001"),)
    assert ("arXiv", "https://arxiv.org/abs/2503.04321") in moe.links
    assert ("Code", "https://github.com/lchen/ot-moe") in moe.links
    assert conformal.abstract == "" and conformal.title.startswith("Calibrated Uncertainty")


def test_bibtex_duplicate_key_is_a_skipped_record() -> None:
    text = "@misc{a, title={One}}\n@misc{a, title={Two}}\n"
    entries = list(read_bibtex(text))
    assert entries[0] == (1, {"id": "a", "entry_type": "misc", "title": "One"})
    assert entries[1] == (2, "duplicate BibTeX key 'a'")


def test_bibtex_repeated_field_is_a_skipped_record() -> None:
    entries = list(read_bibtex("@misc{a, title = {One}, title = {Two}}\n@misc{b, title={Ok}}"))
    assert entries[0] == (1, "BibTeX entry repeats field(s) title")
    assert entries[1][1] == {"id": "b", "entry_type": "misc", "title": "Ok"}


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('@misc{a,title=}"\\$#% \nxé')), max_size=80))
def test_bibtex_reader_never_raises(text: str) -> None:
    for line, entry in read_bibtex(text):
        assert line >= 1
        assert isinstance(entry, dict | str)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
_KEYS = st.sampled_from(
    ["title", "abstract", "authors", "author", "keywords", "url", "pdf", "doi", "id", "year",
     "content", "venue", "value", "forum", "categories"]
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _JSON, max_size=6))
def test_any_json_record_gives_fields_or_a_reason(raw: dict[str, object]) -> None:
    result = normalise_record(raw)
    assert isinstance(result, Paper | str)
    if isinstance(result, Paper):
        assert result.title or result.abstract
        assert all(url.startswith(("http://", "https://")) for _, url in result.links)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('title,abstract;"\t\n\r x')), max_size=80))
def test_csv_reader_gives_rows_reasons_or_a_missing_column_error(text: str) -> None:
    try:
        rows = list(read_csv_records(text))
    except MissingColumnError as exc:
        assert "columns found" in str(exc)
        return
    assert all(isinstance(row, dict | str) for _, row in rows)


def test_a_forum_id_that_is_not_text_gives_no_page_and_loses_no_paper() -> None:
    paper = normalise_record({"title": "Sparse routers", "id": 0, "forum": [None]})
    assert isinstance(paper, Paper) and paper.title == "Sparse routers" and not paper.links
