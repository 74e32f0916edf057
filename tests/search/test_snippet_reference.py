"""Snippets equal the plain reading of the rule (`testkit.snippets.reference_snippet`).

Whatever the index knows of an abstract (its sentence spans, whether it is plain text, each
term's prefix and sentence mask) makes a snippet faster, never different: over the seed
papers' searches (a built index and one read back as a cache does), and over fuzzed texts
with tied, zero and negative weights.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.search import Index
from bot.search.query.analysis import EnglishAnalyzer
from bot.search.query.pipeline import PreparedQuery
from bot.search.snippets import best_snippet
from bot.search.snippets.sentences import sentence_masks
from bot.search.snippets.words import plain_text, short_prefixes
from bot.textutil import sentence_spans
from testkit.devset import load_seed_papers
from testkit.fuzz import FUZZ
from testkit.paths import SEED_CORPUS
from testkit.snippets import ENGLISH, SNIPPET_TEXT, reference_snippet


def _queries(papers: Sequence[object], n: int, seed: int) -> list[str]:
    """Queries of 1-4 words taken from the papers' abstracts (short ones and stopwords too)."""
    rng = random.Random(seed)
    words = [w for p in papers for w in p.abstract.split()]  # type: ignore[attr-defined]
    return [" ".join(rng.sample(words, rng.randint(1, 4))) for _ in range(n)] + ["e g x", "a"]


@pytest.fixture(scope="module")
def indexes() -> tuple[Index, Index]:
    """The seed corpus built, and as a cache reads it back."""
    built = Index.build(load_seed_papers(SEED_CORPUS))
    return built, Index.from_state(built.papers, built.to_state())


@pytest.mark.slow
def test_search_snippets_equal_the_reference(indexes: tuple[Index, Index]) -> None:
    built, cached = indexes
    reference = EnglishAnalyzer()
    compared = 0
    for query in _queries(built.papers, 150, seed=20):
        prepared = PreparedQuery(typed=query, text=query, terms=built.query_terms(query))
        terms = list(dict.fromkeys(prepared.terms))
        weights = built.term_weights(terms)
        for index in (built, cached):
            for hit in index.search(prepared, limit=10).hits:
                expected = reference_snippet(hit.paper.abstract, terms, weights, reference)
                assert hit.snippet == expected, (query, hit.paper.id)
                compared += 1
    assert compared > 2000  # the queries do find papers


WEIGHTS = st.sampled_from([1.0, 1.0, 2.5, 0.0, -1.0, 1e-300])  # ties, zero and below


@pytest.mark.slow
@FUZZ
@given(
    SNIPPET_TEXT,
    st.lists(st.sampled_from(["graph", "network", "model", "data", "x", "e", "die"])),
    st.lists(WEIGHTS, min_size=8, max_size=8),
)
def test_snippets_equal_the_reference(text: str, extra: list[str], weights: list[float]) -> None:
    terms = list(dict.fromkeys([*ENGLISH.analyze(text)[:3], *extra]))
    weighted = {t: weights[i % len(weights)] for i, t in enumerate(terms)}
    expected = reference_snippet(text, terms, weighted, EnglishAnalyzer())
    # What the index may know of an abstract: its spans and plain flag, each term's sentence
    # mask (abstracts of up to 16 sentences) and a prefix of each term (unless one is too short).
    sentences = sentence_spans(text)
    masks = sentence_masks(text, sentences or [(0, len(text))], ENGLISH.analyze, weighted)
    _, chunks, held = ENGLISH.chunk_terms(text)
    short = short_prefixes(chunks, held)
    prefixes = [t[: short[t]] if t in short else t for t in terms]
    known = {"sentences": sentences, "plain": plain_text(text, sentences, ENGLISH)}
    for given_masks in (None, masks):
        for given_prefixes in (None, prefixes) if all(short.get(t) != 0 for t in terms) else [None]:
            found = best_snippet(
                text, terms, weighted, ENGLISH, masks=given_masks, prefixes=given_prefixes, **known
            )
            assert found == expected
    assert best_snippet(text, terms, weighted, ENGLISH) == expected
