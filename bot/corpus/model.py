"""The corpus's data: `Paper`, `LoadReport`, `CorpusError`, and the one paper-id rule."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "MAX_COMMAND_CHARS",
    "MAX_TAPPABLE_ID_CHARS",
    "PAPER_COMMAND",
    "CorpusError",
    "LoadReport",
    "NotRecordsError",
    "Paper",
    "StrictCorpusError",
    "is_tappable_id",
]


class CorpusError(Exception):
    """A corpus file that cannot be read; names the file and the line."""

    def __init__(self, path: str | Path, line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {reason}")


class NotRecordsError(CorpusError):
    """A file that holds no records at all (notes, prose, another kind of data): in a
    directory it is skipped and named in the report, never a bad record."""


class StrictCorpusError(CorpusError):
    """Strict loading refused bad records; `problems` lists every one as `file:line: reason`."""

    def __init__(self, problems: tuple[str, ...]) -> None:
        self.problems = problems
        shown = "\n".join(problems)
        super().__init__(
            problems[0].split(":", 1)[0] if problems else "corpus",
            None,
            f"{len(problems)} bad records (strict):\n{shown}",
        )


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper: clean text plus where it came from."""

    id: str
    """Stable, tappable id: the source's own in command form, else a content hash (README)."""
    title: str
    """The source's title, else a headline derived from the abstract."""
    abstract: str
    """Clean readable text: no LaTeX/Markdown markup ("" for a title-only paper)."""
    links: tuple[tuple[str, str], ...] = ()
    """(label, http(s) URL): Page, PDF, Code, arXiv, DOI, then URLs found in the abstract."""
    source: str = ""
    """File the paper was read from."""
    line: int = 0
    """1-based line in `source` where the record starts."""
    authors: tuple[str, ...] = ()
    """Author names in the source's order."""
    keywords: tuple[str, ...] = ()
    venue: str = ""
    track: str = ""
    status: str = ""
    year: int | None = None
    source_id: str = ""
    """The source's own id as written (`2402.05678`), "" when it has none."""
    aliases: tuple[str, ...] = ()
    """Other ids the paper is known by (arXiv id, DOI, the ids of versions merged into it):
    `/paper` accepts each."""
    marks: tuple[str, ...] = ()
    """Facts about the record itself, e.g. `TITLE_DERIVED` (a tuple: cached like `keywords`)."""

    @property
    def title_derived(self) -> bool:
        """True if the title is a headline the bot derived from the abstract, not the authors'."""
        return TITLE_DERIVED in self.marks


TITLE_DERIVED = "title-derived"
"""`Paper.marks` entry: the source gave no title, the loader derived one from the abstract."""
MERGED = ", merged"
"""How a `LoadReport.skipped` line about a version merged into another paper ends."""


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What `load_corpus` loaded and what it skipped (nothing is dropped silently)."""

    papers: tuple[Paper, ...]
    sources: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())
    """One human-readable line per skipped record or entry, naming file and line."""
    bad_records: int = 0
    """The first `bad_records` lines of `skipped` are records that could not become a paper."""

    @property
    def bad_lines(self) -> tuple[str, ...]:
        """`file:line: reason` for each bad record (what strict loading refuses)."""
        return self.skipped[: self.bad_records]

    def check_strict(self) -> None:
        """Raise `StrictCorpusError` listing every bad record, if there is any."""
        if self.bad_records:
            raise StrictCorpusError(self.bad_lines)

    @property
    def merged(self) -> int:
        """How many records were versions of a paper already loaded, merged into it."""
        return sum(line.endswith(MERGED) for line in self.skipped[self.bad_records :])

    def summary(self) -> str:
        """One line: how many papers from how many files, how many merged and skipped."""
        files = "file" if len(self.sources) == 1 else "files"
        bad = f" ({self.bad_records} bad records)" if self.bad_records else ""
        merged = self.merged
        merges = f"{merged} versions merged, " if merged else ""
        return (
            f"{len(self.papers)} papers from {len(self.sources)} {files}; "
            f"{merges}{len(self.skipped) - merged} skipped{bad}"
        )


# --- the paper-id rule -------------------------------------------------------------------------

MAX_COMMAND_CHARS = 32  # Bot API limit: BotCommand.command, [a-z0-9_]{1,32}
PAPER_COMMAND = "paper_"
"""A paper opens with the tappable command `/paper_<id>`."""
MAX_TAPPABLE_ID_CHARS = MAX_COMMAND_CHARS - len(PAPER_COMMAND)
"""26: the longest id that still fits in `/paper_<id>`."""

_TAPPABLE_ID = re.compile(rf"[A-Za-z0-9_]{{1,{MAX_TAPPABLE_ID_CHARS}}}")
PAPER_COMMAND_PATTERN = re.compile(
    rf"^/{PAPER_COMMAND}([A-Za-z0-9_]{{1,{MAX_TAPPABLE_ID_CHARS}}})(?:@([A-Za-z0-9_]{{1,64}}))?(?:\s|$)"
)
"""`/paper_<id>` or `/paper_<id>@bot` at the start of a message; groups: id, addressed bot."""


def is_tappable_id(paper_id: str) -> bool:
    """True if `/paper_<paper_id>` is a valid Telegram command (so a tap opens the paper)."""
    return _TAPPABLE_ID.fullmatch(paper_id) is not None


def parse_paper_command(text: str) -> tuple[str, str | None] | None:
    """(paper id, addressed bot or None) for a message starting `/paper_<id>`, else None."""
    match = PAPER_COMMAND_PATTERN.match(text)  # anchored and bounded: O(1) on any message
    return (match.group(1), match.group(2)) if match else None
