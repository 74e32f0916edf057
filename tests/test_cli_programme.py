"""`search --json` over a conference programme: each result's tier, presentations, institutions."""

from __future__ import annotations

import json

import pytest

from bot import cli
from testkit.paths import TEST_DATA

PROGRAMME = TEST_DATA / "programme"


def results(capsys: pytest.CaptureFixture[str], query: str) -> list[dict]:
    assert cli.main(["search", "--json", "--no-semantic", "--corpus", str(PROGRAMME), query]) == 0
    (answer,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return answer["results"]


def test_a_programme_paper_has_its_status_presentations_and_institutions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    top = results(capsys, "sparse routers collapse experts")[0]
    assert top["title"] == "Sparse Routers Without Collapse"
    assert top["status"] == "oral"
    assert top["presentations"] == [
        {"kind": "oral", "session": "Oral 2A Large Language Models",
         "start": "2026-07-14T15:30:00+09:00", "end": "2026-07-14T15:45:00+09:00",
         "room": "West Ballroom A", "position": "", "zone": "Asia/Seoul"},
        {"kind": "poster", "session": "Poster Session 2", "start": "2026-07-14T16:30:00+09:00",
         "end": "2026-07-14T19:00:00+09:00", "room": "East Exhibition Hall A-B",
         "position": "E-2308", "zone": "Asia/Seoul"},
    ]  # fmt: skip
    assert top["institutions"] == ["Example University"]


def test_a_paper_outside_any_programme_has_null_status_and_empty_lists(
    capsys: pytest.CaptureFixture[str],
) -> None:
    top = results(capsys, "counterfactual data augmentation spurious features")[0]
    assert top["title"] == "Counterfactual Data Augmentation for Spurious Features"
    assert (top["status"], top["presentations"], top["institutions"]) == (None, [], [])
