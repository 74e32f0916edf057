"""What the `fetch` tests share: the command run in-process, a folder's files (temporary
ones included) and a feed of invented papers on the stand-in site."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from testkit import programme_data as data
from testkit.programme_server import ProgrammeServer

FEED = "icml-2026-orals-posters.json"
SIDECAR = "icml-2026-abstracts.json"


def fetch(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """`python -m bot fetch ARGV` in-process: the exit code and stderr (stdout stays empty)."""
    code = main(["fetch", *argv])
    captured = capsys.readouterr()
    assert captured.out == ""
    return code, captured.err


def files(folder: Path) -> dict[str, bytes]:
    """Every file in `folder`, hidden ones (temporary files) included."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def serve(
    server: ProgrammeServer, papers: int = 130, **options: Any
) -> tuple[str, list[dict[str, Any]]]:
    """`papers` invented papers' feed (with their sidecar unless `options` say otherwise) on
    `server`: its URL and events."""
    events = data.feed_events(papers)
    options.setdefault("sidecar", data.sidecar(events))
    return server.add_feed(events, **options), events
