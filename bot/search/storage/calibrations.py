"""Confidence calibrations kept in the cache directory, one per corpus and model.

`semantic.calibration` fits a corpus's confidence cut once its vectors are built; a reload
or a restart of the same papers reads it back here instead of fitting it again. The file
maps each calibration's key to its fields; a missing, unreadable or foreign file is no
calibration, never an error, and a read-only directory is never written to on a hit.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.search.storage.cache_file import SHARED_MODE

__all__ = ["CALIBRATIONS_FILE", "KEPT", "read_calibration", "write_calibration"]

logger = logging.getLogger(__name__)

CALIBRATIONS_FILE = "confidence-calibrations.json"
KEPT = 16
"""Calibrations kept: the newest, so corpora served in turn from one directory keep theirs."""


def read_calibration(cache_dir: Path, key: str) -> dict[str, Any] | None:
    """The stored fields under `key`, or None."""
    try:
        entry = json.loads((cache_dir / CALIBRATIONS_FILE).read_bytes())[key]
        fields = entry["fields"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return fields if isinstance(fields, dict) else None


def write_calibration(cache_dir: Path, key: str, fields: dict[str, Any]) -> None:
    """Store `fields` under `key` (atomically; a failure is logged, it is a cache)."""
    path = cache_dir / CALIBRATIONS_FILE
    try:
        stored = json.loads(path.read_bytes())
        if not isinstance(stored, dict):
            stored = {}
    except (OSError, ValueError):
        stored = {}
    stored[key] = {"fields": fields, "when": time.time()}
    newest = sorted(stored, key=lambda k: _when(stored[k]), reverse=True)[:KEPT]
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=CALIBRATIONS_FILE + ".", suffix=".tmp", dir=cache_dir)
        os.fchmod(fd, SHARED_MODE)  # mkstemp's 0600 would hide it from replicas run as others
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({k: stored[k] for k in newest}, out, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError as error:  # a read-only volume: the next start calibrates again
        logger.warning("confidence calibration not stored in %s: %s", path, error)


def _when(entry: object) -> float:
    try:
        return float(entry["when"])  # type: ignore[index]
    except (KeyError, TypeError, ValueError):
        return 0.0
