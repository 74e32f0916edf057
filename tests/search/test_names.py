"""Titles as evidence: a leading name found however it is typed, and title words weighing more."""

from __future__ import annotations

import pytest

from bot.corpus import Paper
from bot.search import Index
from bot.search.query.names import NameTable, leading_name, name_key

NEIGHBOURS = [
    Paper("1", "StepCodeReasoner: Verifiable Code Reasoning Step by Step",
          "We train a model to reason about programs one execution step at a time."),
    Paper("2", "Step by Step Code Reasoning with Large Language Models",
          "Code reasoning step by step: a reasoner that traces each code step of a program."),
    Paper("3", "A Reasoner for Code: Stepwise Program Understanding",
          "Our code reasoner reads every step of the code and reasons about each step."),
    Paper("4", "R³-Refiner: Refining Rationales, Rewards and Responses",
          "A refiner that refines three things at once for reasoning models."),
    Paper("5", "Refining Rewards for Reasoning",
          "A reward refiner for reasoning: refining rewards, responses and rationales."),
    Paper("6", "τ-Voice: Benchmarking Voice Agents",
          "A benchmark of full-duplex voice agents on real domains."),
    Paper("7", "Voice Agents in the Wild",
          "Voice agents benchmarked on real-world voice tasks, a voice benchmark."),
]  # fmt: skip


@pytest.fixture(scope="module")
def index() -> Index:
    built = Index.build(NEIGHBOURS)
    built.queries.load_speller()  # the names are read with the speller
    return built


@pytest.mark.parametrize(
    "typed",
    ["step code reasoner", "stepcodereasoner", "Step-Code-Reasoner", "stepCodeReasoner",
     "STEP CODE REASONER", "step-code reasoner", "StepCodeReasoner?"],
)  # fmt: skip
def test_a_name_typed_any_way_finds_its_paper_first(index: Index, typed: str) -> None:
    result = index.search(index.queries.prepare(typed), limit=3)
    assert result.hits[0].paper.id == "1"
    assert result.confident


@pytest.mark.parametrize(
    ("typed", "expected"), [("r3 refiner", "4"), ("R3-refiner", "4"), ("tau voice", "6")]
)
def test_superscripts_and_greek_letters_typed_plainly(index: Index, typed: str, expected: str):
    assert index.search(index.queries.prepare(typed), limit=1).hits[0].paper.id == expected


def test_without_the_name_the_split_words_lose_to_papers_sharing_them() -> None:
    """What the names buy: the same words, read as words, rank a neighbour first."""
    plain = Index.build(NEIGHBOURS)
    terms = plain.query_terms("step code reasoner")
    ranked, _, _ = plain.bm25.top(terms, 1)
    assert plain.papers[int(ranked[0])].id != "1"


def test_name_keys_ignore_case_hyphens_splits_superscripts_and_greek() -> None:
    typed = ("StepCodeReasoner", "step code reasoner", "Step-Code-Reasoner", "step_code.reasoner")
    assert {name_key(s) for s in typed} == {"stepcodereasoner"}
    assert name_key("R³-Refiner") == name_key("r3 refiner") == "r3refiner"
    assert name_key("τ-Voice") == name_key("Tau voice") == "tauvoice"


def test_leading_names_are_one_word_before_the_colon() -> None:
    assert leading_name("SWE-Compass: Towards Unified Evaluation") == "SWE-Compass"
    assert leading_name("Dynamic Fractal Mamba: A Neural Flow") is None  # words already match
    assert leading_name("No colon in this title") is None
    assert leading_name("d2: Improved Techniques") is None  # too short to be read as a name


def test_with_names_keeps_known_words_and_leaves_other_text_alone() -> None:
    table = NameTable(["GraphRAG: Graphs for Retrieval", "Position: Something"])
    known = {"graph", "rag", "retrieval"}.__contains__
    assert table.with_names("graph rag retrieval", known) == "graph rag GraphRAG retrieval"
    assert table.with_names("grapH-RaG", known) == "GraphRAG"
    assert table.with_names("graphs for retrieval", known) == "graphs for retrieval"
    assert table.with_names("", known) == ""


def test_names_are_read_once_the_speller_is_asked_for() -> None:
    fresh = Index.build(NEIGHBOURS)
    assert "stepcodereason" not in fresh.queries.prepare("step code reasoner").terms
    fresh.queries.load_speller()
    assert "stepcodereason" in fresh.queries.prepare("step code reasoner").terms


def test_an_unknown_half_of_a_name_is_not_corrected_away(index: Index) -> None:
    prepared = index.queries.prepare("stepcode reasoner")
    assert set(index.query_terms("StepCodeReasoner")) <= set(prepared.terms)
    assert prepared.corrected == ""


TITLED = [
    Paper("t", "Sparse Autoencoders for Medical Image Segmentation",
          "We interpret what segmentation networks learn on brain scans."),
    Paper("a", "Interpreting Networks",
          "Sparse autoencoders on medical image features: sparse autoencoders explain medical "
          "image models, and image segmentation benefits."),
    Paper("b", "Segmentation Benchmarks",
          "Medical image segmentation with sparse features; image segmentation of medical data."),
]  # fmt: skip


def test_a_question_that_matches_most_of_a_title_finds_that_paper_first() -> None:
    """Title words count `TITLE_WEIGHT` times: the title beats abstracts repeating its words."""
    index = Index.build(TITLED)
    index.queries.load_speller()
    result = index.search(index.queries.prepare("sparse autoencoders medical segmentation"))
    assert result.hits[0].paper.id == "t"


def test_title_terms_are_indexed_title_weight_times() -> None:
    from bot.search.rank.documents import TITLE_WEIGHT, document_terms

    terms = document_terms(TITLED[0], Index.build(TITLED).analyzer)
    assert terms.count("autoencod") == TITLE_WEIGHT == 2
