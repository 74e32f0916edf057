"""Read corpus files into clean `Paper` records, each paper once: a file's format is
recognised by its content (`readers`), a record's fields by their common names (`records`),
versions of one paper merged (`merge`); a bad record is skipped and reported."""

from bot.corpus.authors import AuthorIndex, compact_authors
from bot.corpus.filter import LoadFilter
from bot.corpus.headline import MAX_TITLE_CHARS
from bot.corpus.ids import PaperIds
from bot.corpus.loader import load_corpus
from bot.corpus.markup import clean_abstract, clean_title
from bot.corpus.model import (
    MAX_COMMAND_CHARS,
    PAPER_COMMAND,
    PAPER_COMMAND_PATTERN,
    TIERS,
    CorpusError,
    LoadReport,
    NotRecordsError,
    Paper,
    Presentation,
    StrictCorpusError,
    is_tappable_id,
    parse_paper_command,
)
from bot.corpus.readers.virtual_site import sidecar_path
from bot.corpus.sessions import fold_session, named_number, session_number, sessions_named
from bot.corpus.titles import derive_title

__all__ = [
    "MAX_COMMAND_CHARS",
    "MAX_TITLE_CHARS",
    "PAPER_COMMAND",
    "PAPER_COMMAND_PATTERN",
    "TIERS",
    "AuthorIndex",
    "CorpusError",
    "LoadFilter",
    "LoadReport",
    "NotRecordsError",
    "Paper",
    "PaperIds",
    "Presentation",
    "StrictCorpusError",
    "clean_abstract",
    "clean_title",
    "compact_authors",
    "derive_title",
    "fold_session",
    "is_tappable_id",
    "load_corpus",
    "named_number",
    "parse_paper_command",
    "session_number",
    "sessions_named",
    "sidecar_path",
]
