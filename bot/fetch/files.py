"""Atomic saves for `fetch`: every file of one download is written to a hidden temporary file
in the target folder first, then renamed over the old one, so a failed or interrupted fetch
leaves the previous download byte for byte as it was (the loader skips hidden files)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["replace_together"]


def replace_together(
    folder: Path, files: Mapping[str, bytes], *, remove: Iterable[str] = ()
) -> list[Path]:
    """Write `files` (name -> bytes) into `folder`, all of them or none, then delete the
    `remove` names (a file the new download no longer has); the written paths.

    Everything that can fail on a full disk (writing, fsync) happens before the first
    rename; the renames, in `files` order, are the commit.
    """
    folder.mkdir(parents=True, exist_ok=True)
    staged: list[tuple[Path, Path]] = []
    try:
        for name, data in files.items():
            staged.append((_staged(folder / name, data), folder / name))
        for temporary, target in staged:
            os.replace(temporary, target)
    finally:
        for temporary, _target in staged:
            temporary.unlink(missing_ok=True)  # renamed ones are gone already
    for name in remove:
        (folder / name).unlink(missing_ok=True)
    _sync(folder)
    return [target for _temporary, target in staged]


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


def _sync(folder: Path) -> None:
    """Flush the folder's entries (the renames) where the platform allows it."""
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
