"""Records of known sources (Semantic Scholar, OpenAlex, Zotero) renamed to the loader's fields."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.corpus.links import find_arxiv_id
from bot.corpus.readers.base import Record, mapping

_OPENALEX = "https://openalex.org/"
_REVIEWED = ("conference", "journal", "book series", "ebook platform")
_MAX_POSITION = 20_000  # an abstract is a few hundred words; a larger index is not one
_ZOTERO_VENUES = ("Publication Title", "Proceedings Title", "Conference Name", "Repository")


def adapt(raw: Mapping[str, object]) -> Mapping[str, object]:
    """`raw` in the loader's field names if its source is recognised, else unchanged."""
    for recognised, rewrite in _SHAPES:
        if recognised(raw):
            return rewrite(raw)
    return raw


# Semantic Scholar Graph API papers: `{"paperId", "externalIds": {"ArXiv", "DOI"}, …}`.
def _is_semantic_scholar(raw: Mapping[str, object]) -> bool:
    return "paperId" in raw or isinstance(raw.get("externalIds"), Mapping)


def _name(value: object) -> str:
    return str(mapping(value).get("name") or "")


def _semantic_scholar_record(raw: Mapping[str, object]) -> Record:
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


# OpenAlex works: `{"id": "https://openalex.org/W…", "abstract_inverted_index", "authorships",
# "ids", "doi", "publication_year", "primary_location", "locations"}`.
def _is_openalex(raw: Mapping[str, object]) -> bool:
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


def _openalex_record(raw: Mapping[str, object]) -> Record:
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


# Zotero's CSV export: `Key`, `Item Type`, `Publication Title` (the venue), `Author`
# (`Last, First; …`), `Url`, `Extra` (`arXiv: 2506.33333`), `DOI`, `Manual Tags`…
def _is_zotero(raw: Mapping[str, object]) -> bool:
    return "Item Type" in raw and "Publication Title" in raw


def _zotero_record(raw: Mapping[str, object]) -> Record:
    text = {k: str(v or "").strip() for k, v in raw.items()}
    arxiv = next(
        (a for a in map(find_arxiv_id, (text.get(k, "") for k in ("Extra", "Url", "DOI"))) if a),
        "",
    )
    tags = [t for k in ("Manual Tags", "Automatic Tags") for t in text.get(k, "").split(";")]
    venue = next((text[k] for k in _ZOTERO_VENUES if text.get(k)), "")
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


# (recognise, rewrite) per source shape, tried in order.
_SHAPES: tuple[tuple[Callable[[Mapping[str, object]], bool], Callable[..., Record]], ...] = (
    (_is_semantic_scholar, _semantic_scholar_record),
    (_is_openalex, _openalex_record),
    (_is_zotero, _zotero_record),
)
