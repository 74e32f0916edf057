"""Corpus files read into `Paper` records, each paper once; a bad record is skipped and reported."""

from bot.corpus.authors import (
    MAX_AUTHOR_CHARS,
    AuthorIndex,
    AuthorKey,
    author_key,
    compact_authors,
    filed_under,
    fold_name,
    key_matches,
)
from bot.corpus.fetched import FETCHED_FILE, Fetched, fetched_manifest, fetched_of
from bot.corpus.filter import LoadFilter
from bot.corpus.headline import MAX_TITLE_CHARS
from bot.corpus.ids import PaperIds
from bot.corpus.links import page_url
from bot.corpus.loader import load_corpus
from bot.corpus.markup import clean_abstract, clean_title
from bot.corpus.model import (
    MAX_COMMAND_CHARS,
    PAPER_COMMAND,
    PAPER_COMMAND_PATTERN,
    TIERS,
    UNTIMED,
    CorpusError,
    LoadReport,
    NotRecordsError,
    Paper,
    Presentation,
    StrictCorpusError,
    is_tappable_id,
    parse_paper_command,
    tier_of,
)
from bot.corpus.profile import CorpusName, corpus_name, frequent_topics
from bot.corpus.readers.programme_feed import sidecar_path
from bot.corpus.sessions import fold_session, named_number, session_number, sessions_named
from bot.corpus.titles import derive_title
from bot.corpus.zones import (
    ZoneError,
    offset_name,
    parse_zone,
    zone_info,
    zone_label,
)

__all__ = [
    "FETCHED_FILE",
    "MAX_AUTHOR_CHARS",
    "MAX_COMMAND_CHARS",
    "MAX_TITLE_CHARS",
    "PAPER_COMMAND",
    "PAPER_COMMAND_PATTERN",
    "TIERS",
    "UNTIMED",
    "AuthorIndex",
    "AuthorKey",
    "CorpusError",
    "CorpusName",
    "Fetched",
    "LoadFilter",
    "LoadReport",
    "NotRecordsError",
    "Paper",
    "PaperIds",
    "Presentation",
    "StrictCorpusError",
    "ZoneError",
    "author_key",
    "clean_abstract",
    "clean_title",
    "compact_authors",
    "corpus_name",
    "derive_title",
    "fetched_manifest",
    "fetched_of",
    "filed_under",
    "fold_name",
    "fold_session",
    "frequent_topics",
    "is_tappable_id",
    "key_matches",
    "load_corpus",
    "named_number",
    "offset_name",
    "page_url",
    "parse_paper_command",
    "parse_zone",
    "session_number",
    "sessions_named",
    "sidecar_path",
    "tier_of",
    "zone_info",
    "zone_label",
]
