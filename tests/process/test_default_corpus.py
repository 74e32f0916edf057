"""Out of the box: with no CORPUS and nothing fetched, `python -m bot console` serves the bundled
ICML 2026 programme (6,628 papers), says its date, and answers from an empty index cache."""

from __future__ import annotations

from pathlib import Path

from testkit.botenv import bot_env
from testkit.process import run_bot

PAPERS = 6628  # the official feed as of 14 July 2026 (its README: 6,628 posters, 168 orals)


def test_the_console_serves_the_bundled_programme_from_an_empty_cache(tmp_path: Path) -> None:
    env = bot_env(CORPUS="", INDEX_CACHE_DIR=str(tmp_path / "cache"), DATA_DIR=str(tmp_path))
    done = run_bot(
        "console",
        "--lang",
        "en",
        input="/start\n/stats\nsession:1 diffusion\n/quit\n",
        cwd=tmp_path,  # no stray .env
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[:2] == [
        f"{PAPERS:,} ICML 2026 papers loaded. Ask a question, /help for commands, /quit or "
        "Ctrl-D to leave.",
        "List from icml.cc as of 14 Jul 2026.",
    ]  # and no skipped records: the sidecar is read with its feed, the orals merged
    start = done.stdout.split("> /start", 1)[1]
    assert f"I search {PAPERS:,} ICML 2026 papers" in start
    assert "List from icml.cc as of 14 Jul 2026." in start
    stats = done.stdout.split("> /stats", 1)[1].split("> ", 1)[0]
    assert f"Papers: {PAPERS:,}" in stats and "Sources: 1 file" in stats
    assert "List: icml.cc, as of 14 Jul 2026" in stats and "skipped" not in stats
    answer = done.stdout.split("> session:1 diffusion", 1)[1]
    assert "1. " in answer  # Poster Session 1's papers on diffusion: the sessions are there
