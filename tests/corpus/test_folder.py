"""A folder of every export plus notes gives each paper once; one broken file never
sinks it; placeholders and marks never pass as data; the report counts merges."""

from __future__ import annotations

import gzip
import json
import shutil
import unicodedata
from pathlib import Path

import pytest

from bot.corpus import CorpusError, StrictCorpusError, load_corpus
from bot.search import Index
from testkit.paths import TEST_DATA

DATA = TEST_DATA
EXPORTS = ["s2_search.json", "openalex_works.json", "zotero.ris", "arxiv_api.xml",
           "zotero_export.csv", "paperlists_icml2026_oneline.json", "arxiv_snapshot.jsonl",
           "papers.bib", "paperlists_icml2025.json", "dblp.bib"]  # fmt: skip
SPARSE = "Sparse Mixture Routing for Long-Context Retrieval"


def _folded(title: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", title).casefold().split())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Every export, a compressed copy of one, a README, notes, .DS_Store and a broken file."""
    for name in EXPORTS:
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "snapshot_again.jsonl.gz").write_bytes(
        gzip.compress((DATA / "arxiv_snapshot.jsonl").read_bytes())
    )
    (tmp_path / "README.md").write_text("# Reading list\n\nTODO: add the NeurIPS exports.\n")
    (tmp_path / "ideas.md").write_text("Ideas\n\n- compare routing with top-k gating\n")
    (tmp_path / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1\x00binary")
    (tmp_path / "broken.json").write_text('[{"title": "T", "abstract": "A."},\n{broken')
    (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.7\n%binary")
    return tmp_path


def test_a_mixed_folder_gives_each_paper_once(folder: Path) -> None:
    report = load_corpus([folder])
    titles = [_folded(p.title) for p in report.papers]
    assert len(titles) == len(set(titles)) == 22  # 21 exported + the start of broken.json
    assert not any("todo" in t or "reading list" in t or "ideas" in t for t in titles)
    [sparse] = [p for p in report.papers if p.title == SPARSE]
    # The richest fields: the peer-reviewed venue over arXiv, every link, every id.
    assert sparse.venue == "International Conference on Machine Learning"
    urls = [url for _label, url in sparse.links]
    assert {"https://arxiv.org/abs/2506.33333", "https://proceedings.mlr.press/v267/muller25b.html",
            "https://icml.cc/virtual/2026/oral/50008"} <= set(urls)  # fmt: skip
    assert len(urls) == len(set(urls))
    index = Index.build(report.papers)
    for typed in ("2506.33333", "W4399123456", "QX7RT2PA", "site_a8", "10.48550/arXiv.2506.33333"):
        assert index.get(typed) == sparse, typed
    assert report.merged == 14
    assert "14 versions merged" in report.summary()


def test_arxiv_dblp_and_zotero_versions_are_one_paper(tmp_path: Path) -> None:
    for name in ("arxiv_api.xml", "dblp.bib", "zotero_export.csv"):
        shutil.copy(DATA / name, tmp_path / name)
    report = load_corpus([tmp_path])
    [sparse] = [p for p in report.papers if p.title == SPARSE]
    assert sparse.id == "2506_33333"  # the first version's (arxiv_api.xml sorts first)
    assert {"DBLP:journals/corr/abs-2506-33333", "QX7RT2PA"} <= set(sparse.aliases)
    assert sparse.venue == "arXiv"  # preprint servers both (CoRR too): the first one
    assert report.merged == 2


def test_the_report_names_each_file_not_read(folder: Path) -> None:
    report = load_corpus([folder])
    skipped = "\n".join(report.skipped)
    assert f"{folder / 'broken.json'}:2: malformed JSON" in skipped
    assert "; the 1 records before it are kept" in skipped  # a truncated array keeps its start
    assert f"{folder / 'README.md'}: notes" in skipped
    assert f"{folder / 'ideas.md'}: notes, not a list of abstracts (line 3" in skipped
    assert f"{folder / 'scan.pdf'}: a PDF document, not a list of papers" in skipped
    assert ".DS_Store" not in skipped


def test_strict_still_refuses_a_broken_file_in_a_folder(folder: Path) -> None:
    with pytest.raises(StrictCorpusError) as raised:
        load_corpus([folder], strict=True)
    assert any("broken.json" in line for line in raised.value.problems)


def test_a_broken_file_named_alone_is_still_an_error(folder: Path) -> None:
    with pytest.raises(CorpusError) as raised:
        load_corpus([folder / "broken.json"])
    assert raised.value.line == 2


def test_a_folder_of_only_broken_files_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("[{")
    with pytest.raises(CorpusError, match="malformed JSON"):
        load_corpus([tmp_path])


def test_placeholders_are_skipped_with_a_reason_named_by_record() -> None:
    path = DATA / "paperlists_icml2026_oneline.json"
    report = load_corpus([path])
    assert report.bad_lines == (
        f"{path}:1, record 2: placeholder record (title 'title')",
        f"{path}:1, record 3: placeholder record (title 'Placeholder')",
        f"{path}:1, record 5: placeholder record (title 'Withdrawn')",
        f"{path}:1, record 6: withdrawn paper (status 'Withdrawn')",
        f"{path}:1, record 7: field 'title' is not text",
    )
    assert [p.authors for p in report.papers] == [
        ("Wei Zhang", "Laura Becker", "Diego Alvarez"),
        ("Aiko Sato", "Ben Carter"),
        ("Jonas Müller", "Hanna Sigurðardóttir"),
    ]


def test_author_placeholder_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"title": "Real title", "authors": "authors"}\n{"title": "Other", "authors": "A. B"}\n'
    )
    report = load_corpus([path])
    assert report.bad_lines == (f"{path}:1: placeholder record (author 'authors')",)


def test_merges_keep_the_first_versions_id(tmp_path: Path) -> None:
    """Adding a second export of a paper never changes the id users already saw."""
    shutil.copy(DATA / "zotero_export.csv", tmp_path / "a.csv")
    before = {p.title: p.id for p in load_corpus([tmp_path]).papers}
    shutil.copy(DATA / "s2_search.json", tmp_path / "b.json")
    after = {p.title: p for p in load_corpus([tmp_path]).papers}
    assert all(after[title].id == paper_id for title, paper_id in before.items())
    assert "2506_33333" in after[SPARSE].aliases or "2506.33333" in after[SPARSE].aliases


def test_an_abstract_missing_from_one_version_comes_from_another(tmp_path: Path) -> None:
    first = {"id": "x1", "title": "Optimal Transport Routing for Experts",
             "authors": "Li Chen, Ana Ortega", "venue": "ICML 2025"}  # fmt: skip
    second = {"id": "2503.04321", "title": "Optimal transport routing for experts.",
              "authors": "L. Chen", "abstract": "We route tokens with optimal transport.",
              "venue": "arXiv"}  # fmt: skip
    (tmp_path / "a.jsonl").write_text(json.dumps(first) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps(second) + "\n")
    report = load_corpus([tmp_path])
    [paper] = report.papers
    assert paper.id == "x1" and paper.venue == "ICML 2025"
    assert paper.abstract == "We route tokens with optimal transport."
    assert paper.aliases == ("2503.04321",)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert report.skipped == (f"{b}:1: same paper as {a}:1 (same title and author), merged",)


def test_same_title_without_a_shared_author_stays_two_papers(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(
        '{"title": "A Survey of Graph Neural Networks", "authors": "Li Chen"}\n'
        '{"title": "A Survey of Graph Neural Networks", "authors": "Maria Rossi"}\n'
    )
    assert len(load_corpus([tmp_path]).papers) == 2
