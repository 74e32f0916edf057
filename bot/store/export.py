"""A reading list as BibTeX, Markdown or CSV, with each paper's tier, programme, institutions."""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterator, Sequence
from datetime import datetime
from string import ascii_lowercase

from bot.corpus import Presentation
from bot.store.model import SavedPaper

CSV_COLUMNS = ("paper_id", "title", "authors", "year", "venue", "url", "doi", "title_derived",
               "saved_at", "status", "presentations", "institutions")  # fmt: skip
DERIVED_NOTE = "Title derived from the abstract by the bot; the source gives none"
"""What exports say of a derived title (BibTeX `note`, Markdown, CSV `title_derived`)."""
_TIERS = {"oral": "Oral", "spotlight": "Spotlight", "poster": "Poster"}
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# Exports are English whatever the reader's language, and never the process locale's.
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# First title words that say nothing about the paper (Google Scholar's key style skips them).
_KEY_STOPWORDS = frozenset({"a", "an", "the", "on", "of", "in", "for", "and", "to", "towards"})
_BIBTEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_VERBATIM_UNSAFE = {"{": "%7B", "}": "%7D", "\\": "%5C", " ": "%20", "\n": "%0A"}
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()<>#+!|~-])")
# Spreadsheets run a cell starting with these as a formula (OWASP "CSV injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _kind(kind: str) -> str:
    return _TIERS.get(kind.casefold(), " ".join(kind.split()).capitalize())


def _moment(start: datetime, end: datetime | None) -> str:
    """ "Wed 15 Jul 2026 11:00–13:30 (UTC+09:00)": the venue's clock and its offset."""
    day = f"{_WEEKDAYS[start.weekday()]} {start.day} {_MONTHS[start.month - 1]} {start.year}"
    until = f"–{end:%H:%M}" if end is not None and end > start else ""
    offset = start.strftime("%z")  # "+0900"
    return f"{day} {start:%H:%M}{until} (UTC{offset[:3]}:{offset[3:]})"


def presentation_text(shown: Presentation) -> str:
    """ "Oral, Wed 15 Jul 2026 10:00–10:15 (UTC+09:00), West Ballroom A" and a poster's
    "#E-2308": what the programme says of one presentation, in the venue's time."""
    start = shown.starts_at
    when = _moment(start, shown.ends_at) if start is not None else ""
    parts = (_kind(shown.kind), when, " ".join(shown.room.split()), shown.board)
    return ", ".join(part for part in parts if part)


def programme_lines(paper: SavedPaper) -> list[str]:
    """The paper's tier (when no presentation says it), then each presentation."""
    kinds = {shown.kind.casefold() for shown in paper.presentations}
    lines = [_TIERS[paper.status]] if paper.status in _TIERS and paper.status not in kinds else []
    return lines + [presentation_text(shown) for shown in paper.presentations]


