"""Atomic saves: all files of a download or none, the old ones kept byte for byte."""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot.corpus import FETCHED_FILE, Fetched, fetched_of
from bot.fetch.sources import replace_together

SITE = "https://icml.cc/static/virtual/data/icml-2026-orals-posters.json"


def test_files_are_written_together_and_a_stale_one_removed(tmp_path: Path) -> None:
    (tmp_path / "old-abstracts.json").write_text("{}")
    paths = replace_together(
        tmp_path / "programme",
        {"a.json": b"[1]", "b.json": b"[2]"},
        source=SITE,
        remove=["old-abstracts.json"],
    )
    assert [p.name for p in paths] == ["a.json", "b.json"]
    written = sorted(p.name for p in (tmp_path / "programme").iterdir())
    assert written == [FETCHED_FILE, "a.json", "b.json"]
    replace_together(tmp_path, {"x.json": b"1"}, source=SITE, remove=["old-abstracts.json"])
    assert not (tmp_path / "old-abstracts.json").exists()


def test_a_failure_before_the_renames_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"old a")
    (tmp_path / "b.json").write_bytes(b"old b")
    with pytest.raises(TypeError):
        replace_together(tmp_path, {"a.json": b"new a", "b.json": "not bytes"}, source=SITE)  # type: ignore[dict-item]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {
        "a.json": b"old a", "b.json": b"old b"
    }  # fmt: skip


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "feed.json"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    replace_together(tmp_path, {"feed.json": b"new"}, source=SITE)
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 == 0o640
    replace_together(tmp_path, {"fresh.json": b"new"}, source=SITE)
    assert (tmp_path / "fresh.json").stat().st_mode & 0o777 == 0o644


def test_the_manifest_dates_each_saved_file_and_forgets_removed_ones(tmp_path: Path) -> None:
    first = datetime(2026, 7, 7, 23, 30, tzinfo=UTC)
    feed, sidecar = tmp_path / "icml-2026-orals-posters.json", tmp_path / "icml-2026-abstracts.json"
    replace_together(tmp_path, {sidecar.name: b"{}", feed.name: b"{}"}, source=SITE, at=first)
    assert fetched_of([feed]) == Fetched(date(2026, 7, 7), SITE) == fetched_of([sidecar])
    later = datetime(2026, 7, 14, 1, 0, tzinfo=UTC)
    replace_together(tmp_path, {feed.name: b"{}"}, source=SITE, at=later, remove=[sidecar.name])
    entries = json.loads((tmp_path / FETCHED_FILE).read_text())["files"]
    assert entries == {feed.name: {"source": SITE, "fetched": "2026-07-14T01:00:00Z"}}
    replace_together(tmp_path, {"openreview-icml-2026.json": b"{}"}, source="https://api", at=first)
    both = [feed, tmp_path / "openreview-icml-2026.json"]
    assert fetched_of(both) == Fetched(date(2026, 7, 7), "https://api")  # the stalest file


@pytest.mark.parametrize(
    "manifest",
    [
        pytest.param(None, id="none"),
        pytest.param("{not json", id="damaged"),
        pytest.param('["a list"]', id="not-an-object"),
        pytest.param('{"files": {"feed.json": {"fetched": "last week"}}}', id="bad-date"),
        pytest.param('{"files": {"other.json": {"fetched": "2026-07-14"}}}', id="other-file"),
    ],
)
def test_a_corpus_without_a_usable_manifest_has_no_date(tmp_path: Path, manifest) -> None:
    if manifest is not None:
        (tmp_path / FETCHED_FILE).write_text(manifest)
    assert fetched_of([tmp_path / "feed.json"]) is None


def test_a_date_alone_is_that_day_and_the_host_names_the_source(tmp_path: Path) -> None:
    entry = {"fetched": "2026-07-14", "source": SITE}
    (tmp_path / FETCHED_FILE).write_text(json.dumps({"files": {"feed.json": entry}}))
    fetched = fetched_of([str(tmp_path / "feed.json")])
    assert fetched == Fetched(date(2026, 7, 14), SITE) and fetched.host == "icml.cc"
