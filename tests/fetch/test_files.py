"""Atomic saves: all files of a download or none, the old ones kept byte for byte."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.fetch.files import replace_together


def test_files_are_written_together_and_a_stale_one_removed(tmp_path: Path) -> None:
    (tmp_path / "old-abstracts.json").write_text("{}")
    paths = replace_together(
        tmp_path / "programme", {"a.json": b"[1]", "b.json": b"[2]"}, remove=["old-abstracts.json"]
    )
    assert [p.name for p in paths] == ["a.json", "b.json"]
    assert sorted(p.name for p in (tmp_path / "programme").iterdir()) == ["a.json", "b.json"]
    replace_together(tmp_path, {"x.json": b"1"}, remove=["old-abstracts.json"])
    assert not (tmp_path / "old-abstracts.json").exists()


def test_a_failure_before_the_renames_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"old a")
    (tmp_path / "b.json").write_bytes(b"old b")
    with pytest.raises(TypeError):
        replace_together(tmp_path, {"a.json": b"new a", "b.json": "not bytes"})  # type: ignore[dict-item]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {
        "a.json": b"old a", "b.json": b"old b"
    }  # fmt: skip


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "feed.json"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    replace_together(tmp_path, {"feed.json": b"new"})
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 == 0o640
    replace_together(tmp_path, {"fresh.json": b"new"})
    assert (tmp_path / "fresh.json").stat().st_mode & 0o777 == 0o644
