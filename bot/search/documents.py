"""What a paper is indexed as: its terms, title words counted `TITLE_WEIGHT` times.

Shared by the index build, more-like-this and recommendations (a paper's term profile).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from bot.corpus import Paper
from bot.search.analysis import Analyzer, analyzer_for

__all__ = ["TITLE_WEIGHT", "analysed_documents", "document_terms"]

TITLE_WEIGHT = 2
"""A paper's title terms are indexed this many times (its abstract's once)."""


def document_terms(
    paper: Paper, analyzer: Analyzer | None = None, *, title_weight: int = TITLE_WEIGHT
) -> list[str]:
    """The terms indexed for `paper`: title terms `title_weight` times, then the abstract's,
    keywords' and authors'."""
    analyzer = analyzer or analyzer_for("en", max_cache=10_000)
    terms = analyzer.analyze(paper.title) * title_weight + analyzer.analyze(paper.abstract)
    for extra in (*paper.keywords, *paper.authors):
        terms += analyzer.analyze(extra)
    return terms


def analysed_documents(
    papers: Iterable[Paper], language: str, title_weight: int
) -> Iterator[list[str]]:
    """Each paper's terms, from a fresh analyzer whose big cache is freed once all are read."""
    analyzer = analyzer_for(language)  # a local of this generator: gone when it is exhausted
    for paper in papers:
        yield document_terms(paper, analyzer, title_weight=title_weight)
