"""OpenAlex works (`{"id": "https://openalex.org/W…", "abstract_inverted_index", "authorships",
"ids", "doi", "publication_year", "primary_location", "locations"}`)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.corpus.links import find_arxiv_id
from bot.corpus.readers.base import Record, mapping

__all__ = ["abstract_from_inverted_index", "is_openalex", "openalex_record"]

_OPENALEX = "https://openalex.org/"
_REVIEWED = ("conference", "journal", "book series", "ebook platform")
_MAX_POSITION = 20_000  # an abstract is a few hundred words; a larger index is not one


def is_openalex(raw: Mapping[str, object]) -> bool:
    return (
        "abstract_inverted_index" in raw
        or "authorships" in raw
        or str(raw.get("id") or "").startswith(_OPENALEX)
    )


def abstract_from_inverted_index(index: object) -> str:
    """The abstract OpenAlex stores as word → positions, back in reading order."""
    if not isinstance(index, Mapping):
        return ""
    words: dict[int, str] = {}
    for word, positions in index.items():
        if isinstance(positions, list):
            for position in positions:
                if isinstance(position, int) and 0 <= position < _MAX_POSITION:
                    words[position] = str(word)
    return " ".join(words[p] for p in sorted(words))


def _venue(locations: list[Mapping[str, object]]) -> str:
    """The peer-reviewed venue among the locations, else the primary location's source."""
    sources = [mapping(location.get("source")) for location in locations]
    for source in sources:
        if source.get("type") in _REVIEWED and source.get("display_name"):
            return str(source["display_name"])
    return str(sources[0].get("display_name") or "")


def openalex_record(raw: Mapping[str, object]) -> Record:
    """The work as a raw record in the loader's field names; its ids become aliases."""
    ids = mapping(raw.get("ids"))
    work = str(raw.get("id") or ids.get("openalex") or "").removeprefix(_OPENALEX)
    doi = str(raw.get("doi") or ids.get("doi") or "")
    others = raw.get("locations") or []
    locations = [mapping(raw.get("primary_location")), *map(mapping, others)]  # type: ignore[call-overload]
    primary, best = locations[0], mapping(raw.get("best_oa_location"))
    pages = [str(loc["landing_page_url"]) for loc in locations if loc.get("landing_page_url")]
    arxiv = next(filter(None, map(find_arxiv_id, [doi, *pages])), "")
    authors = [
        mapping(a.get("author")).get("display_name") or a.get("raw_author_name")
        for a in map(mapping, raw.get("authorships") or [])  # type: ignore[call-overload]
    ]
    keywords = [k.get("display_name") for k in raw.get("keywords") or [] if isinstance(k, Mapping)]  # type: ignore[attr-defined]
    abstract = raw.get("abstract") or abstract_from_inverted_index(
        raw.get("abstract_inverted_index")
    )
    return {
        "id": work,
        "title": raw.get("title") or raw.get("display_name"),
        "abstract": abstract,
        "authors": [a for a in authors if isinstance(a, str)],
        "venue": _venue(locations),
        "year": raw.get("publication_year") or raw.get("publication_date"),
        "doi": doi,
        "arxiv": arxiv,
        "url": primary.get("landing_page_url"),
        "pdf": primary.get("pdf_url") or best.get("pdf_url"),
        "keywords": [k for k in keywords if isinstance(k, str)],
        "aliases": [arxiv] if arxiv else [],  # the DOI: the normaliser's
    }
