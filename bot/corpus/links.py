"""Clickable links derived from a record: arXiv id, DOI, and its URL columns (http(s) only)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import quote, urlsplit

Link = tuple[str, str]  # (label, url)

# New style since 2007 (YYMM.NNNN[N], optional version); old style archive[.SUBJ]/YYMMNNN.
ARXIV_ID = re.compile(r"(?:\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?")
_ARXIV_PREFIX = re.compile(r"^(?:arxiv:|https?://arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE)
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_DOI_PREFIX = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
_UNSAFE = re.compile(r"[\s\x00-\x1f\x7f<>\"]")
# Where exports keep an arXiv id: an abs/pdf URL, `arXiv:ID` (Zotero's Extra), arXiv's DOI.
_ARXIV_IN_TEXT = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf)/|arxiv:\s*|10\.48550/arxiv\.)"
    r"(\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?",
    re.IGNORECASE,
)


def find_arxiv_id(text: str) -> str:
    """The arXiv id (no version) in a URL, `arXiv:…` note or arXiv DOI, else ""."""
    match = _ARXIV_IN_TEXT.search(text) if text else None
    return match.group(1) if match else ""


def _doi(doi: str) -> str:
    """A DOI without `doi:` or its resolver, or "" when it is none."""
    bare = _DOI_PREFIX.sub("", doi.strip()).rstrip(".,;")
    return bare if _DOI.fullmatch(bare) else ""


def bare_doi(doi: str) -> str:
    """The DOI in lower case (DOIs are case-insensitive), or ""."""
    return _doi(doi).casefold()


def arxiv_url(arxiv_id: str) -> str | None:
    """`https://arxiv.org/abs/<id>` for a new- or old-style arXiv id, else None."""
    bare = _ARXIV_PREFIX.sub("", arxiv_id.strip())
    if bare.endswith(".pdf"):
        bare = bare[:-4]
    return f"https://arxiv.org/abs/{bare}" if ARXIV_ID.fullmatch(bare) else None


def doi_url(doi: str) -> str | None:
    """`https://doi.org/<doi>` for a DOI (bare, `doi:` or a doi.org URL), else None."""
    bare = _doi(doi)
    return "https://doi.org/" + quote(bare, safe="/:;()._-+") if bare else None


def http_url(value: str) -> str | None:
    """`value` if it is an absolute http(s) URL with a host and nothing unsendable."""
    url = value.strip()
    if not url or _UNSAFE.search(url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unbalanced IPv6 bracket
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return url


def page_url(links: Sequence[Link]) -> str:
    """The paper's own page: the first Page link, else the first PDF, else the first link."""
    labelled = dict(reversed(links))  # label -> the first URL with that label
    return labelled.get("Page") or labelled.get("PDF") or (links[0][1] if links else "")


def _label(key: str, url: str) -> str:
    """What a user sees for a URL column: Code, PDF or Page."""
    host = urlsplit(url).hostname or ""
    if key in ("code", "github", "code_url", "repository", "repo") or host.endswith(
        ("github.com", "gitlab.com", "bitbucket.org")
    ):
        return "Code"
    if key in ("pdf", "pdf_url", "pdflink") or urlsplit(url).path.lower().endswith(".pdf"):
        return "PDF"
    return "Page"


def derive_links(
    columns: Mapping[str, str],
    *,
    arxiv_id: str = "",
    doi: str = "",
    extra: Iterable[str] = (),
) -> tuple[Link, ...]:
    """Labelled links from URL `columns` (lower-case name → value), an arXiv id, a DOI, `extra`."""
    links: list[Link] = []
    seen: set[str] = set()

    def add(label: str, url: str | None) -> None:
        if url and url not in seen:
            seen.add(url)
            links.append((label, url))

    for key, value in columns.items():
        url = http_url(value)
        if url:
            add(_label(key, url), url)
    if arxiv_id:
        add("arXiv", arxiv_url(arxiv_id))
    if doi:
        add("DOI", doi_url(doi))
    for value in extra:
        url = http_url(value)
        if url:
            add(_label("", url), url)
    return tuple(links)
