"""Atomic saves for `fetch`: each file is written to a hidden temporary file beside its
target (a download streams into it), then renamed over it, so a failed fetch leaves the
previous download as it was; the folder's `.fetched.json` records when and from where
(`bot.corpus.fetched`)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from bot.corpus import FETCHED_FILE, fetched_manifest

__all__ = ["Staging", "fsync", "replace_together"]


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
