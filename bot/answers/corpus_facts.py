"""What the answers know of the served corpus besides its index: its conference programme.

Worked out once per served index (by its papers: the hybrid that wraps a BM25 index shares
its facts) and kept by the front end while it serves that index: Telegram builds them on its
search executor (`BotState.corpus_facts`), the console on first use (`FactsMemo`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.corpus import Paper
from bot.planner import Programme, build_programme
from bot.search import Retriever
from bot.search.storage.columns import field_values

__all__ = ["CorpusFacts", "FactsMemo", "corpus_facts", "programme_of"]


@dataclass(frozen=True, slots=True)
class CorpusFacts:
    """The served corpus as a whole, for the answers that speak of it."""

    programme: Programme
    """Its sessions (`/session`, the schedule); falsy when no paper has a session or time."""


def programme_of(papers: Sequence[Paper]) -> Programme:
    """The programme of `papers`; only papers with presentations are made (a cached corpus
    stores papers as columns)."""
    rows = [row for row, shown in enumerate(field_values(papers, "presentations")) if shown]
    return build_programme(papers[row] for row in rows)


def corpus_facts(papers: Sequence[Paper]) -> CorpusFacts:
    """Everything `CorpusFacts` holds, for `papers` (CPU work: off the event loop)."""
    return CorpusFacts(programme=programme_of(papers))


@dataclass
class FactsMemo:
    """The facts of the papers last asked about, for a synchronous front end (the console)."""

    _papers: Sequence[Paper] | None = field(default=None, repr=False)
    _facts: CorpusFacts | None = field(default=None, repr=False)

    def of(self, index: Retriever) -> CorpusFacts:
        """`index`'s facts: built on the first call for its papers, then kept."""
        if self._facts is None or self._papers is not index.papers:
            self._papers, self._facts = index.papers, corpus_facts(index.papers)
        return self._facts
