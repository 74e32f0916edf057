"""Read corpus files (seed text, JSON Lines, JSON array, CSV) into clean `Paper` records.

Formats, chosen by extension (`readers.READERS`):

- `.txt`, `.md`: the seed text format: an optional header line, then abstracts separated by one
  or more blank lines (a hard-wrapped abstract is joined into one paragraph);
- `.jsonl`: one JSON object per line;
- `.json`: one JSON array of objects;
- `.csv`: a header row, then one record per row.

Records carry `abstract` (required) and optional `title`, `authors`, `url`, `id`.
A directory stands for the supported files directly in it, sorted by name.
"""

from bot.corpus.loader import load_corpus
from bot.corpus.markup import clean_abstract, clean_title
from bot.corpus.model import (
    MAX_COMMAND_CHARS,
    MAX_PAPER_ID_CHARS,
    MAX_TAPPABLE_ID_CHARS,
    PAPER_COMMAND,
    PAPER_COMMAND_PATTERN,
    CorpusError,
    LoadReport,
    Paper,
    is_tappable_id,
    paper_id_from_command,
    parse_paper_command,
    parse_paper_id,
)
from bot.corpus.readers import EXTENSIONS, READERS
from bot.corpus.titles import MAX_TITLE_CHARS, derive_title

__all__ = [
    "EXTENSIONS",
    "MAX_COMMAND_CHARS",
    "MAX_PAPER_ID_CHARS",
    "MAX_TAPPABLE_ID_CHARS",
    "MAX_TITLE_CHARS",
    "PAPER_COMMAND",
    "PAPER_COMMAND_PATTERN",
    "READERS",
    "CorpusError",
    "LoadReport",
    "Paper",
    "clean_abstract",
    "clean_title",
    "derive_title",
    "is_tappable_id",
    "load_corpus",
    "paper_id_from_command",
    "parse_paper_command",
    "parse_paper_id",
]
