"""`python -m bot fetch` as a process against the stand-in site (slow: starts Python)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import programme_data as data
from testkit.botenv import bot_env
from testkit.process import run_bot
from testkit.programme_server import Fault, ProgrammeServer

pytestmark = pytest.mark.slow


def test_fetch_help_lists_the_three_forms_and_the_limits() -> None:
    done = run_bot("fetch", "--help", env=bot_env())
    assert done.returncode == 0, done.stderr
    assert "fetch CONF YEAR" in done.stdout and "fetch openreview VENUE_ID" in done.stdout
    assert "--max-bytes N" in done.stdout and "(default: 512 MB)" in done.stdout
    assert "--timeout SECONDS" in done.stdout and "(default: 900 s, 15 minutes)" in done.stdout
    assert "a read\nwaits at most 15 s for data" in done.stdout


def test_a_fetch_saves_in_the_data_dir_and_a_refusal_keeps_it(tmp_path: Path) -> None:
    env = bot_env(DATA_DIR=str(tmp_path))
    with ProgrammeServer() as server:
        events = data.feed_events(120)
        url = server.add_feed(events, page_size=50, sidecar=data.sidecar(events))
        done = run_bot("fetch", url, env=env)
        assert done.returncode == 0, done.stderr
        programme = tmp_path / "programme"
        saved = json.loads((programme / "icml-2026-orals-posters.json").read_bytes())
        assert saved["results"] == events
        before = {p.name: p.read_bytes() for p in programme.iterdir()}
        server.fail(server.feed_path(), Fault.answer(403), page="2")
        done = run_bot("fetch", url, env=env)
    assert done.returncode == 1 and "403 Forbidden" in done.stderr
    assert {p.name: p.read_bytes() for p in programme.iterdir()} == before
