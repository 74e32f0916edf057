"""When and from where each corpus file was downloaded: `.fetched.json` beside the files:

    {"files": {"icml-2026-orals-posters.json": {"source": "https://icml.cc/…",
                                                "fetched": "2026-07-14T09:30:00Z"}}}

`fetched` is an ISO 8601 UTC time, or a date. The file is hidden, so the loader and the index
cache's key leave it out; a missing or damaged one says nothing."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from urllib.parse import urlsplit

FETCHED_FILE = ".fetched.json"
_MAX_BYTES = 1_000_000  # a manifest lists a few files; anything larger is not one


@dataclass(frozen=True, slots=True)
class Fetched:
    """One download: the day it was fetched (UTC) and the address it came from."""

    on: date
    source: str = ""

    @property
    def host(self) -> str:
        """The source's host ("icml.cc"), else the source as written."""
        return urlsplit(self.source).hostname or self.source


def fetched_manifest(
    folder: Path, names: Iterable[str], source: str, at: datetime, *, gone: Iterable[str] = ()
) -> bytes:
    """The bytes of `folder`'s manifest once `names` are saved from `source` at `at`: their
    entries replace any earlier ones; the `gone` names and files no longer there are dropped."""
    saved = set(names)
    left_out = set(gone) - saved
    entries = {
        name: entry
        for name, entry in _entries(folder / FETCHED_FILE).items()
        if name not in left_out and (folder / name).is_file()
    }
    stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for name in sorted(saved):
        entries[name] = {"source": source, "fetched": stamp}
    return json.dumps({"files": entries}, indent=1, sort_keys=True).encode() + b"\n"


def fetched_of(files: Iterable[str | Path]) -> Fetched | None:
    """The oldest recorded download among `files` (a corpus is as fresh as its stalest file)."""
    found: list[Fetched] = []
    manifests: dict[Path, Mapping[str, object]] = {}
    for file in map(Path, files):
        folder = file.parent
        if folder not in manifests:
            manifests[folder] = _entries(folder / FETCHED_FILE)
        entry = _fetched(manifests[folder].get(file.name))
        if entry is not None:
            found.append(entry)
    return min(found, key=lambda entry: entry.on, default=None)


def _entries(path: Path) -> dict[str, object]:
    """A manifest's entries by file name; {} when it is missing, too large or not one."""
    try:
        if path.stat().st_size > _MAX_BYTES:
            return {}
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return dict(files) if isinstance(files, dict) else {}


def _fetched(entry: object) -> Fetched | None:
    """One entry read: its day and source; None when its date is missing or malformed."""
    if not isinstance(entry, Mapping):
        return None
    when, source = entry.get("fetched"), entry.get("source")
    if not isinstance(when, str):
        return None
    try:
        moment = datetime.fromisoformat(when.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    day = moment.astimezone(UTC).date() if moment.tzinfo else moment.date()
    return Fetched(day, source.strip() if isinstance(source, str) else "")
