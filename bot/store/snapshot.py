"""What the store keeps of a paper (`SavedPaper`), so saved lists and exports outlive the corpus."""

from __future__ import annotations

import re

from bot.corpus import Paper, page_url
from bot.store.model import SavedPaper
from bot.textutil import clean

SEED_VENUE = "ICML 2026"
SEED_YEAR = 2026
"""What a paper's record may leave unsaid (a corpus of one's own without venue or year): the
bundled programme and the seeds name ICML 2026 themselves, and an exported BibTeX entry
without them is not citable."""

_DOI_URL = re.compile(r"^https?://(dx\.)?doi\.org/")


def snapshot(paper: Paper, *, venue: str = SEED_VENUE, year: int = SEED_YEAR) -> SavedPaper:
    """The record saved for `paper`; `venue` and `year` stand in when the corpus does not say."""
    doi = _DOI_URL.sub("", next((url for label, url in paper.links if label == "DOI"), ""))
    return SavedPaper(
        paper.id,
        clean(paper.title),
        paper.authors,
        paper.year or year,
        paper.venue or venue,
        page_url(paper.links),
        doi,
        title_derived=paper.title_derived,
        status=paper.tier,
        presentations=paper.presentations,
        institutions=paper.institutions,
    )
