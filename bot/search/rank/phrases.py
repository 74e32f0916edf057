"""Where each term sits in every title and abstract, so phrases are matched without a scan.

A phrase is the analyzer's terms adjacent in order within one sentence of one field, never
across a sentence, a title's end or a paper; a compound's joined term is left out here so both
spellings match. A phrase costs a binary search per candidate position of its rarest term.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np

from bot.search.query.analysis import Analyzer, EnglishAnalyzer
from bot.textutil import sentence_spans

_GAP = -1
"""The term id of the empty position between two sentences or fields (no phrase spans it)."""


_JOINERS = str.maketrans("-/", "  ")


def _split_compounds(text: str, analyzer: Analyzer) -> str:
    """`text` folded as analysis folds it, hyphens and slashes (compound joiners) as spaces."""
    return analyzer.fold(text).translate(_JOINERS)  # type: ignore[attr-defined]


def phrase_terms(text: str, analyzer: Analyzer) -> tuple[str, ...]:
    """The terms of `text` as phrases see them: analysed, compounds as their parts only."""
    return tuple(analyzer.analyze(_split_compounds(text, analyzer)))


class _ChunkIds:
    """Term ids of texts, chunk by chunk through a cache (most chunks of a corpus repeat)."""

    MAX_CACHE = 500_000

    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer
        self.vocab: dict[str, int] = {}
        self._cache: dict[str, tuple[int, ...]] = {}

    def sentences(self, text: str) -> list[int]:
        """The term ids of `text`'s phrase terms in order, a gap after each sentence."""
        folded = _split_compounds(text, self.analyzer)  # the same positions as `text`
        spans = sentence_spans(text) if text else []
        if len(spans) <= 1:  # a title, mostly
            return [*chain.from_iterable(self._ids(folded.split())), _GAP]
        pieces = [folded[start:end].split() for start, end in spans]
        found = iter(self._ids([chunk for piece in pieces for chunk in piece]))
        ids: list[int] = []
        for piece in pieces:
            for _ in piece:
                ids.extend(next(found))
            ids.append(_GAP)
        return ids

    def _ids(self, chunks: list[str]) -> list[tuple[int, ...]]:
        """Each chunk's term ids (chunks not seen before analysed in one call)."""
        found = list(map(self._cache.get, chunks))
        if None in found:
            new = self._learn([c for c, f in zip(chunks, found, strict=True) if f is None])
            found = [new[c] if f is None else f for c, f in zip(chunks, found, strict=True)]
        return found  # type: ignore[return-value]

    def _learn(self, chunks: list[str]) -> dict[str, tuple[int, ...]]:
        """Analyse chunks not in the cache (in one call) and remember their ids."""
        missing = list(dict.fromkeys(chunks))
        _, read, terms = self.analyzer.chunk_terms(" ".join(missing))  # type: ignore[attr-defined]
        if len(read) != len(missing):  # folding again changed a chunk (a stray backslash)
            terms = [tuple(self.analyzer.analyze(chunk)) for chunk in missing]
        if len(self._cache) >= self.MAX_CACHE:
            self._cache.clear()
        vocab = self.vocab
        new = {
            chunk: tuple(vocab.setdefault(t, len(vocab)) for t in chunk_terms)
            for chunk, chunk_terms in zip(missing, terms, strict=True)
        }
        self._cache.update(new)
        return new


