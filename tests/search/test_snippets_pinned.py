"""Snippets stay the same while they get faster: pinned on the dev set, fast path = slow path.

`tests/snapshots/devset_snippets.json` holds, for every dev-set question, the top 10 hits' ids,
snippet texts and marks as chosen before the snippet code was optimised.
Regenerate only for an intended change of behaviour:
`PYTHONPATH=. uv run python tests/test_snippets_pinned.py --write`.
"""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.search import Index
from bot.search.query import PreparedQuery
from bot.search.snippets import best_snippet
from testkit.devset import load_seed_papers
from testkit.fuzz import FUZZ
from testkit.paths import SEED_CORPUS, SNAPSHOTS
from testkit.snippets import ENGLISH, SNIPPET_TEXT, SentenceBySentence, questions

PINNED = SNAPSHOTS / "devset_snippets.json"
SEED_DIR = SEED_CORPUS


def snippets(index: Index) -> dict[str, list[list[object]]]:
    """Per question: [paper id, snippet text, marks] of the top 10.

    Each question is searched word for word (as pinned, before the query pipeline dropped
    request words): the pins are of the snippet code, not of what a question's terms are.
    """
    return {
        q: [[h.paper.id, h.snippet.text, [list(m) for m in h.snippet.marks]] for h in hits]
        for q in questions()
        for hits in [index.search(_verbatim(index, q), limit=10).hits]
    }


def _verbatim(index: Index, question: str) -> PreparedQuery:
    """`question` with every word of it searched."""
    return PreparedQuery(typed=question, text=question, terms=tuple(index.query_terms(question)))


@pytest.fixture(scope="module")
def seed_index() -> Index:
    return Index.build(load_seed_papers(SEED_DIR))


def test_devset_snippets_are_unchanged(seed_index: Index) -> None:
    pinned = json.loads(PINNED.read_text("utf-8"))
    assert len(pinned) == len(questions())
    assert snippets(seed_index) == pinned


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    PINNED.write_text(
        json.dumps(snippets(Index.build(load_seed_papers(SEED_DIR))), ensure_ascii=False, indent=1)
        + "\n",
        encoding="utf-8",
    )


@FUZZ
@given(SNIPPET_TEXT, st.lists(st.sampled_from(["graph", "network", "model", "data", "x"])))
def test_fast_snippets_equal_the_sentence_by_sentence_ones(text: str, extra: list[str]) -> None:
    terms = list(dict.fromkeys([*ENGLISH.analyze(text)[:3], *extra]))
    weights = {t: 1.0 + len(t) / 7 for t in terms}
    fast = best_snippet(text, terms, weights, ENGLISH)
    slow = best_snippet(text, terms, weights, SentenceBySentence(ENGLISH))  # type: ignore[arg-type]
    assert (fast.text, fast.marks) == (slow.text, slow.marks)


@FUZZ
@given(SNIPPET_TEXT)
def test_chunk_terms_are_analyze_word_by_word(text: str) -> None:
    folded, chunks, terms = ENGLISH.chunk_terms(text)
    assert len(folded) == len(text) and chunks == folded.split()
    assert [t for chunk in terms for t in chunk] == ENGLISH.analyze(text)
