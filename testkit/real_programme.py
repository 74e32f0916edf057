"""Slices of the real ICML 2026 programme feed (the repository's copy, else `../shared`), and
an older version of one in which some posters sat in another session, as a fetch a week
earlier saw it (Poster Session 4 had 783 posters on 7 July, 790 on 14 July)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testkit.paths import REPO_ROOT

FEED = "icml-2026-orals-posters.json"
SIDECAR = "icml-2026-abstracts.json"
_PLACES = (REPO_ROOT / "corpus" / "icml-2026", REPO_ROOT.parent / "shared" / "icml2026")


def real_programme() -> Path | None:
    """The folder holding the real feed and its sidecar, None if neither copy is here."""
    return next((p for p in _PLACES if (p / FEED).is_file()), None)


@dataclass(frozen=True)
class Versions:
    """Two fetches of the same slice of the feed: `older` has `moved` (event ids) in `was`."""

    older: Path
    newer: Path
    moved: tuple[str, ...]
    was: str
    now: str


def _write(folder: Path, events: list[dict[str, Any]], abstracts: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    feed = {"count": len(events), "next": None, "previous": None, "results": events}
    (folder / FEED).write_text(json.dumps(feed), encoding="utf-8")
    ids = {str(e["id"]) for e in events}
    kept = {k: v for k, v in abstracts.items() if k in ids}
    (folder / SIDECAR).write_text(json.dumps(kept), encoding="utf-8")
    return folder


def feed_versions(
    root: Path,
    *,
    was: str = "Poster Session 3",
    now: str = "Poster Session 4",
    per_session: int = 40,
    moved: int = 7,
) -> Versions:
    """The first `per_session` posters of sessions `was` and `now` as the real feed has them
    (`newer`), and as an older fetch had them, the first `moved` of `now` in `was`'s slot."""
    source = real_programme()
    if source is None:
        raise FileNotFoundError("the real ICML 2026 feed is in neither copy")
    events = json.loads((source / FEED).read_text(encoding="utf-8"))["results"]
    abstracts = json.loads((source / SIDECAR).read_text(encoding="utf-8"))
    chosen = {name: [e for e in events if e.get("session") == name][:per_session]
              for name in (was, now)}  # fmt: skip
    slot = {k: chosen[was][0][k] for k in ("session", "starttime", "endtime", "room_name")}
    newer = chosen[was] + chosen[now]
    older = chosen[was] + [{**e, **slot} for e in chosen[now][:moved]] + chosen[now][moved:]
    return Versions(
        older=_write(root / "older", older, abstracts),
        newer=_write(root / "newer", newer, abstracts),
        moved=tuple(str(e["id"]) for e in chosen[now][:moved]),
        was=was,
        now=now,
    )
