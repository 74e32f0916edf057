"""Files of the cache directory: replaced atomically and readable by every user (replicas
run as other users map one prepared directory); small JSON ones read forgivingly."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["SHARED_MODE", "read_json", "replaced", "write_json"]

SHARED_MODE = 0o644


@contextmanager
def replaced(path: Path, mode: str = "w") -> Iterator[IO[Any]]:
    """A temporary file beside `path`, moved onto it when the block ends (removed if the block
    raises): a reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, SHARED_MODE)  # mkstemp's 0600 would hide it from replicas run as others
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as out:
            yield out
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; {} when the file is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Replace `path` with `data` as JSON (keys sorted); OSError when the disk refuses."""
    with replaced(path) as out:
        json.dump(data, out, indent=1, sort_keys=True)
