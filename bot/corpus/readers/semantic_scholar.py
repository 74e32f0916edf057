"""Semantic Scholar Graph API papers (`{"paperId", "externalIds": {"ArXiv", "DOI"}, …}`)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.corpus.readers.base import Record, mapping

__all__ = ["is_semantic_scholar", "semantic_scholar_record"]


def is_semantic_scholar(raw: Mapping[str, object]) -> bool:
    return "paperId" in raw or isinstance(raw.get("externalIds"), Mapping)


def _name(value: object) -> str:
    return str(mapping(value).get("name") or "")


def semantic_scholar_record(raw: Mapping[str, object]) -> Record:
    """The paper as a raw record in the loader's field names; its ids become aliases."""
    ids = mapping(raw.get("externalIds"))
    arxiv, doi = str(ids.get("ArXiv") or ""), str(ids.get("DOI") or "")
    paper_id = str(raw.get("paperId") or "")
    pdf = raw.get("openAccessPdf")
    journal = _name(raw.get("journal"))
    venue = str(raw.get("venue") or "") or _name(raw.get("publicationVenue"))
    if not venue and journal.casefold() != "arxiv":
        venue = journal
    fields = raw.get("s2FieldsOfStudy") or raw.get("fieldsOfStudy") or []
    keywords = [
        f.get("category") if isinstance(f, Mapping) else f
        for f in fields
        if f  # type: ignore[union-attr]
    ]
    return {
        "id": arxiv or paper_id,
        "title": raw.get("title"),
        "abstract": raw.get("abstract"),
        "authors": raw.get("authors"),
        "venue": venue or ("arXiv" if arxiv else ""),
        "year": raw.get("year") or raw.get("publicationDate"),
        "arxiv": arxiv,
        "doi": doi,
        "url": raw.get("url"),
        "pdf": mapping(pdf).get("url"),
        "keywords": list(dict.fromkeys(str(k) for k in keywords if k)),
        "aliases": [paper_id] if paper_id and arxiv else [],  # the DOI: the normaliser's
    }
