"""The pure pieces chained as the loader will chain them, over every tests/data shape."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.corpus import MAX_TITLE_CHARS, derive_title
from bot.corpus.authors import AuthorIndex
from bot.corpus.ids import PaperIds, assign_ids
from bot.corpus.model import Paper
from bot.corpus.model import is_tappable_id as is_tappable
from bot.corpus.readers.bibtex import read_bibtex_entries as read_bibtex
from bot.corpus.readers.csv_table import read_csv_records
from bot.corpus.records import normalise_record
from testkit.paths import TEST_DATA

DATA = TEST_DATA


def _raw(path: Path) -> Iterator[object]:
    """Raw records of a data file, by extension (the loader's readers will do this)."""
    text = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
    if path.suffix == ".json":
        yield from json.loads(text)
    elif path.suffix == ".jsonl":
        yield from (json.loads(line) for line in text.splitlines() if line.strip())
    elif path.suffix == ".csv":
        yield from (row for _, row in read_csv_records(text))
    else:
        yield from (entry for _, entry in read_bibtex(text))


def _papers(path: Path) -> list[Paper]:
    records = (normalise_record(raw) if isinstance(raw, dict) else raw for raw in _raw(path))
    return [record for record in records if isinstance(record, Paper)]


@pytest.mark.parametrize(
    ("name", "count", "surname", "title_word"),
    [
        pytest.param("paperlists_icml2025.json", 6, "Venkataraman", "Koopman", id="paperlists"),
        pytest.param("arxiv_snapshot.jsonl", 5, "Rossi", "Tabular", id="arxiv"),
        pytest.param("openreview_v2.json", 4, "Mensah", "Warmup", id="openreview"),
        pytest.param("papers.bib", 4, "Kjær", "Embodied", id="bibtex"),
        pytest.param("papers_semicolon_bom.csv", 4, "Adeyemi", "Protein", id="csv"),
        pytest.param("thirty_two_empty.jsonl", 28, "Girard", "Bandits", id="jsonl-30"),
    ],
)
def test_each_shape_yields_papers_with_ids_titles_and_findable_authors(
    name: str, count: int, surname: str, title_word: str
) -> None:
    papers = _papers(DATA / name)
    ids = assign_ids((p.source_id or None, p.title, p.abstract) for p in papers)
    titles = [p.title or derive_title(p.abstract) for p in papers]
    assert len(papers) == count
    assert len(set(ids)) == count and all(is_tappable(i) for i in ids)
    assert all(len(title) > 0 for title in titles)
    assert any(title_word.lower() in title.lower() for title in titles)
    found = AuthorIndex.build(p.authors for p in papers).papers(surname)
    assert found and all(surname in " ".join(papers[i].authors) for i in found)


def test_original_ids_find_their_papers() -> None:
    papers = _papers(DATA / "arxiv_snapshot.jsonl")
    ids = assign_ids((p.source_id or None, p.title, p.abstract) for p in papers)
    lookup = PaperIds.build(zip(ids, (p.source_id for p in papers), strict=True))
    assert lookup.find("hep-th/9901001") == "hep_th_9901001"
    assert lookup.find("/paper_2402_05678") == "2402_05678"


def test_untitled_abstracts_get_derived_titles_within_the_limit() -> None:
    papers = _papers(DATA / "thirty_two_empty.jsonl")
    untitled = [derive_title(p.abstract) for p in papers]
    assert all(len(title) <= MAX_TITLE_CHARS and not title.endswith("…") for title in untitled)
