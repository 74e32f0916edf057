"""Zotero's CSV export: `Key`, `Item Type`, `Publication Title` (the venue), `Author`
(`Last, First; …`), `Url`, `Extra` (`arXiv: 2506.33333`), `DOI`, `Manual Tags`…"""

from __future__ import annotations

from collections.abc import Mapping

from bot.corpus.links import find_arxiv_id
from bot.corpus.readers.base import Record

__all__ = ["is_zotero", "zotero_record"]

_VENUES = ("Publication Title", "Proceedings Title", "Conference Name", "Repository")


def is_zotero(raw: Mapping[str, object]) -> bool:
    return "Item Type" in raw and "Publication Title" in raw


def zotero_record(raw: Mapping[str, object]) -> Record:
    text = {k: str(v or "").strip() for k, v in raw.items()}
    arxiv = next(
        (a for a in map(find_arxiv_id, (text.get(k, "") for k in ("Extra", "Url", "DOI"))) if a),
        "",
    )
    tags = [t for k in ("Manual Tags", "Automatic Tags") for t in text.get(k, "").split(";")]
    venue = next((text[k] for k in _VENUES if text.get(k)), "")
    return {
        "id": text.get("Key", ""),
        "title": text.get("Title", ""),
        "abstract": text.get("Abstract Note", ""),
        "authors": text.get("Author", ""),
        "venue": venue,
        "year": text.get("Publication Year") or text.get("Date", ""),
        "doi": text.get("DOI", ""),
        "arxiv": arxiv,
        "url": text.get("Url", ""),
        "keywords": [t.strip() for t in tags if t.strip()],
        "aliases": [arxiv] if arxiv else [],
    }
