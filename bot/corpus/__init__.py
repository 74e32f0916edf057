"""Read corpus files (seed text, JSON Lines, JSON array, CSV, BibTeX) into clean `Paper` records.

Formats, chosen by extension (`readers.READERS`):

- `.txt`, `.md`: the seed text format: an optional header line, then abstracts separated by one
  or more blank lines (a hard-wrapped abstract is joined into one paragraph);
- `.jsonl`: one JSON object per line;
- `.json`: one JSON array of objects;
- `.csv`: a header row (`,` `;` or tab), then one record per row;
- `.bib`: BibTeX entries.

A record needs a title or an abstract; `records.normalise_record` reads its other fields
(authors, keywords, venue, links, id…) under their common names. A bad record is skipped and
reported (`LoadReport.skipped`), or refused with `strict`.
A directory stands for the supported files directly in it, sorted by name.
"""

from bot.corpus.authors import AuthorIndex, compact_authors
from bot.corpus.ids import PaperIds
from bot.corpus.loader import load_corpus
from bot.corpus.markup import clean_abstract, clean_title
from bot.corpus.model import (
    MAX_COMMAND_CHARS,
    MAX_TAPPABLE_ID_CHARS,
    PAPER_COMMAND,
    PAPER_COMMAND_PATTERN,
    CorpusError,
    LoadReport,
    Paper,
    StrictCorpusError,
    is_tappable_id,
    parse_paper_command,
)
from bot.corpus.readers import EXTENSIONS, READERS
from bot.corpus.titles import MAX_TITLE_CHARS, derive_title

__all__ = [
    "EXTENSIONS",
    "MAX_COMMAND_CHARS",
    "MAX_TAPPABLE_ID_CHARS",
    "MAX_TITLE_CHARS",
    "PAPER_COMMAND",
    "PAPER_COMMAND_PATTERN",
    "READERS",
    "AuthorIndex",
    "CorpusError",
    "LoadReport",
    "Paper",
    "PaperIds",
    "StrictCorpusError",
    "clean_abstract",
    "clean_title",
    "compact_authors",
    "derive_title",
    "is_tappable_id",
    "load_corpus",
    "parse_paper_command",
]