class PhraseIndex:
    """Term positions of every paper's title and abstract; immutable, safe to share."""

    __slots__ = ("_abstract_at", "_analyzer", "_paper_at", "_positions", "_postings", "_vocab")

    def __init__(
        self,
        vocab: dict[str, int],
        positions: tuple[np.ndarray, np.ndarray],
        postings: tuple[np.ndarray, np.ndarray],
        paper_at: np.ndarray,
        abstract_at: np.ndarray,
        analyzer: Analyzer,
    ) -> None:
        """Assemble from arrays; use `build`.

        positions, postings: (values grouped by term id, ascending within; `starts`: term `t` owns
            `[starts[t], starts[t + 1])`); paper_at, abstract_at: each paper's first positions.
        """
        self._vocab = vocab
        self._positions = positions
        self._postings = postings
        self._paper_at = paper_at
        self._abstract_at = abstract_at
        self._analyzer = analyzer

    @classmethod
    def build(cls, titles: Iterable[str], abstracts: Iterable[str]) -> PhraseIndex:
        """Index each paper's title and abstract (in paper order)."""
        chunk_ids = _ChunkIds(EnglishAnalyzer())  # freed after the build, with its cache
        ids: list[int] = []
        paper_at: list[int] = []
        abstract_at: list[int] = []
        for title, abstract in zip(titles, abstracts, strict=True):
            paper_at.append(len(ids))
            ids.extend(chunk_ids.sentences(title))
            abstract_at.append(len(ids))
            ids.extend(chunk_ids.sentences(abstract))
        flat = np.array(ids, dtype=np.int32)
        del ids
        dtype = np.int32 if len(flat) < 2**31 else np.int64
        starts = np.array(paper_at, dtype=dtype)
        return cls(
            chunk_ids.vocab,
            *_sorted_by_term(flat, starts, len(chunk_ids.vocab)),
            starts,
            np.array(abstract_at, dtype=dtype),
            EnglishAnalyzer(max_cache=10_000),
        )

    def __len__(self) -> int:
        return len(self._paper_at)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (the vocabulary's strings not counted)."""
        arrays = (*self._positions, *self._postings, self._paper_at, self._abstract_at)
        return sum(a.nbytes for a in arrays)

    def terms(self, text: str) -> tuple[str, ...]:
        """The terms of `text` as a phrase (`phrase_terms` with this index's analyzer)."""
        return phrase_terms(text, self._analyzer)

    def rows(self, terms: Sequence[str], *, title_only: bool = False) -> np.ndarray:
        """Ascending rows of papers holding `terms` adjacent in order (a row may repeat)."""
        ids = [self._vocab.get(t) for t in terms]
        if not ids or None in ids:
            return np.zeros(0, dtype=np.int64)
        if len(ids) == 1 and not title_only:  # one term: its rows are stored
            return _slice(self._postings, ids[0])  # type: ignore[arg-type]
        lists = [_slice(self._positions, i) for i in ids]  # type: ignore[arg-type]
        rarest = min(range(len(lists)), key=lambda k: len(lists[k]))
        starts = lists[rarest].astype(np.int64) - rarest  # where the phrase would begin
        for offset, held in enumerate(lists):
            if offset == rarest or not len(starts):
                continue
            wanted = starts + offset
            at = np.searchsorted(held, wanted)
            inside = at < len(held)
            inside[inside] = held[at[inside]] == wanted[inside]
            starts = starts[inside]
        rows = np.searchsorted(self._paper_at, starts, side="right") - 1
        if title_only:
            rows = rows[starts < self._abstract_at[rows]]
        return rows


def _slice(grouped: tuple[np.ndarray, np.ndarray], term_id: int) -> np.ndarray:
    """One term's entries of a by-term array."""
    values, starts = grouped
    return values[starts[term_id] : starts[term_id + 1]]


def _sorted_by_term(
    flat: np.ndarray, paper_at: np.ndarray, terms: int
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """From the running term ids (gaps -1): positions by term, and rows by term."""
    gaps = int(np.count_nonzero(flat == _GAP))
    # Stable: each term's positions stay ascending (gaps, id -1, sort first and go).
    order = np.argsort(flat, kind="stable")[gaps:]
    term_of = flat[order]
    counts = np.bincount(term_of, minlength=terms)
    starts = np.zeros(terms + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    lengths = np.diff(np.append(paper_at, len(flat)))
    rows = np.repeat(np.arange(len(paper_at), dtype=paper_at.dtype), lengths)[order]
    first = np.ones(len(rows), dtype=bool)  # a term's first occurrence in each row
    first[1:] = (rows[1:] != rows[:-1]) | (term_of[1:] != term_of[:-1])
    row_starts = np.zeros(terms + 1, dtype=np.int64)
    np.cumsum(np.bincount(term_of[first], minlength=terms), out=row_starts[1:])
    return (order.astype(paper_at.dtype), starts), (rows[first], row_starts)
