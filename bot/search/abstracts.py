"""What an index keeps of its abstracts so that a snippet need not work it out per hit.

Noted once, while the build analyses each abstract: its sentence spans, whether it is
`placement.plain_text`, and which terms some abstract word holds without containing the
term's `placement.word_prefix`. A snippet for a query none of whose terms is such then finds
the words holding them by their prefixes alone: nothing counted, nothing checked.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np

from bot.search.analysis import Analyzer
from bot.search.placement import plain_text, unprefixed_terms
from bot.search.storage.columns import SpansColumn
from bot.search.vocabulary import Vocabulary
from bot.textutil import Span, sentence_spans

__all__ = ["AbstractLayout", "AbstractNotes"]

_CHECKED = 300_000
"""Distinct abstract words remembered as checked during a build (then forgotten, rechecked)."""


class AbstractLayout:
    """Per paper: the abstract's sentence spans and plain-text flag; per term: prefixed or not."""

    __slots__ = ("_plain", "_plain_at", "_sentences", "_unprefixed", "_unprefixed_at")

    def __init__(self, sentences: SpansColumn, plain: np.ndarray, unprefixed: np.ndarray) -> None:
        """sentences: each abstract's `sentence_spans`; plain: one uint8 per paper, 1 if its
        abstract is `plain_text`; unprefixed: one uint8 per vocabulary term, 1 if some
        abstract word holds it without containing its prefix. `ValueError` if they disagree."""
        if plain.dtype != np.uint8 or unprefixed.dtype != np.uint8:
            raise ValueError("abstract flags are not bytes")
        if plain.shape != (len(sentences),) or unprefixed.ndim != 1:
            raise ValueError("abstract flags are for a different number of papers")
        self._sentences = sentences
        self._plain = plain
        self._unprefixed = unprefixed
        # Python ints from memoryviews: no numpy scalar a snippet.
        self._plain_at = memoryview(np.ascontiguousarray(plain))
        self._unprefixed_at = memoryview(np.ascontiguousarray(unprefixed))

    @classmethod
    def from_state(cls, state: Mapping[str, Any], *, papers: int, terms: int) -> AbstractLayout:
        """Rebuild from `to_state()`; `ValueError` if it does not fit `papers` and `terms`."""
        try:
            sentences = SpansColumn(
                np.asarray(state["sentences"]), np.asarray(state["sentence_offsets"])
            )
            plain = np.asarray(state["abstract_plain"])
            unprefixed = np.asarray(state["unprefixed_terms"])
        except KeyError as error:
            raise ValueError(f"index state is incomplete: {error}") from error
        if len(sentences) != papers or unprefixed.shape != (terms,):
            raise ValueError("abstract layout is for another corpus")
        return cls(sentences, plain, unprefixed)

    def to_state(self) -> dict[str, np.ndarray]:
        """The arrays `from_state` reads."""
        flat, offsets = self._sentences.arrays()
        return {
            "sentences": flat,
            "sentence_offsets": offsets,
            "abstract_plain": self._plain,
            "unprefixed_terms": self._unprefixed,
        }

    def row(self, row: int, abstract: str) -> tuple[list[Span] | None, bool]:
        """Paper `row`'s sentence spans (None if they do not fit `abstract`) and plain flag."""
        spans = self._sentences[row]
        if spans and spans[-1][1] > len(abstract):
            return None, False
        return spans, self._plain_at[row] == 1

    def prefixed(self, term_ids: Sequence[int | None]) -> bool:
        """Whether every abstract word holding one of these terms contains its prefix (an
        unknown term, None, is held by no word)."""
        flags = self._unprefixed_at
        return not any(flags[i] for i in term_ids if i is not None)

    @property
    def nbytes(self) -> int:
        """Bytes held."""
        return self._sentences.nbytes + self._plain.nbytes + self._unprefixed.nbytes


class AbstractNotes:
    """Notes each abstract while the build analyses it; `layout` then makes the layout."""

    def __init__(self, analyzer: Analyzer) -> None:
        """Analyse with `analyzer` (it must have `chunk_terms`, as `EnglishAnalyzer` has)."""
        self.analyzer = analyzer
        self._spans = array("I")  # every abstract's sentence starts and ends in turn
        self._offsets = array("q", [0])
        self._plain = bytearray()
        self._unprefixed: set[str] = set()
        self._checked: set[str] = set()

    def abstract_terms(self, abstract: str) -> list[str]:
        """`analyzer.analyze(abstract)`, noting its sentences, plain flag and unprefixed terms."""
        _, chunks, held = self.analyzer.chunk_terms(abstract)  # type: ignore[attr-defined]
        spans = sentence_spans(abstract)
        self._spans.extend(chain.from_iterable(spans))
        self._offsets.append(len(self._spans) // 2)
        self._plain.append(plain_text(abstract, spans, self.analyzer))
        fresh = set(chunks) - self._checked  # most words recur: each is checked once
        if fresh:
            of = dict(zip(chunks, held, strict=True))
            self._unprefixed |= unprefixed_terms(fresh, map(of.__getitem__, fresh))
            if len(self._checked) > _CHECKED:
                self._checked.clear()
            self._checked |= fresh
        return list(chain.from_iterable(held))

    def layout(self, vocab: Vocabulary) -> AbstractLayout:
        """The layout noted, its term flags over `vocab` (which holds every abstract term)."""
        unprefixed = np.zeros(len(vocab), dtype=np.uint8)
        ids = [vocab.id(t) for t in self._unprefixed]
        unprefixed[[i for i in ids if i is not None]] = 1
        plain = np.frombuffer(bytes(self._plain), dtype=np.uint8).copy()
        flat = np.frombuffer(self._spans, dtype=np.uintc).astype(np.uint32)
        sentences = SpansColumn(flat, np.frombuffer(self._offsets, dtype=np.int64).copy())
        return AbstractLayout(sentences, plain, unprefixed)
