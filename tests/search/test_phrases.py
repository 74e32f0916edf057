"""Phrase matching on the analyzer's terms: what "these words in this order" means."""

from __future__ import annotations

import numpy as np
import pytest

from bot.search.query.analysis import EnglishAnalyzer
from bot.search.rank.phrases import PhraseIndex, phrase_terms

TITLES = [
    "Graph Neural Networks for Molecules",
    "Self-Supervised Learning of Visual Features",
    "Networks, Neural and Graph",
    "A Survey",
    "First-order Methods",
]
ABSTRACTS = [
    "We study message passing.",
    "Self supervised pretraining helps; graph of neural networks too.",
    "Neural graph models. Graph. Neural networks follow.",
    "This ends with graph",
    "neural networks, in the first order regime.",
]


@pytest.fixture(scope="module")
def index() -> PhraseIndex:
    return PhraseIndex.build(TITLES, ABSTRACTS)


def rows(index: PhraseIndex, text: str, **kwargs: bool) -> list[int]:
    return sorted(set(index.rows(index.terms(text), **kwargs).tolist()))


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        # Paper 2 holds "Graph. Neural networks": two sentences, so no phrase.
        pytest.param("graph neural networks", [0, 1], id="stemmed-and-stopwords-skipped"),
        pytest.param("Graph Neural Network", [0, 1], id="case-and-plural"),
        pytest.param("neural graph", [2], id="order-matters"),
        pytest.param("self-supervised", [1], id="compound-as-parts"),
        pytest.param("self supervised", [1], id="parts-match-compound"),
        pytest.param("first order", [4], id="compound-and-spaced"),
        pytest.param("networks neural", [2], id="punctuation-ignored"),
        pytest.param("molecules message", [], id="never-across-title-and-abstract"),
        pytest.param("graph neural", [0, 1], id="two-terms"),
        pytest.param("graph neural", [0, 1], id="never-across-a-sentence-end"),
        pytest.param("survey ends", [], id="never-across-fields-after-a-stopword"),
        pytest.param("graph networks neural", [], id="not-adjacent"),
        pytest.param("unknownword graph", [], id="unknown-term"),
    ],
)
def test_phrase_rows(index: PhraseIndex, phrase: str, expected: list[int]) -> None:
    assert rows(index, phrase) == expected


@pytest.mark.parametrize(
    ("abstract", "held"),
    [
        pytest.param("We learn on graphs. Neural network architectures follow.", False, id="dot"),
        pytest.param("Is it a graph? Neural networks say no.", False, id="question-mark"),
        pytest.param("It works on graphs! Neural networks agree.", False, id="exclamation"),
        pytest.param('We say "graph." Neural networks disagree.', False, id="dot-in-quotes"),
        pytest.param("Graph neural networks. They work.", True, id="within-a-sentence"),
        pytest.param("On graphs; neural networks follow.", True, id="semicolon-is-no-end"),
        pytest.param("See Fig. 2: graph neural networks.", True, id="after-an-abbreviation"),
        pytest.param("Graphs 2.0. Neural networks too.", False, id="number-then-dot"),
    ],
)
def test_a_phrase_never_spans_a_sentence_boundary(abstract: str, held: bool) -> None:
    one = PhraseIndex.build(["A title"], [abstract])
    assert rows(one, "graph neural networks") == ([0] if held else [])


def test_phrase_never_runs_from_one_paper_into_the_next(index: PhraseIndex) -> None:
    # Paper 3's abstract ends with "graph", paper 4's title starts with "First".
    assert rows(index, "graph first") == []


def test_title_only(index: PhraseIndex) -> None:
    assert rows(index, "graph neural", title_only=True) == [0]
    assert rows(index, "neural networks", title_only=True) == [0]
    assert rows(index, "first order", title_only=True) == [4]


def test_one_term_rows_are_every_paper_holding_it(index: PhraseIndex) -> None:
    assert rows(index, "graph") == [0, 1, 2, 3]


def test_phrase_terms_drop_the_joined_form_the_index_adds() -> None:
    analyzer = EnglishAnalyzer()
    assert "selfsupervis" in analyzer.analyze("self-supervised")
    assert phrase_terms("self-supervised", analyzer) == phrase_terms("self supervised", analyzer)
    assert phrase_terms("The Graph of Networks", analyzer) == ("graph", "network")


def test_an_empty_corpus_and_empty_texts() -> None:
    empty = PhraseIndex.build([], [])
    assert len(empty) == 0
    assert empty.rows(("graph",)).tolist() == []
    blank = PhraseIndex.build(["", "x"], ["", ""])
    assert np.asarray(blank.rows(blank.terms("x"))).tolist() == [1]
