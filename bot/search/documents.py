"""What a paper is indexed as: its terms, title words counted `TITLE_WEIGHT` times.

Shared by the index build, more-like-this and recommendations (a paper's term profile).
"""

from __future__ import annotations

from bot.corpus import Paper
from bot.search.analysis import Analyzer, analyzer_for

__all__ = ["TITLE_WEIGHT", "document_terms"]

TITLE_WEIGHT = 2
"""A paper's title terms are indexed this many times (its abstract's once)."""


def document_terms(
    paper: Paper,
    analyzer: Analyzer | None = None,
    *,
    title_weight: int = TITLE_WEIGHT,
    abstract: list[str] | None = None,
) -> list[str]:
    """The terms indexed for `paper`: title terms `title_weight` times, then the abstract's
    (`abstract` when already analysed), keywords' and authors'."""
    analyzer = analyzer or analyzer_for("en", max_cache=10_000)
    if abstract is None:
        abstract = analyzer.analyze(paper.abstract)
    terms = analyzer.analyze(paper.title) * title_weight + abstract
    for extra in (*paper.keywords, *paper.authors):
        terms += analyzer.analyze(extra)
    return terms
