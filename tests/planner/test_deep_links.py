"""Deep links: a paper id is its own `/start` payload (Telegram's `[A-Za-z0-9_-]{1,64}`)."""

from __future__ import annotations

import re

import pytest

from bot.corpus import Paper
from bot.planner import paper_from_payload, start_link, start_payload

TELEGRAM_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")


def test_every_paper_id_is_its_payload_and_back(
    week: dict[str, Paper], papers: tuple[Paper, ...]
) -> None:
    for paper in (*week.values(), *papers):
        payload = start_payload(paper.id)
        assert payload == paper.id and TELEGRAM_PAYLOAD.fullmatch(payload)
        assert paper_from_payload(payload) == paper.id


@pytest.mark.parametrize(
    "payload", ["", " ", "a" * 27, "x" * 65, "p-1", "../etc", "id with space", "ид", "a/b"]
)
def test_payloads_that_name_no_paper(payload: str) -> None:
    assert paper_from_payload(payload) is None
    assert start_payload(payload) is None


def test_the_link_to_copy(week: dict[str, Paper]) -> None:
    paper_id = week["A"].id
    expected = f"https://t.me/icml_papers_bot?start={paper_id}"
    assert start_link("icml_papers_bot", paper_id) == expected
    assert start_link("@icml_papers_bot", paper_id) == expected
    assert start_link("bad name", paper_id) is None
    assert start_link("icml_papers_bot", "no/such id") is None
