"""Each export a researcher keeps, written as its tool writes it, loads with title,
abstract (where the source has one), authors, venue, year and links; its ids find the paper."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import shutil
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from bot.corpus import CorpusError, NotRecordsError, load_corpus
from bot.corpus.readers.source_shapes import abstract_from_inverted_index
from bot.search import Index
from testkit.paths import TEST_DATA

DATA = TEST_DATA
SPARSE = "Sparse Mixture Routing for Long-Context Retrieval"


def _only(name: str, title: str):
    report = load_corpus([DATA / name])
    [paper] = [p for p in report.papers if p.title == title]
    return report, paper


@pytest.mark.parametrize(
    ("name", "title", "abstract", "authors", "venue", "year", "link", "typed"),
    [
        pytest.param("s2_search.json", SPARSE, "sparse mixture of retrieval experts",
                     ("Jonas Müller", "Hanna Sigurðardóttir"), "arXiv.org", 2025,
                     "https://arxiv.org/pdf/2506.33333",
                     ["2506.33333", "10.48550/arXiv.2506.33333",
                      "3f1c2a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a"], id="semantic-scholar"),
        pytest.param("openalex_works.json", SPARSE, "We route each query token to a sparse mixture",
                     ("Jonas Müller", "Hanna Sigurðardóttir"),
                     "International Conference on Machine Learning", 2025,
                     "https://arxiv.org/abs/2506.33333", ["W4399123456", "2506.33333"],
                     id="openalex"),
        pytest.param("zotero.ris", "Kernel Two-Sample Tests under Covariate Shift",
                     "importance weighting", ("Chidi Okafor", "Åsa Lindqvist"),
                     "Journal of Machine Learning Research", 2024,
                     "https://jmlr.org/papers/v25/okafor24a.html", ["10.5555/jmlr.2024.0042"],
                     id="ris"),
        pytest.param("arxiv_api.xml", SPARSE, "memory footprint stays constant",
                     ("Jonas Müller", "Hanna Sigurðardóttir"), "arXiv", 2025,
                     "https://arxiv.org/abs/2506.33333", ["2506.33333", "arXiv:2506.33333v2"],
                     id="arxiv-atom"),
        pytest.param("zotero_export.csv", "Causal Probing of In-Context Learning Circuits",
                     "intervene on attention heads", ("Ana Lucía Ortega", "Søren Kjær"),
                     "Proceedings of the 42nd International Conference on Machine Learning",
                     2025, "https://proceedings.mlr.press/v267/ortega25a.html",
                     ["B3KD9WQZ", "2502.11111"], id="zotero-csv"),
    ],
)  # fmt: skip
def test_each_export_loads_its_fields_and_ids(
    name: str,
    title: str,
    abstract: str,
    authors: tuple[str, ...],
    venue: str,
    year: int,
    link: str,
    typed: list[str],
) -> None:
    report, paper = _only(name, title)
    assert abstract in paper.abstract
    assert paper.authors == authors
    assert paper.venue == venue and paper.year == year
    assert link in [url for _label, url in paper.links]
    index = Index.build(report.papers)
    for text in typed:
        assert index.get(text) == paper, text


def test_semantic_scholar_without_abstract_keeps_its_doi_and_venue() -> None:
    _, paper = _only("s2_search.json", "Calibrated Abstention for Tabular Classifiers")
    assert paper.abstract == "" and not paper.title_derived
    assert ("DOI", "https://doi.org/10.5555/3737916.3738001") in paper.links
    assert paper.venue == "International Conference on Machine Learning"


def test_openalex_abstract_is_rebuilt_in_word_order() -> None:
    index = {"world": [1], "hello": [0, 2], "bad": ["x"], "far": [10**9]}
    assert abstract_from_inverted_index(index) == "hello world hello"
    _, paper = _only(
        "openalex_works.json", "Diffusion Priors for Inverse Rendering under Unknown Lighting"
    )
    assert paper.abstract.startswith("A diffusion prior over materials resolves the ambiguity")
    assert paper.id == "W4400222333" and paper.authors == ("Søren Kjær",)
    assert paper.venue == "IEEE Transactions on Pattern Analysis and Machine Intelligence"


def test_zotero_preprint_finds_its_arxiv_id_in_extra_url_or_doi() -> None:
    report, paper = _only("zotero_export.csv", SPARSE)
    assert paper.id == "QX7RT2PA"  # Zotero's key stays the id: ids users saw stay stable
    assert Index.build(report.papers).get("2506.33333") == paper
    assert "Computer Science - Machine Learning" in paper.keywords


def test_ris_record_without_its_end_tag_is_one_skipped_record() -> None:
    report = load_corpus([DATA / "zotero.ris"])
    assert len(report.papers) == 2
    assert report.bad_lines == (
        f"{DATA / 'zotero.ris'}:28: malformed RIS: the record has no 'ER  -' line",
    )


def test_atom_entity_expansion_is_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.xml"
    bomb.write_text(
        '<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "aaaaaaaaaa">'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>&b;</title></entry></feed>'
    )
    with pytest.raises(CorpusError, match="XML"):
        load_corpus([bomb])


def test_arxiv_snapshot_under_its_real_json_name_is_json_lines(tmp_path: Path) -> None:
    snapshot = tmp_path / "arxiv-metadata-oai-snapshot.json"
    shutil.copy(DATA / "arxiv_snapshot.jsonl", snapshot)
    papers = load_corpus([snapshot]).papers
    plain = load_corpus([DATA / "arxiv_snapshot.jsonl"]).papers
    assert [replace(p, source="") for p in papers] == [replace(p, source="") for p in plain]
    assert [p.line for p in papers][:2] == [1, 2]


@pytest.mark.parametrize("key", ["papers", "items", "hits", "records", "entries"])
def test_records_under_a_list_field_load(tmp_path: Path, key: str) -> None:
    records = [{"title": f"Paper {i}", "abstract": f"Abstract number {i}."} for i in range(3)]
    path = tmp_path / "wrapped.json"
    path.write_text(json.dumps({"version": 2, "count": 3, key: records}, indent=2))
    papers = load_corpus([path]).papers
    assert [p.title for p in papers] == ["Paper 0", "Paper 1", "Paper 2"]
    assert papers[1].line == 9  # the line its object starts on in the pretty-printed file


def test_elasticsearch_hits_inside_hits_load(tmp_path: Path) -> None:
    path = tmp_path / "es.json"
    path.write_text(
        json.dumps({"took": 3, "hits": {"total": 1, "hits": [{"title": "T", "abstract": "A b."}]}})
    )
    assert [p.title for p in load_corpus([path]).papers] == ["T"]


def test_json_without_records_says_what_it_found(tmp_path: Path) -> None:
    path = tmp_path / "meta.json"
    path.write_text('{"meta": {"count": 0}, "group_by": []}')
    with pytest.raises(NotRecordsError) as raised:
        load_corpus([path])
    assert raised.value.reason == "a JSON object with keys meta, group_by — no list of records"


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [(".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)],
)
def test_compressed_json_lines_load_like_the_plain_file(tmp_path: Path, suffix, compress) -> None:
    plain = load_corpus([DATA / "arxiv_snapshot.jsonl"]).papers
    path = tmp_path / f"papers.jsonl{suffix}"
    path.write_bytes(compress((DATA / "arxiv_snapshot.jsonl").read_bytes()))
    papers = load_corpus([path]).papers
    assert [(p.title, p.abstract, p.links) for p in papers] == [
        (p.title, p.abstract, p.links) for p in plain
    ]
    assert papers[0].source == str(path)


def test_a_zip_of_exports_reads_each_member(tmp_path: Path) -> None:
    path = tmp_path / "exports.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(DATA / "zotero.ris", "library/zotero.ris")
        archive.write(DATA / "arxiv_api.xml", "arxiv_api.xml")
        archive.writestr("__MACOSX/._zotero.ris", b"\x00\x05\x16\x07")
        archive.writestr("README.md", "# exports\n\n- from Zotero\n")
        archive.writestr(
            "more.jsonl.gz", gzip.compress(b'{"title": "Zipped gz", "abstract": "In a zip."}\n')
        )
    report = load_corpus([path])
    titles = {p.title for p in report.papers}
    assert {
        "Kernel Two-Sample Tests under Covariate Shift",
        "Token Dropping Makes Vision Transformers Robust to Occlusion",
        "Zipped gz",
    } <= titles
    assert sum(p.title == SPARSE for p in report.papers) == 1  # RIS and Atom versions merged
    assert any(line.startswith(f"{path}:README.md: notes") for line in report.skipped)
    assert f"{path}:library/zotero.ris" in report.sources


def test_broken_compressed_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"title": "A", "abstract": "B."}\n' * 50)[:40])
    with pytest.raises(CorpusError) as raised:
        load_corpus([path])
    assert raised.value.path == str(path)


def test_broken_xz_and_zip_members_are_named(tmp_path: Path) -> None:
    broken = tmp_path / "cut.jsonl.xz"
    broken.write_bytes(lzma.compress(b'{"title": "A", "abstract": "B."}\n' * 50)[:60] + b"junk")
    with pytest.raises(CorpusError) as raised:
        load_corpus([broken])
    assert raised.value.path == str(broken)
    (tmp_path / "ok.jsonl").write_text('{"title": "Kept", "abstract": "A text."}\n')
    report = load_corpus([tmp_path])  # in a folder: skipped and named, the rest loads
    assert [p.title for p in report.papers] == ["Kept"]
    assert any(line.startswith(str(broken)) for line in report.bad_lines)
