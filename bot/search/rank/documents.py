"""What a paper is indexed as, and what the index keeps of its abstract for snippets."""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np

from bot.corpus import Paper
from bot.search.query.analysis import Analyzer
from bot.search.rank.vocabulary import Vocabulary
from bot.search.snippets.sentences import sentence_masks
from bot.search.snippets.words import plain_text, short_prefixes, word_prefix
from bot.search.storage.columns import SpansColumn
from bot.textutil import Span, sentence_spans

TITLE_WEIGHT = 2
"""A paper's title terms are indexed this many times (its abstract's once)."""


def document_terms(
    paper: Paper, analyzer: Analyzer, *, abstract: list[str] | None = None
) -> list[str]:
    """Terms indexed for `paper`: title's `TITLE_WEIGHT` times, then abstract, keywords, authors."""
    if abstract is None:
        abstract = analyzer.analyze(paper.abstract)
    terms = analyzer.analyze(paper.title) * TITLE_WEIGHT + abstract
    for extra in (*paper.keywords, *paper.authors):
        terms += analyzer.analyze(extra)
    return terms


MASKED_SENTENCES = 16
"""Sentences a term's posting marks (its uint16 payload); a longer abstract's snippet is
worked out from its text."""

_CHECKED = 300_000
"""Distinct abstract words remembered as checked during a build (then forgotten, rechecked)."""

WHOLE_TERM = 255
"""A term's prefix length when every abstract word holding it contains the whole term."""

MIN_PREFIX_CHARS = 3
"""A shorter prefix (than this or the term's `word_prefix`) is held by too many words to be
worth looking for: such a term's words are found by analysing the snippet's window."""


class AbstractLayout:
    """Per paper: the abstract's sentence spans and plain-text flag; per term: its prefix."""

    __slots__ = ("_plain", "_plain_at", "_prefix_chars", "_prefix_chars_at", "_sentences")

    def __init__(self, sentences: SpansColumn, plain: np.ndarray, prefix_chars: np.ndarray) -> None:
        """Sentence spans, plain flags and prefix lengths; `ValueError` if they disagree."""
        if plain.dtype != np.uint8 or prefix_chars.dtype != np.uint8:
            raise ValueError("abstract flags are not bytes")
        if plain.shape != (len(sentences),) or prefix_chars.ndim != 1:
            raise ValueError("abstract flags are for a different number of papers")
        self._sentences = sentences
        self._plain = plain
        self._prefix_chars = prefix_chars
        # Python ints from memoryviews: no numpy scalar a snippet.
        self._plain_at = memoryview(np.ascontiguousarray(plain))
        self._prefix_chars_at = memoryview(np.ascontiguousarray(prefix_chars))

    @classmethod
    def from_state(cls, state: Mapping[str, Any], *, papers: int, terms: int) -> AbstractLayout:
        """Rebuild from `to_state()`; `ValueError` if it does not fit `papers` and `terms`."""
        try:
            sentences = SpansColumn(
                np.asarray(state["sentences"]), np.asarray(state["sentence_offsets"])
            )
            plain = np.asarray(state["abstract_plain"])
            prefix_chars = np.asarray(state["prefix_chars"])
        except KeyError as error:
            raise ValueError(f"index state is incomplete: {error}") from error
        if len(sentences) != papers or prefix_chars.shape != (terms,):
            raise ValueError("abstract layout is for another corpus")
        return cls(sentences, plain, prefix_chars)

    def to_state(self) -> dict[str, np.ndarray]:
        """The arrays `from_state` reads."""
        flat, offsets = self._sentences.arrays()
        return {
            "sentences": flat,
            "sentence_offsets": offsets,
            "abstract_plain": self._plain,
            "prefix_chars": self._prefix_chars,
        }

    def row(self, row: int, abstract: str) -> tuple[list[Span] | None, bool]:
        """Paper `row`'s sentence spans (None if they do not fit `abstract`) and plain flag."""
        spans = self._sentences[row]
        if spans and spans[-1][1] > len(abstract):
            return None, False
        return spans, self._plain_at[row] == 1

    def prefixes(self, terms: Sequence[str], ids: Sequence[int | None]) -> dict[str, str] | None:
        """Per term, a prefix every abstract word holding it contains; None if one is too short."""
        found = {}
        for term, i in zip(terms, ids, strict=True):
            chars = WHOLE_TERM if i is None else self._prefix_chars_at[i]
            if chars == WHOLE_TERM:
                found[term] = term
            elif chars >= min(MIN_PREFIX_CHARS, len(word_prefix(term))):
                found[term] = term[:chars]
            else:
                return None
        return found

    @property
    def nbytes(self) -> int:
        """Bytes held."""
        return self._sentences.nbytes + self._plain.nbytes + self._prefix_chars.nbytes


class AbstractNotes:
    """Notes each abstract while the build analyses it; `layout` then makes the layout."""

    def __init__(self, analyzer: Analyzer) -> None:
        """Analyse with `analyzer` (it must have `chunk_terms`, as `EnglishAnalyzer` has)."""
        self.analyzer = analyzer
        self._spans = array("I")  # every abstract's sentence starts and ends in turn
        self._offsets = array("q", [0])
        self._plain = bytearray()
        self._short: dict[str, int] = {}  # `short_prefixes` of every abstract noted
        self._checked: set[str] = set()

    def document(self, paper: Paper) -> tuple[list[str], dict[str, int]]:
        """Terms `paper` is indexed as, and each abstract term's sentences (bit i: sentence i)."""
        terms, masks = self._abstract(paper.abstract)
        return document_terms(paper, self.analyzer, abstract=terms), masks

    def _abstract(self, abstract: str) -> tuple[list[str], dict[str, int]]:
        """`analyzer.analyze(abstract)` and its sentence masks; its layout and prefixes noted."""
        chunk_terms = self.analyzer.chunk_terms  # type: ignore[attr-defined]
        _, chunks, held = chunk_terms(abstract)
        spans = sentence_spans(abstract)
        self._spans.extend(chain.from_iterable(spans))
        self._offsets.append(len(self._spans) // 2)
        self._plain.append(plain_text(abstract, spans, self.analyzer))
        fresh = set(chunks) - self._checked  # most words recur: each is checked once
        if fresh:
            of = dict(zip(chunks, held, strict=True))
            short = self._short
            for term, chars in short_prefixes(fresh, map(of.__getitem__, fresh)).items():
                short[term] = min(chars, short.get(term, chars))
            if len(self._checked) > _CHECKED:
                self._checked.clear()
            self._checked |= fresh
        # Each sentence analysed on its own, as a snippet reads it.
        masks = sentence_masks(
            abstract, (spans or [(0, len(abstract))])[:MASKED_SENTENCES], self.analyzer.analyze
        )
        return list(chain.from_iterable(held)), masks

    def layout(self, vocab: Vocabulary) -> AbstractLayout:
        """The layout noted, its prefix lengths over `vocab` (which holds every abstract term)."""
        prefix_chars = np.full(len(vocab), WHOLE_TERM, dtype=np.uint8)
        for term, chars in self._short.items():
            i = vocab.id(term)
            if i is not None:
                prefix_chars[i] = chars
        plain = np.frombuffer(bytes(self._plain), dtype=np.uint8).copy()
        flat = np.frombuffer(self._spans, dtype=np.uintc).astype(np.uint32)
        sentences = SpansColumn(flat, np.frombuffer(self._offsets, dtype=np.int64).copy())
        return AbstractLayout(sentences, plain, prefix_chars)