def _ascii_word(text: str) -> str:
    """Lower-case ASCII letters and digits of `text`, accents folded (Müller -> muller)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def _surname(author: str) -> str:
    if "," in author:
        return author.split(",", 1)[0]
    words = author.split()
    return words[-1] if words else ""


def base_key(paper: SavedPaper) -> str:
    """surname + year + first significant title word, e.g. `vaswani2017attention`."""
    surname = _ascii_word(_surname(paper.authors[0])) if paper.authors else ""
    words = [_ascii_word(word) for word in paper.title.split()]
    significant = [word for word in words if word and word not in _KEY_STOPWORDS]
    first_word = significant[0] if significant else next((w for w in words if w), "")
    key = f"{surname or 'anon'}{paper.year or ''}{first_word}"
    return key or "paper"


def _suffixes() -> Iterator[str]:
    """a, b, …, z, aa, ab, …"""
    for first in ("", *ascii_lowercase):
        for second in ascii_lowercase:
            yield first + second


def bibtex_keys(papers: Sequence[SavedPaper]) -> dict[str, str]:
    """A unique key per paper id; papers sharing a base key get a, b, … in paper-id order."""
    groups: dict[str, list[str]] = {}
    for paper in papers:
        ids = groups.setdefault(base_key(paper), [])
        if paper.paper_id not in ids:
            ids.append(paper.paper_id)
    keys: dict[str, str] = {}
    taken = {base for base, ids in groups.items() if len(ids) == 1}
    for base in sorted(groups):
        ids = sorted(groups[base])
        if len(ids) == 1:
            keys[ids[0]] = base
            continue
        # A suffixed key may equal another paper's base key (`smith2026a` + `b`): skip those.
        candidates = (base + suffix for suffix in _suffixes())
        for paper_id in ids:
            key = next(candidate for candidate in candidates if candidate not in taken)
            taken.add(key)
            keys[paper_id] = key
    return keys


def bibtex_escape(text: str) -> str:
    """`text` safe inside a braced BibTeX field: LaTeX specials escaped, non-ASCII kept."""
    return "".join(_BIBTEX_SPECIALS.get(char, char) for char in " ".join(text.split()))


def _verbatim(link: str) -> str:
    """A URL or DOI for a verbatim field: what would break the entry percent-encoded (a LaTeX
    escape would end up in the link)."""
    return "".join(_VERBATIM_UNSAFE.get(char, char) for char in link.strip())


def _bibtex_author(name: str) -> str:
    """One author; a name containing the word "and" is braced so BibTeX keeps it whole."""
    escaped = bibtex_escape(name)
    return f"{{{escaped}}}" if re.search(r"\band\b", name, re.IGNORECASE) else escaped


def to_bibtex(papers: Sequence[SavedPaper]) -> str:
    """One @inproceedings (with a venue) or @misc entry per paper, keys from `bibtex_keys`."""
    keys = bibtex_keys(papers)
    entries = []
    for paper in papers:
        notes = [*programme_lines(paper), *([DERIVED_NOTE] if paper.title_derived else [])]
        fields = {
            "title": bibtex_escape(paper.title),
            "author": " and ".join(_bibtex_author(a) for a in paper.authors),
            "booktitle": bibtex_escape(paper.venue),
            "year": str(paper.year or ""),
            "doi": _verbatim(paper.doi),
            "url": _verbatim(paper.url),
            "note": bibtex_escape("; ".join(notes)),
        }
        kind = "inproceedings" if paper.venue else "misc"
        shown = (
            f"  {name} = {{{value}}}" for name, value in fields.items() if value or name == "title"
        )
        body = ",\n".join(shown)
        entries.append(f"@{kind}{{{keys[paper.paper_id]},\n{body}\n}}\n")
    return "\n".join(entries)


def markdown_escape(text: str) -> str:
    """`text` with Markdown's punctuation backslash-escaped, on one line."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", " ".join(text.split()))


def to_markdown(papers: Sequence[SavedPaper]) -> str:
    """A numbered Markdown list: bold title, authors, venue and year, link."""
    lines = ["# Reading list", ""]
    for number, paper in enumerate(papers, 1):
        line = f"{number}. **{markdown_escape(paper.title)}**"
        if paper.authors:
            line += f" — {markdown_escape(', '.join(paper.authors))}"
        year = str(paper.year or "")
        # Venues often carry the year already ("ICML 2026"): say it once.
        where = paper.venue if year and year in paper.venue else f"{paper.venue} {year}".strip()
        if where:
            line += f" ({markdown_escape(where)})"
        if paper.url:
            # <…> keeps parentheses and underscores in the URL from ending the link.
            line += f" <{paper.url.replace('>', '%3E').replace(' ', '%20')}>"
        if paper.title_derived:
            line += f" _({DERIVED_NOTE})_"
        lines.append(line)
        lines += [f"   - {markdown_escape(text)}" for text in programme_lines(paper)]
        if paper.institutions:
            lines.append(f"   - Institutions: {markdown_escape(', '.join(paper.institutions))}")
    return "\n".join(lines) + "\n"


def _csv_cell(value: str) -> str:
    """A cell no spreadsheet will run as a formula."""
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def to_csv(papers: Sequence[SavedPaper]) -> str:
    """A header row, then one row per paper; authors joined with "; "."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for paper in papers:
        saved_at = paper.saved_at.isoformat() if paper.saved_at else ""
        shown = "; ".join(presentation_text(p) for p in paper.presentations)
        row = (paper.paper_id, paper.title, "; ".join(paper.authors), str(paper.year or ""),
               paper.venue, paper.url, paper.doi, "true" if paper.title_derived else "",
               saved_at, paper.status, shown, "; ".join(paper.institutions))  # fmt: skip
        writer.writerow([_csv_cell(value) for value in row])
    return buffer.getvalue()


WRITERS = {"bib": to_bibtex, "md": to_markdown, "csv": to_csv}
FORMATS = tuple(WRITERS)


def export_text(papers: Sequence[SavedPaper], fmt: str) -> str:
    """The reading list in `fmt` ("bib", "md" or "csv"); ValueError names the valid ones."""
    if fmt not in WRITERS:
        raise ValueError(f"unknown export format {fmt!r}; valid: {', '.join(FORMATS)}")
    return WRITERS[fmt](papers)
