"""The fast snippet paths choose what a plain reading of the rule chooses, mark for mark.

`reference_snippet` is the rule written out the straightforward way: every sentence analysed
whole, every window (a sentence, or two neighbours that fit) ranked by its matched terms'
weight, then a window that fits, a single sentence, the earlier one; a chosen sentence gets
its better-matching neighbour if the pair fits; matches marked from `analyze_spans` of the
window. `best_snippet` (with the index's term counts or without, with stored sentence spans
or without) and `Index.search` must give exactly its snippets: over the seed papers with
queries of their own words, and over fuzzed texts with tied, zero and negative weights.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from math import fsum

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.search import Index
from bot.search.analysis import EnglishAnalyzer
from bot.search.query import PreparedQuery
from bot.search.snippets import MAX_SNIPPET_CHARS, Snippet, _clip, best_snippet
from bot.textutil import Span, merge_marks, sentence_spans
from testkit.devset import load_seed_papers
from testkit.fuzz import FUZZ
from testkit.paths import SEED_CORPUS
from testkit.snippets import ENGLISH, SNIPPET_TEXT

SEED_DIR = SEED_CORPUS


def reference_snippet(
    text: str, terms: Sequence[str], weights: Mapping[str, float], analyzer: EnglishAnalyzer
) -> Snippet:
    """The snippet rule, straightforwardly: no counts, no caches, no skipped words."""
    wanted = {t: weights[t] for t in terms}
    sentences = sentence_spans(text) or [(0, len(text))]
    found: dict[Span, set[str]] = {
        (lo, hi): set(analyzer.analyze(text[lo:hi])) & wanted.keys() for lo, hi in sentences
    }
    for a, b in pairwise(sentences):
        found[a[0], b[1]] = found[a] | found[b]

    def weight(window: Span) -> float:
        return fsum(wanted[t] for t in found[window])

    def fits(window: Span) -> bool:
        return window[1] - window[0] <= MAX_SNIPPET_CHARS

    def rank(window: Span) -> tuple[float, bool, bool, int]:
        return weight(window), fits(window), window in sentences, -window[0]

    windows = sentences + [(a[0], b[1]) for a, b in pairwise(sentences) if fits((a[0], b[1]))]
    if not any(found.values()):
        window = sentences[0]
        if len(sentences) > 1 and fits((window[0], sentences[1][1])):
            window = window[0], sentences[1][1]
    else:
        window = max((w for w in windows if found[w]), key=rank)
        if weight(window) <= 0:
            window = max(windows, key=rank)
        if window in sentences:
            i = sentences.index(window)
            before = (sentences[i - 1][0], window[1]) if i > 0 else None
            after = (window[0], sentences[i + 1][1]) if i + 1 < len(sentences) else None
            options = [
                (weight(sentences[j]), is_after, pair)
                for j, is_after, pair in ((i - 1, False, before), (i + 1, True, after))
                if pair is not None and fits(pair)
            ]
            if options:
                window = max(options)[2]
    lo, hi = window
    shown = [(s, e) for t, s, e in analyzer.analyze_spans(text[lo:hi]) if t in wanted]
    return _clip(text[lo:hi], merge_marks(shown), MAX_SNIPPET_CHARS)


def _queries(papers: Sequence[object], n: int, seed: int) -> list[str]:
    """Queries of 1-4 words taken from the papers' abstracts (short ones and stopwords too)."""
    rng = random.Random(seed)
    words = [w for p in papers for w in p.abstract.split()]  # type: ignore[attr-defined]
    return [" ".join(rng.sample(words, rng.randint(1, 4))) for _ in range(n)] + ["e g x", "a"]


@pytest.fixture(scope="module")
def indexes() -> tuple[Index, Index]:
    """The seed corpus built (sentences split per snippet) and as a cache reads it (stored)."""
    built = Index.build(load_seed_papers(SEED_DIR))
    return built, Index.from_state(built.papers, built.to_state())


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


@FUZZ
@given(
    SNIPPET_TEXT,
    st.lists(st.sampled_from(["graph", "network", "model", "data", "x", "e", "die"])),
    st.lists(WEIGHTS, min_size=8, max_size=8),
    st.integers(0, 2),
)
def test_fast_snippets_equal_the_reference(
    text: str, extra: list[str], weights: list[float], skew: int
) -> None:
    terms = list(dict.fromkeys([*ENGLISH.analyze(text)[:3], *extra]))
    weighted = {t: weights[i % len(weights)] for i, t in enumerate(terms)}
    counts = Counter(ENGLISH.analyze(text))
    if terms:  # a count too high (a damaged index) costs speed, never the snippet
        counts[terms[0]] += skew
    expected = reference_snippet(text, terms, weighted, EnglishAnalyzer())
    assert best_snippet(text, terms, weighted, ENGLISH) == expected
    assert best_snippet(text, terms, weighted, ENGLISH, counts=counts) == expected
    stored = sentence_spans(text)
    assert best_snippet(text, terms, weighted, ENGLISH, counts=counts, sentences=stored) == expected


def test_cached_spans_equal_fresh_ones_and_stay_bounded() -> None:
    analyzer = EnglishAnalyzer(max_cache=50)
    words = ["state-of-the-art", "(GNNs),", "LLMs", "R$^3$", "naïve", "x", "models.)", ""]
    for word in words * 3:
        spans = analyzer.analyze_spans(word)
        assert spans == EnglishAnalyzer().analyze_spans(word)
        spans.append(("changed", 0, 0))  # the caller's list is its own
    assert analyzer.analyze_spans("state-of-the-art")[-1] != ("changed", 0, 0)
    for i in range(200):  # more distinct words than the cache holds
        assert analyzer.analyze_spans(f"graph{i}-net") == EnglishAnalyzer().analyze_spans(
            f"graph{i}-net"
        )
    assert len(analyzer._spans) <= 50
