"""Which words hold which terms: the prefixes the index notes, plain text, term counts."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from bot.search import Index
from bot.search.rank.documents import document_terms
from bot.search.snippets.words import plain_text, short_prefixes
from bot.textutil import sentence_spans
from testkit.devset import load_seed_papers
from testkit.paths import SEED_CORPUS
from testkit.snippets import ENGLISH


@pytest.fixture(scope="module")
def seed_index() -> Index:
    return Index.build(load_seed_papers(SEED_CORPUS))


def test_short_prefixes_are_what_every_word_holding_the_term_contains() -> None:
    text = "We study dying stars with first-order methods. First order, first-order. Happy?"
    _, chunks, held = ENGLISH.chunk_terms(text)
    assert short_prefixes(chunks, held) == {"studi": 4, "die": 1, "firstord": 5, "happi": 4}


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("Graph networks help. They learn.", True),
        ("", True),
        ('He said "graphs help." Then left.', False),  # a quote after the dot: one word
        ("Graphs \\ networks.", False),  # a backslash starts markup
        ("Café graphs help.", False),
        ("See https://x.org/a for graphs.", False),  # markup folds to spaces
        ("Tabs\there.", False),
        ("Two  spaces are printable.", True),
    ],
)
def test_plain_text_is_ascii_that_needs_no_check(text: str, plain: bool) -> None:
    assert plain_text(text, sentence_spans(text), ENGLISH) is plain


def test_term_frequencies_are_the_indexed_counts(seed_index: Index) -> None:
    rows = np.arange(len(seed_index.papers))
    counted = [Counter(document_terms(p, seed_index.analyzer)) for p in seed_index.papers]
    for term in ["graph", "model", "learn", "nosuchterm"]:
        assert seed_index.bm25.tf(term, rows).tolist() == [c[term] for c in counted]
    assert seed_index.bm25.tf("graph", rows[:0]).tolist() == []
