"""What a search returns, and the `Retriever` protocol `Index` and `HybridRetriever` implement."""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import Protocol

from bot.corpus import Paper
from bot.search.query.pipeline import PreparedQuery, QueryPipeline
from bot.search.query.syntax import ParsedQuery
from bot.search.snippets.sentences import Snippet


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked paper."""

    paper: Paper
    score: float
    snippet: Snippet
    coverage: float = 0.0
    """Share (0-1) of the query's idf weight whose terms this paper contains."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A page of hits for one query."""

    query: str
    """The question as the user typed it."""
    terms: tuple[str, ...]
    """The terms searched (`PreparedQuery.terms`); empty when nothing was searchable."""
    hits: tuple[Hit, ...]
    total: int
    """How many papers matched at all (contain at least one query term)."""
    confident: bool
    """False when nothing matched well: the hits are only the closest papers."""
    offset: int = 0
    confidence: float = 0.0
    """The best paper's coverage of the query (0-1); BM25 alone: `confident` is it ≥
    `CONFIDENT_COVERAGE` (the hybrid also reads the semantic signal)."""
    corrected: str = ""
    """The query as searched when spelling correction changed it ("" when it did not)."""
    warming: bool = False
    """True while semantic search is still embedding the papers: BM25 alone answered, so a
    question in another language could not be understood yet."""
    parsed: ParsedQuery | None = None
    """The query's syntax when it set conditions (every hit meets them), for the header."""
    ready_in: float | None = None
    """While `warming`: about how many seconds until semantic answers (None: not known)."""
    margin: float | None = None
    """How well the first paper matched (`confident` is `margin` >= `cut`): the hybrid's
    `fusion.Verdict`, BM25 alone's coverage; None when nothing was ranked."""
    cut: float | None = None
    """The margin a match must reach: the corpus's calibrated cut, or the shipped one."""


@dataclass(frozen=True, slots=True)
class IndexStats:
    """Sizes for /stats."""

    papers: int
    sources: int
    terms: int
    postings: int
    memory_bytes: int


class Retriever(Protocol):
    """Finds papers: ranked search, more-like-this, and lookup by id. Never raises on input."""

    papers: Sequence[Paper]
    queries: QueryPipeline
    """What a question becomes before `search` (`QueryPipeline.prepare`): one per index,
    shared by every engine over it."""

    def __len__(self) -> int:
        """How many papers it searches."""
        ...

    def by_author(self, name: str, *, limit: int | None = None) -> tuple[Paper, ...]:
        """Papers with an author `name` names, in load order."""
        ...

    def named_author(self, question: str) -> tuple[Paper, ...]:
        """The papers of the person a question just names; () when it names no author."""
        ...

    def search(
        self, query: PreparedQuery, *, limit: int = 5, offset: int = 0, snippets: bool = True
    ) -> SearchResult:
        """A page of ranked hits for the prepared `query`."""
        ...

    def similar(self, paper_id: str, *, limit: int = 5) -> tuple[Hit, ...]:
        """Papers most like `paper_id`; empty for an unknown id."""
        ...

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this id, or None."""
        ...

    def paper_ids(self) -> Set[str]:
        """Every paper's id, without making a `Paper` (a cached index holds columns)."""
        ...

    def stats(self) -> IndexStats:
        """Sizes for /stats."""
        ...
