"""Stable, tappable paper ids."""

from __future__ import annotations

import re

import pytest

from bot.corpus import load_corpus
from bot.corpus.ids import PaperIds, assign_ids, tappable_id
from bot.corpus.model import MAX_TAPPABLE_ID_CHARS as MAX_ID_CHARS
from bot.corpus.model import is_tappable_id as is_tappable

COMMAND = re.compile(r"/paper_[A-Za-z0-9_]+")


@pytest.mark.parametrize(
    ("source_id", "expected"),
    [
        pytest.param("2402.05678", "2402_05678", id="arxiv-new"),
        pytest.param("2402.05678v2", "2402_05678v2", id="arxiv-version"),
        pytest.param("hep-th/9901001", "hep_th_9901001", id="arxiv-old"),
        pytest.param("site_8aee33c0ce", "site_8aee33c0ce", id="already-tappable"),
        pytest.param("aB3dE-fGh1", "aB3dE_fGh1", id="openreview-dash"),
    ],
)
def test_source_id_gets_a_tappable_form(source_id: str, expected: str) -> None:
    assert tappable_id(source_id) == expected


def test_long_or_symbolic_ids_are_hashed_within_the_limit() -> None:
    long_id = tappable_id("https://example.org/a/very/long/identifier/for/one/paper")
    symbols = tappable_id("+++")
    assert is_tappable(long_id) and len(long_id) <= MAX_ID_CHARS
    assert is_tappable(symbols)
    assert long_id != tappable_id("https://example.org/a/very/long/identifier/for/two/paper")


def content_id(title: str, abstract: str) -> str:
    """The id of a paper without a source id."""
    return assign_ids([(None, title, abstract)])[0]


def test_content_id_ignores_case_spacing_and_unicode_form() -> None:
    assert content_id("A Title", "Some  text.\n") == content_id("a title", "some text.")
    assert content_id("", "Caf\u00e9") == content_id("", "Cafe\u0301")
    assert content_id("", "one abstract") != content_id("", "another abstract")
    assert re.fullmatch(r"[a-z2-7]{8}", content_id("", "x"))


def test_inserting_a_paper_first_keeps_every_other_id() -> None:
    papers = [(None, "", f"Abstract number {n} about topic {n * 7}.") for n in range(20)]
    papers[3] = ("2401.01234", "Title", "Has its own id.")
    before = assign_ids(papers)
    after = assign_ids([(None, "", "A brand new first abstract."), *papers])
    assert after[1:] == before


def test_inserting_a_paper_at_the_top_of_a_real_corpus_file_keeps_ids(tmp_path) -> None:
    corpus = tmp_path / "papers.jsonl"
    lines = [f'{{"abstract": "Paper {n} studies problem {n} with method {n}."}}' for n in range(8)]
    corpus.write_text("\n".join(lines), encoding="utf-8")
    first = load_corpus([corpus]).papers
    corpus.write_text('{"abstract": "An inserted paper."}\n' + "\n".join(lines), encoding="utf-8")
    second = load_corpus([corpus]).papers
    ids_before = assign_ids([(None, "", p.abstract) for p in first])
    ids_after = assign_ids([(None, "", p.abstract) for p in second])
    assert ids_after[1:] == ids_before


def test_collisions_keep_the_first_id_and_lengthen_the_later() -> None:
    ids = assign_ids([("2402.05678", "", ""), ("2402_05678", "", ""), ("2402-05678", "", "")])
    assert ids[0] == "2402_05678"
    assert len(set(ids)) == 3
    assert all(is_tappable(paper_id) for paper_id in ids)


def test_identical_content_gets_distinct_ids() -> None:
    ids = assign_ids([(None, "T", "Same text."), (None, "t", "same  text.")])
    assert ids[0] != ids[1]
    assert ids[1].startswith(ids[0][:8]) or len(ids[1]) > 8


def test_every_id_makes_a_valid_telegram_command() -> None:
    ids = assign_ids(
        [("hep-th/9901001", "", ""), ("Qw_9xYz2Lm", "", ""), (None, "x", "y"), ("é/ü", "", "")]
    )
    assert all(COMMAND.fullmatch(f"/paper_{paper_id}") for paper_id in ids)
    assert all(len(paper_id) <= MAX_ID_CHARS for paper_id in ids)


@pytest.mark.parametrize(
    "typed",
    [
        pytest.param("/paper_2402_05678", id="command"),
        pytest.param("/paper_2402_05678@icml_bot", id="command-with-bot"),
        pytest.param("2402.05678", id="original"),
        pytest.param("arXiv:2402.05678", id="arxiv-prefix"),
        pytest.param("/paper 2402-05678", id="spaced-dashed"),
        pytest.param("2402_05678", id="tappable"),
    ],
)
def test_lookup_accepts_what_users_type(typed: str) -> None:
    lookup = PaperIds.build([("2402_05678", "2402.05678"), ("aB3dE_fGh1", "aB3dE-fGh1")])
    assert lookup.find(typed) == "2402_05678"


def test_lookup_is_case_tolerant_and_refuses_unknown_ids() -> None:
    lookup = PaperIds.build([("aB3dE_fGh1", "aB3dE-fGh1"), ("q7", None)])
    assert lookup.find("ab3de-fgh1") == "aB3dE_fGh1"
    assert lookup.find("/paper_Q7") == "q7"
    assert lookup.find("nope") is None
    assert lookup.find("") is None


def test_lookup_leaves_ambiguous_folded_forms_to_exact_ids() -> None:
    lookup = PaperIds.build([("a_b", "a-b"), ("a_b_x1", "a.b")])
    assert lookup.find("a-b") == "a_b"
    assert lookup.find("a.b") == "a_b_x1"
    assert lookup.find("A.B") is None
