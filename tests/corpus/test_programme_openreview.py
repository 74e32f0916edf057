"""OpenReview notes as saved (API v2 wrapped, v1 plain): accepted papers with their venue and
tier; rejected, withdrawn and desk-rejected submissions left out with a reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.corpus import LoadReport, Paper, load_corpus
from bot.corpus.readers.openreview import review_outcome
from testkit.paths import TEST_DATA

V2 = TEST_DATA / "programme" / "openreview-icml-2026.json"
V1 = TEST_DATA / "programme" / "openreview-v1.json"


def by_source_id(report: LoadReport) -> dict[str, Paper]:
    return {paper.source_id: paper for paper in report.papers}


def test_v2_accepted_notes_with_venue_and_tier() -> None:
    report = load_corpus([V2], strict=True)  # skipped submissions are not bad records
    papers = by_source_id(report)
    assert set(papers) == {"AbCdEf1234", "OrNt000002", "OrNt000003", "OrNt000004", "OrNt000008"}
    tiers = {source_id: paper.tier for source_id, paper in papers.items()}
    assert tiers == {"AbCdEf1234": "oral", "OrNt000002": "spotlight", "OrNt000003": "poster",
                     "OrNt000004": "", "OrNt000008": "poster"}  # fmt: skip
    assert {(p.venue, p.year) for p in report.papers} == {("ICML 2026", 2026)}
    paper = papers["AbCdEf1234"]
    assert paper.status == "oral"
    assert paper.authors == ("Ana Example", "Bo Sample")
    assert paper.links[0] == ("Page", "https://openreview.net/forum?id=AbCdEf1234")
    assert ("PDF", "https://openreview.net/pdf/abcdef12340000.pdf") in paper.links


def test_v2_submissions_not_accepted_are_skipped_with_their_reason() -> None:
    report = load_corpus([V2])
    assert report.bad_records == 0
    reasons = [line.split(": ", 1)[1] for line in report.skipped]
    assert reasons == [
        "rejected submission, not a paper: 'An Unconvincing Proof of Everything'",
        "withdrawn submission, not a paper: 'A Paper Its Authors Withdrew'",
        "desk-rejected submission, not a paper: 'Out of Scope and Over Length'",
    ]
    assert all(line.startswith(f"{V2}:") for line in report.skipped)  # file and line named


def test_v1_plain_notes_in_a_bare_list() -> None:
    report = load_corpus([V1])
    papers = by_source_id(report)
    assert set(papers) == {"v1Accepted", "v1Poster01"}
    assert (papers["v1Accepted"].venue, papers["v1Accepted"].tier) == ("ICML 2024", "oral")
    assert (papers["v1Poster01"].venue, papers["v1Poster01"].tier) == ("ICML 2024", "poster")
    assert papers["v1Poster01"].year == 2024
    assert report.skipped == (f"{V1}:35: rejected submission, not a paper: 'A Rejected v1 Note'",)


def test_earlier_openreview_exports_gain_their_tier() -> None:
    papers = by_source_id(load_corpus([TEST_DATA / "openreview_v2.json"]))
    assert {k: (p.venue, p.tier) for k, p in papers.items()} == {
        "aB3dE-fGh1": ("ICML 2025", "poster"),
        "Qw_9xYz2Lm": ("ICML 2025", "oral"),
        "Zr4T0pQs8V": ("ICML 2025", "spotlight"),
        "v1StyleNote": ("ICML 2024", "poster"),
    }


@pytest.mark.parametrize(
    ("venueid", "venue", "outcome"),
    [
        ("ICML.cc/2026/Conference", "ICML 2026 oral", ""),
        ("ICML.cc/2026/Conference/Rejected_Submission", "Submitted to ICML 2026", "rejected"),
        ("ICML.cc/2026/Conference/Withdrawn_Submission", "", "withdrawn"),
        ("ICML.cc/2026/Conference/Desk_Rejected_Submission", "", "desk-rejected"),
        ("ICLR.cc/2026/Conference/Submission", "", "not accepted"),
        ("", "Submitted to ICLR 2019", "not accepted"),
        ("", "ICLR 2019 Conference Poster", ""),
    ],
)
def test_review_outcome(venueid: str, venue: str, outcome: str) -> None:
    assert review_outcome(venueid, venue) == outcome


def test_a_withdrawal_reversed_is_a_paper(tmp_path: Path) -> None:
    notes = json.loads(V2.read_text(encoding="utf-8"))["notes"]
    (reinstated,) = [n for n in notes if n["id"] == "OrNt000008"]
    path = tmp_path / "notes.json"
    path.write_text(json.dumps([reinstated]), encoding="utf-8")
    (paper,) = load_corpus([path]).papers
    assert paper.title == "Withdrawn and Reinstated: Robust Quantile Regression"
