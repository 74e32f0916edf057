"""The programme's data model: the tier rule, presentations' times, institutions, and a
programme paper merged with another source's version of it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.corpus import LoadReport, Paper, Presentation, load_corpus
from bot.corpus.merge import merge_versions
from bot.corpus.model import tier_of, venue_tier
from testkit.paths import TEST_DATA

PROGRAMME = TEST_DATA / "programme"


@pytest.mark.parametrize(
    ("decision", "tier"),
    [
        ("Accept (oral)", "oral"),
        ("Accept (spotlight poster)", "spotlight"),
        ("Accept (spotlight)", "spotlight"),
        ("Accept (poster)", "poster"),
        ("Accept (regular)", "poster"),
        ("Oral", "oral"),
        ("Poster", "poster"),
        ("Reject", ""),
        ("Accept", ""),
        ("", ""),
    ],
)
def test_tier_of_a_decision(decision: str, tier: str) -> None:
    assert tier_of(decision) == tier


@pytest.mark.parametrize(
    ("venue", "split"),
    [
        ("ICML 2026 oral", ("ICML 2026", "oral")),
        ("ICLR 2025 Spotlight", ("ICLR 2025", "spotlight")),
        ("NeurIPS 2024 (Poster)", ("NeurIPS 2024", "poster")),
        ("Submitted to ICML 2026", ("Submitted to ICML 2026", "")),
        ("Proceedings of ICML 2024, PMLR 235", ("Proceedings of ICML 2024, PMLR 235", "")),
        ("poster", ("poster", "")),
    ],
)
def test_venue_and_its_tier(venue: str, split: tuple[str, str]) -> None:
    assert venue_tier(venue) == split


def test_paper_tier_reads_status_then_venue() -> None:
    assert Paper("a", "T", "", status="Accept (spotlight poster)").tier == "spotlight"
    assert Paper("a", "T", "", venue="ICML 2026 oral").tier == "oral"
    assert Paper("a", "T", "", status="oral", venue="ICML 2026 poster").tier == "oral"
    assert Paper("a", "T", "", venue="Proceedings of ICML 2024").tier == ""


def test_institutions_are_distinct_known_and_in_author_order() -> None:
    paper = Paper("a", "T", "", authors=("A", "B", "C", "D"),
                  affiliations=("Inria", "", "MIT", "Inria"))  # fmt: skip
    assert paper.institutions == ("Inria", "MIT")
    assert Paper("a", "T", "").institutions == ()


def test_presentation_times_keep_their_offset() -> None:
    shown = Presentation("poster", start="2026-07-14T16:30:00+09:00", end="2026-07-14T19:00:00Z")
    assert shown.starts_at is not None and shown.starts_at.utcoffset() == timedelta(hours=9)
    assert shown.ends_at is not None and shown.ends_at.utcoffset() == timedelta(0)
    assert Presentation("oral", start="2026-07-14T16:30:00").starts_at is None  # no offset
    assert Presentation("oral", start="soon").starts_at is None
    assert Presentation("oral").starts_at is None


def test_existing_readers_give_papers_without_programme_fields() -> None:
    paper = load_corpus([TEST_DATA / "arxiv_snapshot.jsonl"]).papers[0]
    assert (paper.presentations, paper.affiliations, paper.topic) == ((), (), "")


def test_a_directory_merges_the_feed_and_openreview_keeping_the_programme() -> None:
    report: LoadReport = load_corpus([PROGRAMME])
    (paper,) = [p for p in report.papers if p.title == "Sparse Routers Without Collapse"]
    assert [p.kind for p in paper.presentations] == ["oral", "poster"]
    assert paper.institutions == ("Example University",)
    assert paper.topic == "Deep Learning->Large Language Models"
    assert paper.tier == "oral" and paper.venue == "ICML 2026"
    assert ("PDF", "https://openreview.net/pdf/abcdef12340000.pdf") in paper.links


def test_merged_versions_take_the_programme_from_the_version_that_has_it() -> None:
    shown = (Presentation("poster", room="Hall A"),)
    plain = Paper("p1", "Sparse Routers Without Collapse", "Short.", authors=("Ana Example",))
    programme = Paper(
        "p2", "Sparse Routers Without Collapse", "", authors=("Ana Example",),
        presentations=shown, affiliations=("Example University",), topic="Theory",
    )  # fmt: skip
    (merged,), _ = merge_versions([plain, programme], ["a:1", "b:1"])
    assert merged.id == "p1"
    assert (merged.presentations, merged.affiliations, merged.topic) == (
        shown, ("Example University",), "Theory",
    )  # fmt: skip
    longer = Paper("p3", "Sparse Routers Without Collapse", "", authors=("Ana Example", "Bo"))
    (merged,), _ = merge_versions([programme, longer], ["a:1", "b:1"])
    assert merged.authors == ("Ana Example", "Bo")
    assert merged.affiliations == ()  # never misaligned with the kept authors
