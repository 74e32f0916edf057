"""File-system helpers shared by the store and `fetch`."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def fsync(path: Path) -> None:
    """Flush a file, or a folder's entries (renames), to disk; best effort: not every file
    system allows it."""
    with contextlib.suppress(OSError):
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
