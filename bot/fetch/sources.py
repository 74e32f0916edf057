"""What `fetch` downloads (feeds and their sidecar, OpenReview venues), under which names, and how
it saves them: to a hidden temporary file, renamed over the target, so a failed fetch leaves the
previous download as it was; `.fetched.json` records when and from where."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit, urlunsplit

from bot.config import PROGRAMME_FOLDER, Settings
from bot.corpus import FETCHED_FILE, fetched_manifest

OFFICIAL_HOSTS = {"icml": "icml.cc", "neurips": "neurips.cc", "iclr": "iclr.cc"}

DEFAULT_OPENREVIEW_API = "https://api2.openreview.net"

_FEED_NAME = re.compile(r"(?P<stem>[a-z][a-z0-9]*-\d{4})-orals-posters\.json", re.IGNORECASE)
_FEED_PATH = "/static/virtual/data/"
_VENUE_ID = re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+")


def programme_dir(settings: Settings) -> Path:
    """`DATA_DIR/programme`: where `fetch` writes by default."""
    return settings.data_dir / PROGRAMME_FOLDER


@dataclass(frozen=True, slots=True)
class FeedSource:
    """A virtual site's `<conf>-<year>-orals-posters.json` and its sidecar beside it
    (`<conf>-<year>-abstracts.json`), saved under the site's names (the reader pairs them)."""

    url: str
    name: str
    sidecar_url: str
    sidecar_name: str

    @classmethod
    def parse(cls, url: str) -> FeedSource:
        """The feed at `url`; ValueError saying what a feed URL looks like."""
        parts = urlsplit(url.strip())
        segment = parts.path.rsplit("/", 1)[-1]
        match = _FEED_NAME.fullmatch(segment)
        if parts.scheme not in ("http", "https") or not parts.netloc or match is None:
            raise ValueError(
                f"not a programme feed URL: {url!r} (expected https://HOST{_FEED_PATH}"
                "CONF-YEAR-orals-posters.json)"
            )
        sidecar_name = f"{match['stem']}-abstracts.json"
        folder = parts.path[: len(parts.path) - len(segment)]
        sidecar = urlunsplit((parts.scheme, parts.netloc, folder + sidecar_name, "", ""))
        return cls(url.strip(), segment, sidecar, sidecar_name)

    @classmethod
    def official(cls, conference: str, year: str) -> FeedSource:
        """`fetch icml 2026`: the conference site's own feed; ValueError for others."""
        host = OFFICIAL_HOSTS.get(conference.lower())
        if host is None or not re.fullmatch(r"(19|20)\d\d", year):
            raise ValueError(
                f"unknown conference or year: {conference} {year} "
                f"(expected one of {', '.join(OFFICIAL_HOSTS)} and a year, e.g. icml 2026)"
            )
        stem = f"{conference.lower()}-{year}"
        return cls.parse(f"https://{host}{_FEED_PATH}{stem}-orals-posters.json")


def venue_id(text: str) -> str:
    """An OpenReview venue id such as `ICML.cc/2026/Conference`; ValueError otherwise."""
    text = text.strip().strip("/")
    if not _VENUE_ID.fullmatch(text):
        raise ValueError(f"not an OpenReview venue id: {text!r} (e.g. ICML.cc/2026/Conference)")
    return text


def openreview_file_name(venue: str) -> str:
    """`ICML.cc/2026/Conference` -> `openreview-icml-2026.json` (other tracks keep their words)."""
    first, *rest = venue.split("/")
    words = [first.split(".", 1)[0], *rest]
    if len(words) > 1 and words[-1].lower() == "conference":
        words.pop()
    slug = "-".join(re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-") for word in words)
    return f"openreview-{slug}.json"


class Staging:
    """Hidden temporary files beside their targets in `folder`: `commit` renames them over
    the targets, all or none; leaving the `with` block removes any not renamed."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self._staged: dict[str, tuple[Path, BinaryIO]] = {}

    def file(self, name: str) -> BinaryIO:
        """A new temporary file for `name`, open for writing and reading back."""
        self.discard(name)
        handle, path = tempfile.mkstemp(dir=self.folder, prefix=f".{name}.", suffix=".part")
        stream = os.fdopen(handle, "w+b")
        self._staged[name] = (Path(path), stream)
        return stream

    def scratch(self) -> BinaryIO:
        """An unnamed temporary file beside the targets (gone once closed): a page read back."""
        return tempfile.TemporaryFile(dir=self.folder, prefix=".fetch.")

    def discard(self, name: str) -> None:
        """Forget `name`'s temporary file, if any."""
        path, stream = self._staged.pop(name, (None, None))
        if path is not None and stream is not None:
            stream.close()
            path.unlink(missing_ok=True)

    def commit(
        self,
        order: Sequence[str],
        *,
        source: str,
        remove: Iterable[str] = (),
        at: datetime | None = None,
    ) -> list[Path]:
        """Rename the staged files over their targets in `order` (the last one commits the
        set), then delete the `remove` names; the targets. The manifest records them as
        fetched from `source` at `at` (default now), renamed after them: a cut between says
        an older date, never a newer one. Flushing to disk comes before the first rename, so
        a full disk fails before anything is replaced."""
        remove, when = tuple(remove), at or datetime.now(UTC)
        manifest = fetched_manifest(self.folder, order, source, when, gone=remove)
        self.file(FETCHED_FILE).write(manifest)
        order = [*order, FETCHED_FILE]
        staged = [(self._staged[name], self.folder / name) for name in order]
        for (path, stream), target in staged:
            stream.flush()
            os.fsync(stream.fileno())
            stream.close()
            mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
            path.chmod(mode)  # mkstemp makes it 0600; a download is as readable as before
        for (path, _stream), target in staged:
            os.replace(path, target)
        for name in order:
            del self._staged[name]
        for name in remove:
            (self.folder / name).unlink(missing_ok=True)
        fsync(self.folder)
        return [target for _staged, target in staged[:-1]]  # the manifest apart

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, *exc: object) -> None:
        for name in list(self._staged):
            self.discard(name)  # renamed ones are gone already


def replace_together(
    folder: Path,
    files: Mapping[str, bytes],
    *,
    source: str,
    remove: Iterable[str] = (),
    at: datetime | None = None,
) -> list[Path]:
    """Write `files` (name -> bytes) into `folder`, all or none, then delete the `remove`
    names; the written paths, recorded as fetched from `source` at `at` (default now)."""
    with Staging(folder) as staging:
        for name, data in files.items():
            staging.file(name).write(data)
        return staging.commit(list(files), source=source, remove=remove, at=at)


def fsync(path: Path) -> None:
    """Flush a file, or a folder's entries (its renames), to disk. Best effort: not every file
    system allows it."""
    with contextlib.suppress(OSError):
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
