"""What a paper is indexed as: its terms, title words counted `TITLE_WEIGHT` times.

Shared by the index build, more-like-this and recommendations (a paper's term profile).
"""

from __future__ import annotations

from bot.corpus import Paper
from bot.search.analysis import Analyzer

__all__ = ["TITLE_WEIGHT", "document_terms"]

TITLE_WEIGHT = 2
"""A paper's title terms are indexed this many times (its abstract's once)."""


def document_terms(
    paper: Paper, analyzer: Analyzer, *, abstract: list[str] | None = None
) -> list[str]:
    """The terms indexed for `paper`: title terms `TITLE_WEIGHT` times, then the abstract's
    (`abstract` when already analysed), keywords' and authors'."""
    if abstract is None:
        abstract = analyzer.analyze(paper.abstract)
    terms = analyzer.analyze(paper.title) * TITLE_WEIGHT + abstract
    for extra in (*paper.keywords, *paper.authors):
        terms += analyzer.analyze(extra)
    return terms
