"""BibTeX (`.bib`) entries as raw records, read with bibtexparser v2; a bad entry is skipped."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import bibtexparser
from bibtexparser.middlewares import LatexDecodingMiddleware

from bot.corpus.readers.base import Record, Source, decode

# bibtexparser logs a warning per broken block, which the loader reports anyway.
logging.getLogger("bibtexparser").setLevel(logging.ERROR)

# Decoding LaTeX in these would break them: `%` starts a LaTeX comment, `~` is a space.
_VERBATIM_FIELDS = frozenset({"url", "pdf", "doi", "eprint", "code", "github", "howpublished"})
RawEntry = dict[str, str] | str  # an entry's fields, or the reason it is skipped


def _reason(block: object) -> str:
    """Why bibtexparser could not make an entry of a block, in one line."""
    key = getattr(block, "key", None)
    kind = type(block).__name__
    if kind == "DuplicateBlockKeyBlock":
        return f"duplicate BibTeX key {key!r}"
    if kind == "DuplicateFieldKeyBlock":
        fields = ", ".join(sorted(getattr(block, "duplicate_keys", ()) or ()))
        return f"BibTeX entry repeats field(s) {fields or '?'}"
    reason = " ".join(str(getattr(getattr(block, "error", None), "abort_reason", "")).split())
    return f"malformed BibTeX: {reason or 'not a valid entry'}"


def read_bibtex_entries(text: str) -> Iterator[tuple[int, RawEntry]]:
    """(1-based line, fields or skip reason) per entry; `id` is the key, accents decoded."""
    library = bibtexparser.parse_string(text)
    # Math stays as `$…$` so bot.corpus's cleaning renders it (K^2 → K²) like abstracts.
    decoded = LatexDecodingMiddleware(
        allow_inplace_modification=False, keep_math_mode=True
    ).transform(library)
    blocks = [(block.start_line, block) for block in library.failed_blocks]
    results: list[tuple[int, RawEntry]] = []
    for entry, clean in zip(library.entries, decoded.entries, strict=True):
        fields: dict[str, str] = {"id": entry.key, "entry_type": entry.entry_type}
        for field in entry.fields:
            key = field.key.lower()
            value = field.value if key in _VERBATIM_FIELDS else clean.fields_dict[field.key].value
            fields[key] = str(value).strip().strip("{}") if key in _VERBATIM_FIELDS else value
        results.append((entry.start_line + 1, fields))
    for start, block in blocks:
        results.append((start + 1, _reason(block)))
    yield from sorted(results, key=lambda item: item[0])


def read_bibtex(source: Source) -> Iterator[tuple[int, Record | str]]:
    yield from read_bibtex_entries(decode(source))
