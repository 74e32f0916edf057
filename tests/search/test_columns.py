"""Read-only columns: strings and papers decoded on access, equal to the plain values."""

from __future__ import annotations

import numpy as np
import pytest

from bot.corpus import Paper
from bot.search.storage.columns import (
    Column,
    PaperColumns,
    SpansColumn,
    TextColumn,
    grouped_column,
    int_column,
    pairs_column,
    table_column,
)

WORDS = ["alpha", "", "bêta", "γάμμα 🦘", "z"]


def text_column(values: list[str]) -> TextColumn:
    encoded = [v.encode() for v in values]
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return TextColumn(np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets)


@pytest.mark.parametrize("values", [WORDS, ["ascii", "only"], []], ids=["utf8", "ascii", "empty"])
def test_text_column_reads_back_its_strings(values: list[str]) -> None:
    column = text_column(values)
    assert len(column) == len(values)
    assert list(column) == values
    assert [column[i] for i in range(len(values))] == values
    assert column[1:3] == values[1:3]


def test_text_column_indexes_like_a_list() -> None:
    column = text_column(WORDS)
    assert column[-1] == "z"
    with pytest.raises(IndexError):
        column[len(WORDS)]


@pytest.mark.parametrize(
    "offsets",
    [
        pytest.param([0, 3, 2, 5], id="decreasing"),
        pytest.param([1, 5], id="not-from-zero"),
        pytest.param([0, 9], id="past-the-blob"),
        pytest.param([], id="no-offsets"),
    ],
)
def test_text_column_rejects_offsets_that_do_not_fit(offsets: list[int]) -> None:
    with pytest.raises(ValueError):
        TextColumn(np.frombuffer(b"hello", dtype=np.uint8), np.array(offsets, dtype=np.int64))


SPANS = [[(0, 4), (5, 9)], [], [(0, 70_000), (70_001, 2**32 - 1)], [(3, 3)]]


def test_spans_column_reads_back_each_rows_spans() -> None:
    flat = np.array([v for row in SPANS for span in row for v in span], dtype=np.uint32)
    offsets = np.cumsum([0, *map(len, SPANS)]).astype(np.int64)
    column = SpansColumn(flat, offsets)
    assert len(column) == len(SPANS)
    assert [column[i] for i in range(len(SPANS))] == SPANS
    again = SpansColumn(*column.arrays())  # as a cache maps it back
    assert [again[i] for i in range(len(SPANS))] == SPANS
    assert column.nbytes == 5 * 2 * 4 + 5 * 8  # five spans of two uint32, five offsets


@pytest.mark.parametrize(
    ("flat", "offsets"),
    [
        pytest.param([0, 4, 5, 9], [0, 1], id="spans-past-the-offsets"),
        pytest.param([0, 4], [0, 2], id="offsets-past-the-spans"),
        pytest.param([0, 4, 5, 9], [0, 2, 1, 2], id="decreasing"),
        pytest.param([0, 4], [1, 1], id="not-from-zero"),
        pytest.param([], [], id="no-offsets"),
    ],
)
def test_spans_column_rejects_offsets_that_do_not_fit(flat: list[int], offsets: list[int]) -> None:
    with pytest.raises(ValueError):
        SpansColumn(np.array(flat, dtype=np.uint32), np.array(offsets, dtype=np.int64))


def test_spans_column_rejects_other_dtypes() -> None:
    with pytest.raises(ValueError):
        SpansColumn(np.array([0, 4], dtype=np.float64), np.array([0, 1], dtype=np.int64))
    with pytest.raises(ValueError):
        SpansColumn(np.array([0, 4], dtype=np.uint32), np.array([0, 1], dtype=np.int32))


PAPERS = (
    Paper(
        "a1", "First", "One.", (("Page", "https://x.org"),), "s.jsonl", 1, ("A. B",),
        ("k1", "k2"), "ICML 2026", "main", "Poster", 2026, "2401.01234",
    ),
    Paper("b2", "Second", "Two 🦘.", (), "s.jsonl", 2),
    Paper("c3", "Third", "Three.", (("PDF", "u1"), ("Code", "u2")), "t.jsonl", 7, ("C", "D")),
)  # fmt: skip


def columns(papers: tuple[Paper, ...] = PAPERS) -> PaperColumns:
    """The papers stored as the cache stores them (every field's layout)."""
    sources = list(dict.fromkeys(p.source for p in papers))

    def grouped(name: str) -> Column:
        values = [getattr(p, name) for p in papers]
        flat = [item for items in values for item in items]
        return grouped_column(text_column(flat), np.array([len(v) for v in values], np.int32))

    return PaperColumns.from_columns(
        {
            "id": text_column([p.id for p in papers]),
            "title": text_column([p.title for p in papers]),
            "abstract": text_column([p.abstract for p in papers]),
            "links": pairs_column(
                text_column(["\x1f".join(link) for p in papers for link in p.links]),
                np.array([len(p.links) for p in papers], dtype=np.int32),
                "\x1f",
            ),
            "source": table_column(
                text_column(sources),
                np.array([sources.index(p.source) for p in papers], dtype=np.int32),
            ),
            "line": int_column(np.array([p.line for p in papers], dtype=np.int64)),
            "authors": grouped("authors"),
            "keywords": grouped("keywords"),
            "venue": text_column([p.venue for p in papers]),
            "track": text_column([p.track for p in papers]),
            "status": text_column([p.status for p in papers]),
            "year": int_column(
                np.array([p.year or 0 for p in papers], dtype=np.int64), optional=True
            ),
            "source_id": text_column([p.source_id for p in papers]),
        }
    )


def test_paper_columns_equal_the_papers() -> None:
    table = columns()
    assert len(table) == len(PAPERS)
    assert tuple(table) == PAPERS
    assert table == PAPERS and table == PAPERS
    assert table[-1] == PAPERS[-1]
    assert table[:2] == PAPERS[:2]
    assert table != PAPERS[:2]


def test_paper_columns_give_one_field_without_papers() -> None:
    table = columns()
    assert list(table.column("id")) == ["a1", "b2", "c3"]
    assert list(table.column("source")) == ["s.jsonl", "s.jsonl", "t.jsonl"]


def test_paper_columns_index_out_of_range() -> None:
    with pytest.raises(IndexError):
        columns()[3]


def test_paper_columns_reject_a_row_outside_its_table() -> None:
    with pytest.raises(ValueError):
        PaperColumns.from_columns(
            {"source": table_column(text_column(["only"]), np.array([0, 1], dtype=np.int32))}
        )


def test_paper_columns_reject_counts_that_do_not_fit() -> None:
    with pytest.raises(ValueError):
        PaperColumns.from_columns(
            {"links": grouped_column(text_column(["u"]), np.array([1, 1], dtype=np.int32))}
        )


def test_paper_columns_reject_columns_of_different_lengths() -> None:
    with pytest.raises(ValueError):
        PaperColumns.from_columns(
            {"id": text_column(["a", "b"]), "line": int_column(np.array([1], dtype=np.int64))}
        )
