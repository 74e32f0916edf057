"""Where the index cache lives, and the key of a corpus: its files' content plus every version.

A cache file is keyed by explicit versions (`cache_file.FORMAT_VERSION`, the analyzer's
`version`, the BM25 parameters and title weight, the `Paper` fields) and the corpus content
(sha256 of the files' names and bytes, streamed): a changed file or version is a miss, an
edited comment in the code is not. Whoever changes what the loader or the index produce
bumps `FORMAT_VERSION` (or the analyzer's `version`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from bot.config import REPO_ROOT
from bot.corpus import sidecar_path
from bot.search.analysis import ANALYZER_VERSION
from bot.search.bm25 import DEFAULT_PARAMS
from bot.search.index import TITLE_WEIGHT
from bot.search.storage.cache_file import FORMAT_VERSION
from bot.search.storage.files import read_json
from bot.search.storage.papers import PAPER_FIELDS
from bot.search.storage.stamps import file_digest, write_stamps

__all__ = ["DEFAULT_CACHE_DIR", "corpus_key", "resolve_cache_dir"]

DEFAULT_CACHE_DIR = REPO_ROOT / ".cache"
"""`.cache/` at the repository root (gitignored): where the cache goes when the caller's
settings name no directory (`Settings.index_cache_dir` is None)."""


def resolve_cache_dir(cache_dir: str | Path | None) -> Path:
    """The caller's cache directory, or `DEFAULT_CACHE_DIR` when it names none."""
    return Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR


def _versions(kind: str) -> str:
    """Everything besides the corpus content that decides what a cache file holds."""
    paper_fields = ",".join(name for name, _ in PAPER_FIELDS)
    return (
        f"{kind};format={FORMAT_VERSION};analyzer={ANALYZER_VERSION};"
        f"params={DEFAULT_PARAMS!r};title_weight={TITLE_WEIGHT};paper={paper_fields}"
    )


def corpus_key(
    paths: Iterable[str | Path], *, kind: str = "index", stamps: Path | None = None
) -> str:
    """Hex key of the files under `paths` (names and bytes, in order) plus the versions.

    A directory counts all its visible regular files, not only those the loader reads, so
    the key may change more often than needed but never less. `stamps` (a JSON file in the
    cache directory) remembers each file's hash with its stat stamp, so an unchanged
    corpus is not read again at every start.
    """
    known = read_json(stamps) if stamps is not None else None
    before = dict(known) if known is not None else None
    digest = hashlib.sha256(_versions(kind).encode())
    for given in paths:
        path = Path(given)
        files = (
            sorted(
                (c for c in path.iterdir() if not c.name.startswith(".") and c.is_file()),
                key=lambda c: c.name,
            )
            if path.is_dir()
            else [path, *filter(None, [sidecar_path(path)])]  # a feed is read with its sidecar
        )
        for file in files:
            digest.update(f"\x1e{file}\x1f".encode())
            digest.update(file_digest(file, known))
    if stamps is not None and known is not None and known != before:
        write_stamps(stamps, known)
    return digest.hexdigest()
