"""One raw record (JSON, CSV row, BibTeX entry…) as a `Paper`, its field names matched loosely."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from bot.corpus.authors import parse_authors
from bot.corpus.links import ARXIV_ID, bare_doi, derive_links, find_arxiv_id
from bot.corpus.markup import clean_abstract, clean_title
from bot.corpus.model import Paper
from bot.corpus.readers.source_shapes import adapt
from bot.textutil import sendable

# Canonical field → names sources use for it (compared after folding case and `-`/space/`_`).
FIELD_SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "title": ("title", "paper_title", "papertitle"),
    "abstract": ("abstract", "summary", "paperabstract", "paper_abstract", "abstract_text",
                 "abstractnote", "description"),
    "authors": ("authors", "author", "author_names", "authornames", "creators", "creator"),
    "keywords": ("keywords", "keyword", "tags", "topics", "subject", "subjects",
                 "primary_area"),
    "categories": ("categories",),
    "venue": ("venue", "venueid", "journal", "booktitle", "journal_ref", "conference",
              "proceedings"),
    "track": ("track",),
    "status": ("status", "decision", "presentation", "type_of_presentation"),
    "year": ("year", "update_date", "date", "published", "publication_date", "pub_date",
             "cdate_year"),
    "source_id": ("id", "paper_id", "paperid", "arxiv_id", "arxivid", "uid", "key", "forum"),
    "doi": ("doi",),
    "arxiv": ("arxiv", "arxiv_id", "arxivid", "eprint"),
    "url": ("url", "site", "link", "html_url", "page", "project", "project_page", "homepage",
            "openreview", "virtual_site"),
    "pdf": ("pdf", "pdf_url", "pdfurl", "pdflink", "pdf_link"),
    "code": ("code", "github", "code_url", "codeurl", "repository", "repo", "code_link"),
    "links": ("links", "urls", "more_links"),
    "aliases": ("aliases", "other_ids"),
    "extra": ("extra", "note", "comments"),
}  # fmt: skip
# Titles or sole authors that fill a template rather than name a paper (as written: a paper
# titled "Title" in a test file is a paper, paperlists' lower-case "title" is a placeholder).
PLACEHOLDERS = frozenset({"title", "TITLE", "placeholder", "Placeholder", "PLACEHOLDER",
                          "withdrawn", "Withdrawn", "WITHDRAWN", "untitled", "Untitled", "TBD",
                          "TBA", "N/A", "authors", "author", "Authors",
                          "Anonymous Authors"})  # fmt: skip
_WITHDRAWN = frozenset({"withdrawn", "withdraw", "desk rejected", "desk reject"})
_CANONICAL = {synonym: field for field, synonyms in FIELD_SYNONYMS.items() for synonym in synonyms}
_TEXT_FIELDS = ("venue", "track", "status", "year", "source_id", "doi", "arxiv", "extra")
_URL_FIELDS = ("url", "pdf", "code")
_YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
_KEYWORD_SPLIT = re.compile(r"\s*[;,]\s*")
_OPENREVIEW = "https://openreview.net"
# PMLR volume → the ICML year it holds (PMLR also publishes other venues).
_ICML_PMLR_VOLUMES: dict[int, int] = {
    28: 2013, 32: 2014, 37: 2015, 48: 2016, 70: 2017, 80: 2018, 97: 2019,
    119: 2020, 139: 2021, 162: 2022, 202: 2023, 235: 2024, 267: 2025,
}  # fmt: skip
_ICML_SITE = re.compile(r"^https?://(?:www\.)?icml\.cc/(?:virtual|Conferences)/(20\d\d)/", re.I)
_PMLR = re.compile(r"^https?://proceedings\.mlr\.press/v(\d+)/", re.I)


def _fold_name(name: str) -> str:
    return re.sub(r"[\s\-_.]+", "_", name.strip().casefold()).strip("_")


def canonical_field(name: str) -> str | None:
    """The canonical field a source column means (`paperAbstract` → `abstract`), or None."""
    folded = _fold_name(name)
    return _CANONICAL.get(folded) or _CANONICAL.get(folded.replace("_", ""))


def _unwrap(value: object) -> object:
    """OpenReview v2 wraps each value as `{"value": x}`."""
    if isinstance(value, Mapping) and "value" in value and len(value) <= 2:
        return value["value"]
    return value


def _flatten(raw: Mapping[str, object]) -> dict[str, object]:
    """Top-level fields plus OpenReview `content` fields (which win: they are the paper's)."""
    fields = {str(k): v for k, v in raw.items() if k != "content"}
    content = raw.get("content")
    if isinstance(content, Mapping):
        fields.update({str(k): _unwrap(v) for k, v in content.items()})
    return fields


def _text(value: object, name: str) -> str:
    """A scalar as stripped text; a list of scalars joined with ', '."""
    value = _unwrap(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        raise TypeError(name)
    if isinstance(value, str | int | float):
        return str(value).strip()
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(str(v).strip() for v in value if str(v).strip())
    raise TypeError(name)


def _line(text: str) -> str:
    """One clean line: controls become spaces, lone surrogates U+FFFD, spaces collapsed."""
    if text.isprintable():  # the common case: nothing to replace
        return " ".join(text.split())
    return " ".join(sendable(text, controls="space").split())


def _keywords(value: object, *, split_spaces: bool = False) -> tuple[str, ...]:
    """Keywords from a `;`/`,`-separated string or a list (arXiv categories: spaces)."""
    value = _unwrap(value)
    if isinstance(value, str):
        items = value.split() if split_spaces else _KEYWORD_SPLIT.split(value)
    elif isinstance(value, list):
        items = [str(item) for item in value if isinstance(item, str | int | float)]
    else:
        return ()
    unique: dict[str, None] = {}
    for item in items:
        cleaned = _line(item)
        if cleaned:
            unique.setdefault(cleaned, None)
    return tuple(unique)


def _openreview_url(value: str, fields: Mapping[str, object]) -> str:
    """OpenReview's relative `/pdf/…` paths made absolute; other values unchanged."""
    if value.startswith("/") and ("forum" in fields or "venueid" in fields):
        return _OPENREVIEW + value
    return value


def normalise_record(raw: Mapping[str, object]) -> Paper | str:
    """The record as a paper (no `id`, `source` or `line` yet; an empty `title` for the
    loader to derive), or the reason it cannot become one."""
    fields = _flatten(adapt(raw))
    by_field = _by_field(fields)
    try:
        title_raw = _text(by_field.get("title"), "title")
        abstract_raw = _text(by_field.get("abstract"), "abstract")
        texts = {f: _line(_text(by_field.get(f), f)) for f in _TEXT_FIELDS}
        urls = {f: _openreview_url(_line(_text(by_field.get(f), f)), fields) for f in _URL_FIELDS}
    except TypeError as exc:
        return f"field {exc.args[0]!r} is not text"
    title = clean_title(title_raw) if title_raw else ""
    abstract, abstract_links = clean_abstract(abstract_raw) if abstract_raw else ("", ())
    if not title and not abstract:
        return "no title and no abstract"
    authors = tuple(filter(None, map(_line, parse_authors(_unwrap(by_field.get("authors"))))))
    placeholder = _placeholder(title, authors, texts["status"])
    if placeholder:
        return placeholder
    source_id = texts["source_id"]
    arxiv = texts["arxiv"] or (source_id if ARXIV_ID.fullmatch(source_id) else "")
    aliases = _aliases(texts, urls, arxiv, by_field.get("aliases"))
    _add_openreview_page(fields, urls)
    venue, year = _venue_and_year(texts, urls)
    extra = (*_keywords(by_field.get("links")), *abstract_links)
    return Paper(
        id="",
        title=title,
        abstract=abstract,
        authors=authors,
        keywords=_all_keywords(by_field),
        venue=venue,
        track=texts["track"],
        status=texts["status"],
        year=year,
        links=derive_links(urls, arxiv_id=arxiv, doi=texts["doi"], extra=extra),
        source_id=source_id,
        aliases=aliases,
    )


def _all_keywords(by_field: Mapping[str, object]) -> tuple[str, ...]:
    """Keywords, then arXiv-style categories (space-separated) not already among them."""
    keywords = _keywords(by_field.get("keywords"))
    categories = _keywords(by_field.get("categories"), split_spaces=True)
    return keywords + tuple(k for k in categories if k not in keywords)


def _add_openreview_page(fields: Mapping[str, object], urls: dict[str, str]) -> None:
    """An OpenReview record's forum page is the paper's page, when it names no other."""
    if "forum" in fields or "venueid" in fields:
        try:
            forum = _text(fields.get("forum") or fields.get("id"), "id")
        except TypeError:  # a forum id that is not text (`[null]`): no page from it
            return
        if forum and not urls["url"]:
            urls["url"] = f"{_OPENREVIEW}/forum?id={forum}"


def _venue_and_year(texts: Mapping[str, str], urls: Mapping[str, str]) -> tuple[str, int | None]:
    """The record's venue and year; a paperlists record's proceedings URL may say them."""
    year_match = _YEAR.search(texts["year"]) or _YEAR.search(texts["venue"])
    venue, year = texts["venue"], int(year_match.group(1)) if year_match else None
    if not venue and year is None:
        venue, year = _venue_from_urls(urls.values())
    return venue, year


def _by_field(fields: Mapping[str, object]) -> dict[str, object]:
    """Each canonical field's value: the first non-empty column that means it."""
    by_field: dict[str, object] = {}
    for name, value in fields.items():
        field = canonical_field(name)
        if field is not None and field not in by_field and value not in (None, "", []):
            by_field[field] = value
    return by_field


def _placeholder(title: str, authors: tuple[str, ...], status: str) -> str:
    """Why a record is a template's placeholder or a withdrawn paper, else ""."""
    if title.strip(" .") in PLACEHOLDERS:
        return f"placeholder record (title {title!r})"
    if len(authors) == 1 and authors[0] in PLACEHOLDERS:
        return f"placeholder record (author {authors[0]!r})"
    if status.casefold() in _WITHDRAWN:
        return f"withdrawn paper (status {status!r})"
    return ""


def _aliases(
    texts: Mapping[str, str], urls: Mapping[str, str], arxiv: str, given: object
) -> tuple[str, ...]:
    """Other ids a user may type for the paper: its arXiv id (also one only mentioned in a
    DOI, URL or Zotero's Extra), DOI, the source's."""
    mentioned = arxiv or next(
        filter(None, map(find_arxiv_id, (texts["doi"], *urls.values(), texts["extra"]))), ""
    )
    found = [re.sub(r"v\d+$", "", mentioned), bare_doi(texts["doi"]), *_keywords(given)]
    return tuple(dict.fromkeys(a for a in found if a and a != texts["source_id"]))


def _venue_from_urls(urls: Iterable[str]) -> tuple[str, int | None]:
    """("ICML 2019", 2019) when a proceedings URL names ICML and its year (paperlists records
    state neither); else ("", None) rather than a guess."""
    for url in urls:
        site = _ICML_SITE.match(url)
        if site is not None:
            year = int(site[1])
            return f"ICML {year}", year
        volume = _PMLR.match(url)
        if volume is not None and int(volume[1]) in _ICML_PMLR_VOLUMES:
            year = _ICML_PMLR_VOLUMES[int(volume[1])]
            return f"ICML {year}", year
    return "", None
