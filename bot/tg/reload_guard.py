"""When a reload is refused: a corpus far smaller than the one served, or a file cut short."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MIN_KEPT_SHARE = 0.5  # a reload keeping under half the papers served looks like an accident
_TAIL_BYTES = 1 << 16  # the end of a file that is read to find its last record


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a reload was refused: a catalogue key and its values."""

    key: str
    values: dict[str, object]


def cut_file(path: Path) -> bool:
    """Whether `path` is JSON or JSON Lines cut short after whole records (a copy in progress)."""
    try:
        with open(path, "rb") as data:
            head = data.read(_TAIL_BYTES).lstrip()
            size = data.seek(0, 2)
            data.seek(max(0, size - _TAIL_BYTES))
            tail = data.read().rstrip()
    except OSError:
        return False
    if head.startswith(b"["):  # an array never closed, after a record that was
        return not tail.endswith(b"]") and b"}" in head
    if not head.startswith(b"{"):
        return False
    lines = tail.rsplit(b"\n", 2)
    if len(lines) < 2 or not lines[-1].lstrip().startswith(b"{"):
        return False  # one line, or the end of a pretty-printed object
    return not _parses(lines[-1]) and _parses(lines[-2])


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def refusal(old_papers: int, new_papers: int, sources: Iterable[str]) -> Refusal | None:
    """The reason to refuse a load of `new_papers` from `sources` over `old_papers`, if any."""
    for source in sources:
        path = Path(source)  # a member of a .zip names no file here: skipped
        if path.is_file() and cut_file(path):
            return Refusal("admin.reload_refused_cut", {"file": path.name, "old": old_papers})
    if new_papers < old_papers * MIN_KEPT_SHARE:
        return Refusal("admin.reload_refused_shrunk", {"new": new_papers, "old": old_papers})
    return None
