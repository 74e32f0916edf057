"""Atomic saves for `fetch`: each file is written to a hidden temporary file beside its
target, then renamed over it, so a failed fetch leaves the previous download as it was; the
folder's `.fetched.json` records when and from where (`bot.corpus.fetched`)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from bot.corpus import FETCHED_FILE, fetched_manifest
from bot.fileutil import fsync

__all__ = ["replace_together"]


def replace_together(
    folder: Path,
    files: Mapping[str, bytes],
    *,
    source: str,
    remove: Iterable[str] = (),
    at: datetime | None = None,
) -> list[Path]:
    """Write `files` (name -> bytes) into `folder`, all or none, then delete the `remove`
    names; the written paths. The manifest records them as fetched from `source` at `at`
    (default now), renamed after them: a cut between says an older date, never a newer one.
    Writing and fsync come before the first rename, so a full disk fails before anything is
    replaced."""
    folder.mkdir(parents=True, exist_ok=True)
    remove = tuple(remove)
    manifest = fetched_manifest(folder, files, source, at or datetime.now(UTC), gone=remove)
    staged: list[tuple[Path, Path]] = []
    try:
        for name, data in (*files.items(), (FETCHED_FILE, manifest)):
            staged.append((_staged(folder / name, data), folder / name))
        for temporary, target in staged:
            os.replace(temporary, target)
    finally:
        for temporary, _target in staged:
            temporary.unlink(missing_ok=True)  # renamed ones are gone already
    for name in remove:
        (folder / name).unlink(missing_ok=True)
    fsync(folder)
    return [target for _temporary, target in staged[:-1]]  # the manifest apart


def _staged(target: Path, data: bytes) -> Path:
    """`data` in a hidden file beside `target`, flushed to disk, with `target`'s mode."""
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    path = Path(name)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        path.chmod(mode)  # mkstemp makes it 0600; a download is as readable as before
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path
