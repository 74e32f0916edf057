"""Reading-list exports: BibTeX parsed back with bibtexparser, Markdown, CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware

from bot.corpus import Presentation
from bot.store import SavedPaper
from bot.store.export import (
    CSV_COLUMNS,
    DERIVED_NOTE,
    base_key,
    bibtex_keys,
    export_text,
    presentation_text,
    to_bibtex,
    to_csv,
    to_markdown,
)

TRICKY_TITLE = r"50% of {Braces} & a \backslash: $x_1$ #1 ~ — Ünïcode"


def paper(paper_id: str, title: str = "Attention Is All You Need", **fields: object) -> SavedPaper:
    """A saved paper with sensible defaults."""
    values: dict[str, object] = {
        "authors": ("Ashish Vaswani", "Noam Shazeer"),
        "year": 2026,
        "venue": "ICML 2026",
        "url": "https://example.org/p?id=1&x=50%25",
        "doi": "10.1000/xyz_1",
        "saved_at": datetime(2026, 7, 1, 12, 0, tzinfo=UTC),
    }
    values.update(fields)
    return SavedPaper(paper_id=paper_id, title=title, **values)  # type: ignore[arg-type]


def parse(bib: str) -> bibtexparser.Library:
    """Parse BibTeX back, LaTeX decoded to Unicode; fail on any block it could not read."""
    library = bibtexparser.parse_string(bib, append_middleware=[LatexDecodingMiddleware()])
    assert library.failed_blocks == []
    return library


def test_bibtex_parses_back_with_every_field() -> None:
    papers = [paper("a1", TRICKY_TITLE), paper("b2", "Plain Title", venue="", doi="")]

    library = parse(to_bibtex(papers))

    first, second = library.entries
    assert first.entry_type == "inproceedings"
    assert first["title"] == TRICKY_TITLE
    assert first["author"] == "Ashish Vaswani and Noam Shazeer"
    assert first["booktitle"] == "ICML 2026"
    assert first["year"] == "2026"
    assert second.entry_type == "misc"
    assert "doi" not in second.fields_dict


def test_bibtex_escapes_specials_and_keeps_unicode_bytes() -> None:
    bib = to_bibtex([paper("a1", TRICKY_TITLE)])

    assert r"50\% of \{Braces\} \& a \textbackslash{}backslash" in bib
    assert "Ünïcode" in bib
    assert r"\textasciitilde{} \textasciicircum{}" in to_bibtex([paper("a2", "~ ^")])


def test_bibtex_braces_stay_balanced_for_unbalanced_titles() -> None:
    bib = to_bibtex([paper("a1", "Open { brace"), paper("a2", "Close } brace")])

    assert len(parse(bib).entries) == 2


def test_links_are_percent_encoded_not_latex_escaped() -> None:
    bib = to_bibtex([paper("a1", url="https://example.org/a b{c}", doi="10.1/x_y")])

    assert "url = {https://example.org/a%20b%7Bc%7D}" in bib
    assert "doi = {10.1/x_y}" in bib


def test_an_author_named_with_and_stays_one_author() -> None:
    bib = to_bibtex([paper("a1", authors=("Anderson and Sons Ltd", "Bo Li"))])

    assert "author = {{Anderson and Sons Ltd} and Bo Li}" in bib
    assert len(parse(bib).entries) == 1


@pytest.mark.parametrize(
    ("authors", "title", "expected"),
    [
        pytest.param(("Ashish Vaswani",), "Attention Is All", "vaswani2026attention", id="plain"),
        pytest.param(("Noether, Emmy",), "On the Rings", "noether2026rings", id="last-first"),
        pytest.param(("Émile Müller",), "Über Alles", "muller2026uber", id="accents-folded"),
        pytest.param((), "The End", "anon2026end", id="no-authors"),
        pytest.param(("李雷",), "图 学习", "anon2026", id="no-ascii-at-all"),
    ],
)
def test_base_key_is_surname_year_first_word(
    authors: tuple[str, ...], title: str, expected: str
) -> None:
    assert base_key(paper("x", title, authors=authors)) == expected


def test_colliding_keys_get_suffixes_in_paper_id_order_whatever_the_list_order() -> None:
    papers = [paper("id-3"), paper("id-1"), paper("id-2"), paper("other", "Different")]

    keys = bibtex_keys(papers)
    shuffled = bibtex_keys(list(reversed(papers)))

    assert keys == shuffled
    assert keys["id-1"] == "vaswani2026attentiona"
    assert keys["id-2"] == "vaswani2026attentionb"
    assert keys["id-3"] == "vaswani2026attentionc"
    assert keys["other"] == "vaswani2026different"


def test_suffixed_keys_never_collide_with_another_papers_key() -> None:
    # "attentiona" as a title word makes a base key equal to the first suffixed key.
    papers = [paper("p1"), paper("p2"), paper("p3", "Attentiona")]

    keys = bibtex_keys(papers)

    assert len(set(keys.values())) == 3
    assert keys["p3"] == "vaswani2026attentiona"


def test_many_collisions_stay_unique_past_z() -> None:
    papers = [paper(f"id-{n:03d}") for n in range(60)]

    keys = parse(to_bibtex(papers)).entries

    assert len({entry.key for entry in keys}) == 60


def test_markdown_lists_papers_with_escaped_titles() -> None:
    markdown = to_markdown([paper("a1", "A *bold* [claim]"), paper("b2", "Second", url="")])

    lines = markdown.splitlines()
    assert lines[0] == "# Reading list"
    assert lines[2] == (
        r"1. **A \*bold\* \[claim\]** — Ashish Vaswani, Noam Shazeer (ICML 2026) "
        "<https://example.org/p?id=1&x=50%25>"
    )
    assert lines[3] == "2. **Second** — Ashish Vaswani, Noam Shazeer (ICML 2026)"
    assert "<" not in lines[3]


def test_markdown_adds_the_year_a_venue_lacks() -> None:
    markdown = to_markdown([paper("a1", "T", venue="NeurIPS", url="", authors=())])

    assert markdown.splitlines()[2] == "1. **T** (NeurIPS 2026)"


def test_csv_has_a_header_and_round_trips() -> None:
    papers = [paper("a1", 'Quotes "and", commas\nnewline'), paper("b2", year=None)]

    rows = list(csv.reader(io.StringIO(to_csv(papers))))

    assert tuple(rows[0]) == CSV_COLUMNS
    assert rows[1][:4] == [
        "a1",
        'Quotes "and", commas\nnewline',
        "Ashish Vaswani; Noam Shazeer",
        "2026",
    ]
    assert rows[1][CSV_COLUMNS.index("saved_at")] == "2026-07-01T12:00:00+00:00"
    assert rows[2][3] == ""
    assert len(rows) == 3


def test_csv_cells_never_start_a_spreadsheet_formula() -> None:
    rows = list(csv.reader(io.StringIO(to_csv([paper("a1", "=HYPERLINK(1)")]))))

    assert rows[1][1] == "'=HYPERLINK(1)"


def test_export_dispatches_and_rejects_unknown_formats() -> None:
    papers = [paper("a1")]

    assert export_text(papers, "bib") == to_bibtex(papers)
    assert export_text(papers, "md") == to_markdown(papers)
    assert export_text(papers, "csv") == to_csv(papers)
    with pytest.raises(ValueError, match="bib, md, csv"):
        export_text(papers, "pdf")


def test_an_empty_list_exports_cleanly() -> None:
    assert parse(to_bibtex([])).entries == []
    assert to_markdown([]) == "# Reading list\n\n"
    assert to_csv([]).splitlines() == [",".join(CSV_COLUMNS)]


ORAL = Presentation("oral", "Oral 1A Theory", "2026-07-15T10:00:00+09:00",
                    "2026-07-15T10:15:00+09:00", "West Ballroom A", "", "51001")  # fmt: skip
POSTER = Presentation("poster", "Poster Session 3", "2026-07-15T11:00:00+09:00",
                      "2026-07-15T13:30:00+09:00", "East Exhibition Hall A-B",
                      "E-2308")  # fmt: skip


def test_presentations_read_in_the_venues_time_with_its_offset() -> None:
    assert presentation_text(ORAL) == (
        "Oral, Wed 15 Jul 2026 10:00–10:15 (UTC+09:00), West Ballroom A"
    )
    assert presentation_text(POSTER) == (
        "Poster, Wed 15 Jul 2026 11:00–13:30 (UTC+09:00), East Exhibition Hall A-B, #E-2308"
    )
    west = Presentation("poster", start="2026-12-01T18:30:00-08:00", position="W 1")
    assert presentation_text(west) == "Poster, Tue 1 Dec 2026 18:30 (UTC-08:00), #W 1"
    assert presentation_text(Presentation("poster", room="Hall C")) == "Poster, Hall C"


def test_the_bibtex_note_gives_the_tier_and_the_presentations() -> None:
    oral = paper("a1", status="oral", presentations=(ORAL, POSTER), institutions=("KAIST",))
    spotlight = paper("b2", "Spotlit", status="spotlight", presentations=(POSTER,),
                      title_derived=True)  # fmt: skip
    listed = paper("c3", "Tier only", status="oral")
    first, second, third = parse(to_bibtex([oral, spotlight, listed])).entries
    assert first["note"] == (
        "Oral, Wed 15 Jul 2026 10:00–10:15 (UTC+09:00), West Ballroom A; Poster, Wed 15 Jul "
        "2026 11:00–13:30 (UTC+09:00), East Exhibition Hall A-B, #E-2308"
    )
    assert second["note"].startswith("Spotlight; Poster, Wed 15 Jul 2026 11:00–13:30")
    assert second["note"].endswith("#E-2308; " + DERIVED_NOTE)
    assert third["note"] == "Oral"
    assert "note" not in parse(to_bibtex([paper("d4")])).entries[0].fields_dict


def test_markdown_lists_the_presentations_and_institutions() -> None:
    oral = paper("a1", "T", url="", status="oral", presentations=(ORAL, POSTER),
                 institutions=("KAIST", "Mila"))  # fmt: skip
    lines = to_markdown([oral]).splitlines()
    assert [line.replace("\\", "") for line in lines[3:]] == [  # Markdown's escapes dropped
        "   - Oral, Wed 15 Jul 2026 10:00–10:15 (UTC+09:00), West Ballroom A",
        "   - Poster, Wed 15 Jul 2026 11:00–13:30 (UTC+09:00), East Exhibition Hall A-B, #E-2308",
        "   - Institutions: KAIST, Mila",
    ]
    assert "\\#E\\-2308" in lines[4]  # escaped: "#" would start a heading


def test_csv_gains_the_status_presentations_and_institutions() -> None:
    oral = paper("a1", status="oral", presentations=(ORAL, POSTER), institutions=("KAIST", "Mila"))
    header, row = list(csv.reader(io.StringIO(to_csv([oral]))))
    cells = dict(zip(header, row, strict=True))
    assert cells["status"] == "oral"
    assert cells["presentations"] == "; ".join(map(presentation_text, (ORAL, POSTER)))
    assert cells["institutions"] == "KAIST; Mila"


async def test_a_saved_feed_paper_exports_its_programme(tmp_path, backend) -> None:
    from bot.store import snapshot
    from testkit.week import load_week

    week = load_week(tmp_path / "week")
    saved = snapshot(week["G"])
    assert (saved.status, saved.institutions) == ("oral", ("KAIST", "Mila"))
    assert saved.presentations == week["G"].presentations
    store = await backend.open()
    try:
        await store.save(7, saved)
        rows = await store.export_rows(7)
    finally:
        await store.close()
    [entry] = parse(to_bibtex(rows)).entries
    assert entry["note"] == (
        "Oral, Wed 15 Jul 2026 11:30–11:45 (UTC+09:00), West Ballroom C; "
        "Poster, Thu 16 Jul 2026 11:00–13:30 (UTC+09:00), West Exhibition Hall B2-B3, #W-40"
    )
