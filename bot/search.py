"""BM25 index over papers: ranked hits with snippets, more-like-this, confidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.corpus import Paper


@dataclass(frozen=True, slots=True)
class Snippet:
    """One or two best-matching sentences, plain text, with matched words marked."""

    text: str
    marks: tuple[tuple[int, int], ...] = ()
    """Character spans `[start, end)` in `text` of the words that matched the query."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked paper."""

    paper: Paper
    score: float
    snippet: Snippet


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A page of hits for one query."""

    query: str
    terms: tuple[str, ...]
    """The analysed query terms; empty when the query had nothing searchable."""
    hits: tuple[Hit, ...]
    total: int
    """How many papers matched at all (score > 0)."""
    confident: bool
    """False when nothing matched well: the hits are only the closest papers."""
    offset: int = 0


@dataclass(frozen=True, slots=True)
class IndexStats:
    """Sizes for /stats."""

    papers: int
    sources: int
    terms: int
    postings: int
    memory_bytes: int


class Index:
    """Immutable search index; build once, share between handlers."""

    papers: tuple[Paper, ...]

    @classmethod
    def build(cls, papers: Sequence[Paper]) -> Index:
        """Analyse and index `papers`."""
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self.papers)

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this id, or None."""
        raise NotImplementedError

    def search(self, query: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        """Rank papers for `query`; never raises on any string."""
        raise NotImplementedError

    def similar(self, paper_id: str, *, limit: int = 5) -> tuple[Hit, ...]:
        """Papers most like `paper_id` (more-like-this); empty for an unknown id."""
        raise NotImplementedError

    def stats(self) -> IndexStats:
        """Counts and approximate memory for /stats."""
        raise NotImplementedError
