"""Read corpus files (seed text, JSON Lines, JSON array, CSV) into clean `Paper` records."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path


class CorpusError(Exception):
    """A corpus file that cannot be read; names the file and the line."""

    def __init__(self, path: str | Path, line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper: clean text plus where it came from."""

    id: str
    """Stable id: the source's own, else a short number (see README)."""
    title: str
    """The source's title, else a headline derived from the abstract."""
    abstract: str
    """Clean readable text: no LaTeX/Markdown markup."""
    links: tuple[str, ...] = ()
    """Code and project URLs found in the abstract (and the source's `url`)."""
    source: str = ""
    """File the paper was read from."""
    line: int = 0
    """1-based line in `source` where the record starts."""
    authors: str = ""
    url: str = ""


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What `load_corpus` loaded and what it skipped (nothing is dropped silently)."""

    papers: tuple[Paper, ...]
    sources: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())
    """One human-readable line per skipped record, naming file and line."""


def load_corpus(paths: Iterable[str | Path]) -> LoadReport:
    """Read every supported file under `paths` (files or directories) into papers."""
    raise NotImplementedError
