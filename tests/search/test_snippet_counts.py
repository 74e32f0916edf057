"""Snippets given the index's term counts analyse only likely words, yet stay the same.

`best_snippet(..., counts=...)` checks that the words it analysed hold every counted
occurrence and otherwise takes the full pass, so right or wrong counts give one snippet.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bot.answers import results
from bot.search import Index
from bot.search import snippets as snippets_module
from bot.search.documents import document_terms
from bot.search.placement import abstract_counts, plain_text, short_prefixes
from bot.search.snippets import best_snippet
from bot.textutil import sentence_spans
from testkit.devset import load_seed_papers
from testkit.fuzz import FUZZ
from testkit.paths import SEED_CORPUS
from testkit.snippets import ENGLISH, SNIPPET_TEXT, SentenceBySentence, questions

SEED_DIR = SEED_CORPUS


@pytest.fixture(scope="module")
def seed_index() -> Index:
    return Index.build(load_seed_papers(SEED_DIR))


@FUZZ
@given(
    SNIPPET_TEXT,
    st.lists(st.sampled_from(["graph", "network", "model", "data", "x", "die"])),
    st.integers(-1, 2),
)
def test_snippets_with_counts_equal_the_slow_ones(text: str, extra: list[str], skew: int) -> None:
    terms = list(dict.fromkeys([*ENGLISH.analyze(text)[:3], *extra]))
    weights = {t: 1.0 + len(t) / 7 for t in terms}
    counts = Counter(ENGLISH.analyze(text))
    if terms:  # a wrong count (damaged input) must cost speed, never change the snippet
        counts[terms[0]] += skew if skew > 0 else 0
    given_counts = best_snippet(text, terms, weights, ENGLISH, counts=dict(counts))
    slow = best_snippet(text, terms, weights, SentenceBySentence(ENGLISH))  # type: ignore[arg-type]
    assert (given_counts.text, given_counts.marks) == (slow.text, slow.marks)
    sentences = sentence_spans(text)  # what an index cache stores: its spans, plain or not
    plain = plain_text(text, sentences, ENGLISH)
    stored = best_snippet(
        text, terms, weights, ENGLISH, counts=dict(counts), sentences=sentences, plain=plain
    )
    assert (stored.text, stored.marks) == (slow.text, slow.marks)


@FUZZ
@given(SNIPPET_TEXT, st.lists(st.sampled_from(["graph", "network", "model", "data", "x", "die"])))
def test_snippets_found_by_known_prefixes_equal_the_slow_ones(text: str, extra: list[str]) -> None:
    terms = list(dict.fromkeys([*ENGLISH.analyze(text)[:3], *extra]))
    weights = {t: 1.0 + len(t) / 7 for t in terms}
    _, chunks, held = ENGLISH.chunk_terms(text)
    short = short_prefixes(chunks, held)  # what the build notes of every abstract
    assume(all(short.get(t) != 0 for t in terms))  # a term no prefix finds is counted
    prefixes = [t[: short[t]] if t in short else t for t in terms]
    sentences = sentence_spans(text)
    found = best_snippet(
        text,
        terms,
        weights,
        ENGLISH,
        prefixes=prefixes,
        sentences=sentences,
        plain=plain_text(text, sentences, ENGLISH),
    )
    slow = best_snippet(text, terms, weights, SentenceBySentence(ENGLISH))  # type: ignore[arg-type]
    assert (found.text, found.marks) == (slow.text, slow.marks)


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


def test_counted_words_are_found_without_the_full_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "We study dying stars. Happy graphs of networks help. Graph networks are happy."
    terms = ["graph", "network", "happi", "die"]
    counts = Counter(ENGLISH.analyze(text))

    def full_pass(*args: object) -> None:
        raise AssertionError("the full pass ran")

    with monkeypatch.context() as patched:
        patched.setattr(snippets_module, "placed_chunks", full_pass)
        fast = best_snippet(text, terms[:3], dict.fromkeys(terms[:3], 1.0), ENGLISH, counts=counts)
    assert fast.text == "Happy graphs of networks help. Graph networks are happy."
    # "dying" holds "die" but not its prefix "di": the check notices and the full pass runs.
    slow = best_snippet(text, terms, dict.fromkeys(terms, 1.0), ENGLISH, counts=counts)
    assert slow == best_snippet(text, terms, dict.fromkeys(terms, 1.0), ENGLISH)
    assert "dying" in slow.text


def test_term_frequencies_are_the_indexed_counts(seed_index: Index) -> None:
    rows = np.arange(len(seed_index.papers))
    counted = [Counter(document_terms(p, seed_index.analyzer)) for p in seed_index.papers]
    for term in ["graph", "model", "learn", "nosuchterm"]:
        assert seed_index.bm25.tf(term, rows).tolist() == [c[term] for c in counted]
    assert seed_index.bm25.tf("graph", rows[:0]).tolist() == []


def test_search_snippets_equal_those_without_counts(seed_index: Index) -> None:
    for question in questions():
        result = results(seed_index, question, limit=10)
        for hit in result.hits:
            terms = list(dict.fromkeys(result.terms))
            weights = seed_index.term_weights(terms)
            plain = best_snippet(hit.paper.abstract, terms, weights, seed_index.analyzer)
            assert (hit.snippet.text, hit.snippet.marks) == (plain.text, plain.marks)


def test_abstract_counts_are_exact_or_too_high(seed_index: Index) -> None:
    # Only other-field words holding a term's prefix are analysed: a word missed makes an
    # abstract count too high (the snippet's check then takes the full pass), never too low.
    rows = np.arange(len(seed_index.papers))
    terms = sorted({t for q in questions() for t in seed_index.query_terms(q)})
    frequencies = {t: seed_index.bm25.tf(t, rows).tolist() for t in terms}
    exact = 0
    for row, paper in enumerate(seed_index.papers):
        indexed = {t: f[row] for t, f in frequencies.items()}
        counts = abstract_counts(paper, indexed, seed_index.analyzer)
        truth = Counter(seed_index.analyzer.analyze(paper.abstract))
        assert all(counts[t] >= truth[t] for t in terms), paper.id
        exact += all(counts[t] == truth[t] for t in terms)
    assert exact >= 0.9 * len(seed_index.papers), exact
