"""Records whose source is known by its field names (Semantic Scholar, OpenAlex, Zotero),
rewritten into the loader's common names before `records.normalise_record` reads them."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.corpus.readers.base import Record
from bot.corpus.readers.openalex import is_openalex, openalex_record
from bot.corpus.readers.semantic_scholar import is_semantic_scholar, semantic_scholar_record
from bot.corpus.readers.zotero import is_zotero, zotero_record

__all__ = ["SHAPES", "adapt"]

# (recognise, rewrite) per source shape, tried in order.
SHAPES: tuple[tuple[Callable[[Mapping[str, object]], bool], Callable[..., Record]], ...] = (
    (is_semantic_scholar, semantic_scholar_record),
    (is_openalex, openalex_record),
    (is_zotero, zotero_record),
)


def adapt(raw: Mapping[str, object]) -> Mapping[str, object]:
    """`raw` in the loader's field names if its source is recognised, else unchanged."""
    for recognised, rewrite in SHAPES:
        if recognised(raw):
            return rewrite(raw)
    return raw
