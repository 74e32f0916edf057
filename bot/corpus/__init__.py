"""Read corpus files into clean `Paper` records, each paper once.

Formats, recognised by content (`readers.recognise`), the suffix deciding only where content
cannot (CSV):

- the seed text format: an optional header line, then abstracts separated by one or more
  blank lines (a hard-wrapped abstract is joined into one paragraph); notes (a README,
  Markdown prose) are recognised by their shape and never read as papers;
- JSON Lines (also under a `.json` name, as the arXiv snapshot is), streamed;
- a JSON array of objects, or an object holding them under a list field (`data`, `results`…);
- CSV (`,` `;` or tab), BibTeX, RIS, arXiv API Atom;
- any of these compressed (`.gz`, `.bz2`, `.xz`) or in a `.zip`.

A record needs a title or an abstract; `records.normalise_record` reads its other fields
(authors, keywords, venue, links, id…) under their common names, and knows Semantic Scholar,
OpenAlex and Zotero by theirs. Versions of one paper are merged (`merge`). A bad record is
skipped and reported (`LoadReport.skipped`), or refused with `strict`; so is, in a
directory, a file that cannot be read. A directory stands for the files directly in it,
sorted by name. `LoadFilter` keeps only matching records (a slice of a multi-GB snapshot).
"""

from bot.corpus.authors import AuthorIndex, author_matches, compact_authors
from bot.corpus.filter import LoadFilter
from bot.corpus.headline import MAX_TITLE_CHARS
from bot.corpus.ids import PaperIds
from bot.corpus.loader import load_corpus
from bot.corpus.markup import clean_abstract, clean_title
from bot.corpus.model import (
    MAX_COMMAND_CHARS,
    MAX_TAPPABLE_ID_CHARS,
    PAPER_COMMAND,
    PAPER_COMMAND_PATTERN,
    TITLE_DERIVED,
    CorpusError,
    LoadReport,
    NotRecordsError,
    Paper,
    StrictCorpusError,
    is_tappable_id,
    parse_paper_command,
)
from bot.corpus.titles import derive_title

__all__ = [
    "MAX_COMMAND_CHARS",
    "MAX_TAPPABLE_ID_CHARS",
    "MAX_TITLE_CHARS",
    "PAPER_COMMAND",
    "PAPER_COMMAND_PATTERN",
    "TITLE_DERIVED",
    "AuthorIndex",
    "CorpusError",
    "LoadFilter",
    "LoadReport",
    "NotRecordsError",
    "Paper",
    "PaperIds",
    "StrictCorpusError",
    "author_matches",
    "clean_abstract",
    "clean_title",
    "compact_authors",
    "derive_title",
    "is_tappable_id",
    "load_corpus",
    "parse_paper_command",
]
