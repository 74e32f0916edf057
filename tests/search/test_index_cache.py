"""The on-disk index cache: hits equal fresh builds; anything stale or broken is rebuilt."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import zlib
from pathlib import Path

import pytest

from bot.answers import results
from bot.corpus import CorpusError, load_corpus
from bot.logs import progress_reporter
from bot.search import Index, load_corpus_and_index, resolve_cache_dir
from bot.search.cache import DEFAULT_CACHE_DIR, STAMPS_FILE, cache_path, corpus_key
from bot.search.storage.cache_file import MAGIC
from testkit.paths import SEED_CORPUS

SEED_DIR = SEED_CORPUS
QUERIES = ("decision tree attention", "diffusion", "reinforcement learning reward", "graph")


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    """A copy of the seed corpus that tests may change."""
    target = tmp_path / "corpus"
    shutil.copytree(SEED_DIR, target)
    for file in target.iterdir():
        file.chmod(0o644)
    return target


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """An empty cache directory."""
    return tmp_path / "cache"


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records the size of every `Index.build` call."""
    calls: list[int] = []
    real_build = Index.build.__func__  # type: ignore[attr-defined]

    def counting_build(cls, papers, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(papers))
        return real_build(cls, papers, **kwargs)

    monkeypatch.setattr(Index, "build", classmethod(counting_build))
    return calls


def ranking(index: Index, query: str) -> list[tuple[str, float]]:
    """Ids and scores of the top 10 for `query`."""
    return [(hit.paper.id, hit.score) for hit in results(index, query, limit=10).hits]


def only_cache_file(cache_dir: Path) -> Path:
    """The one cache file in `cache_dir`."""
    (path,) = cache_dir.glob("index-*.idx")
    return path


def test_cache_hit_gives_equal_results_without_building(
    corpus_dir: Path, cache_dir: Path, builds: list[int]
) -> None:
    report, first = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    _, second = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    assert builds == [len(report.papers)]
    for query in QUERIES:
        assert ranking(second, query) == ranking(first, query)
    assert ranking(first, QUERIES[0])  # the comparison is not between two empty lists


def test_corpus_and_index_hit_restores_papers_and_results(
    corpus_dir: Path, cache_dir: Path, builds: list[int]
) -> None:
    report, index = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    cached_report, cached_index = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    assert len(builds) == 1
    assert cached_report == report
    assert any(p.links for p in cached_report.papers)  # links survive the round trip
    for query in QUERIES:
        assert ranking(cached_index, query) == ranking(index, query)


def test_cached_index_snippets_equal_the_built_ones(
    corpus_dir: Path, cache_dir: Path, builds: list[int]
) -> None:
    _, index = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    _, cached = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    assert len(builds) == 1  # the abstracts' layout mapped from the file, not noted again
    for query in QUERIES:
        built = [h.snippet for h in results(index, query, limit=10).hits]
        assert [h.snippet for h in results(cached, query, limit=10).hits] == built
        assert built  # the comparison is not between two empty lists


def test_changed_corpus_is_rebuilt(corpus_dir: Path, cache_dir: Path, builds: list[int]) -> None:
    load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    record = {"id": "zz1", "title": "Quokka Sorting", "abstract": "We sort quokkas by mass."}
    (corpus_dir / "extra.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    report, index = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    assert len(builds) == 2
    assert results(index, "quokka", limit=1).hits[0].paper.id == "zz1"
    assert len(index) == len(report.papers)


def test_edited_file_content_changes_the_key(corpus_dir: Path) -> None:
    before = corpus_key([corpus_dir])
    seed = sorted(corpus_dir.glob("*.txt"))[0]
    seed.write_bytes(seed.read_bytes().replace(b"the", b"teh", 1))
    assert corpus_key([corpus_dir]) != before


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def flip_bytes(path: Path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) * 3 // 4
    data[middle : middle + 16] = bytes(b ^ 0xFF for b in data[middle : middle + 16])
    path.write_bytes(bytes(data))


def garbage(path: Path) -> None:
    path.write_bytes(b"this is not an index cache\n" * 10)


def empty(path: Path) -> None:
    path.write_bytes(b"")


def rewrite_header(path: Path, **changes: object) -> None:
    data = path.read_bytes()
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    header = json.loads(data[start : start + size])
    header.update(changes)
    new = json.dumps(header).encode()
    path.write_bytes(MAGIC + len(new).to_bytes(8, "little") + new + data[start + size :])


def wrong_format(path: Path) -> None:
    rewrite_header(path, format=999)


def wrong_analyzer(path: Path) -> None:
    rewrite_header(path, analyzer="0-old")


def wrong_key(path: Path) -> None:
    rewrite_header(path, key="0" * 64)


def bad_state_with_valid_checksum(path: Path) -> None:
    """Arrays that pass both checksums (recomputed) but do not form a valid index."""
    data = path.read_bytes()
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    header = json.loads(data[start : start + size])
    payload = data[aligned(start + size) : -8]
    header["arrays"]["doc_ids"][1][0] //= 2  # half the postings' documents
    new = json.dumps(header).encode()
    padding = bytes(aligned(start + len(new)) - start - len(new))
    trailer = zlib.crc32(new).to_bytes(4, "little") + data[-4:]  # payload CRC unchanged
    path.write_bytes(MAGIC + len(new).to_bytes(8, "little") + new + padding + payload + trailer)


def aligned(n: int) -> int:
    """`n` rounded up to the cache file's 64-byte array alignment."""
    return -(-n // 64) * 64


def drop_last_byte(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-1])


def append_byte(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"\0")


def truncate_inside_arrays(path: Path) -> None:
    """Cut the file just after the header: every memory-mapped array would point past the end."""
    size = int.from_bytes(path.read_bytes()[len(MAGIC) : len(MAGIC) + 8], "little")
    path.write_bytes(path.read_bytes()[: aligned(len(MAGIC) + 8 + size) + 64])


def edit_header_value(path: Path) -> None:
    """A header value changed in place (same length, still valid JSON): the header CRC differs."""
    data = path.read_bytes()
    assert b'"papers.bad_records": 0' in data
    path.write_bytes(data.replace(b'"papers.bad_records": 0', b'"papers.bad_records": 1', 1))


def flip_one_payload_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


BREAKAGES = [
    pytest.param(truncate, id="truncated"),
    pytest.param(drop_last_byte, id="truncated-trailer"),
    pytest.param(truncate_inside_arrays, id="truncated-arrays"),
    pytest.param(append_byte, id="trailing-byte"),
    pytest.param(edit_header_value, id="header-edited"),
    pytest.param(flip_one_payload_byte, id="one-bit-flipped"),
    pytest.param(flip_bytes, id="corrupt-bytes"),
    pytest.param(garbage, id="not-a-cache"),
    pytest.param(empty, id="empty"),
    pytest.param(wrong_format, id="wrong-format-version"),
    pytest.param(wrong_analyzer, id="wrong-analyzer-version"),
    pytest.param(wrong_key, id="wrong-key"),
    pytest.param(bad_state_with_valid_checksum, id="inconsistent-state"),
]


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_broken_cache_is_rebuilt_not_trusted(
    corpus_dir: Path, cache_dir: Path, builds: list[int], breakage, caplog
) -> None:
    report, index = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    breakage(only_cache_file(cache_dir))
    with caplog.at_level(logging.WARNING, logger="bot.search.cache"):
        rebuilt_report, rebuilt = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    assert len(builds) == 2
    assert "rebuilding" in caplog.text
    assert rebuilt_report == report
    assert ranking(rebuilt, QUERIES[0]) == ranking(index, QUERIES[0])


def test_rebuild_rewrites_a_good_cache(
    corpus_dir: Path, cache_dir: Path, builds: list[int]
) -> None:
    load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    truncate(only_cache_file(cache_dir))
    load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    assert len(builds) == 2


def test_small_corpus_writes_no_cache(corpus_dir: Path, cache_dir: Path, builds: list[int]) -> None:
    report, index = load_corpus_and_index([corpus_dir], cache_dir)  # 57 papers < threshold
    assert len(index) == len(report.papers)
    assert not cache_dir.exists() or not list(cache_dir.iterdir())


def test_no_temporary_files_are_left(corpus_dir: Path, cache_dir: Path) -> None:
    load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    names = sorted(p.name for p in cache_dir.iterdir())
    assert [Path(n).suffix for n in names if n != STAMPS_FILE] == [".idx"]
    assert not list(cache_dir.glob("*.tmp"))


def test_missing_corpus_raises_the_loader_error(tmp_path: Path, cache_dir: Path) -> None:
    with pytest.raises(CorpusError):
        load_corpus_and_index([tmp_path / "missing"], cache_dir, min_papers=0)


def test_cache_dir_comes_from_the_caller_not_the_environment(monkeypatch, tmp_path: Path) -> None:
    # Settings read INDEX_CACHE_DIR (bot.config) and pass it in: one reader of the variable.
    assert resolve_cache_dir(tmp_path / "elsewhere") == tmp_path / "elsewhere"
    monkeypatch.setenv("INDEX_CACHE_DIR", str(tmp_path / "ignored"))
    assert resolve_cache_dir(None) == DEFAULT_CACHE_DIR


def test_cache_file_is_named_by_key(corpus_dir: Path, cache_dir: Path) -> None:
    load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    key = corpus_key([corpus_dir], kind="corpus+index")
    assert only_cache_file(cache_dir) == cache_path(cache_dir, key)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_build_shows_progress_on_a_terminal(corpus_dir: Path, cache_dir: Path) -> None:
    terminal = FakeTerminal()
    total = len(load_corpus([corpus_dir]).papers)
    load_corpus_and_index(
        [corpus_dir], cache_dir, min_papers=0, progress=progress_reporter(total, stream=terminal)
    )
    # A slow build draws a longer line ("about N s left") that the last one erases after it.
    lines = terminal.getvalue().replace("\x1b[K", "")
    assert lines.startswith("\rindexing papers: 0/")
    assert lines.endswith(f"{total}/{total} (100%) " + lines.rsplit(" ", 2)[-2] + " s\n")


def test_build_logs_progress_when_not_a_terminal(corpus_dir: Path, cache_dir: Path, caplog) -> None:
    total = len(load_corpus([corpus_dir]).papers)
    with caplog.at_level(logging.INFO, logger="bot.progress"):
        load_corpus_and_index(
            [corpus_dir],
            cache_dir,
            min_papers=0,
            progress=progress_reporter(total, stream=io.StringIO()),
        )
    progress = [r.getMessage() for r in caplog.records if "indexing papers" in r.getMessage()]
    assert progress[-1].startswith(f"indexing papers: {total}/{total} (100%)")
    assert 2 <= len(progress) <= 11


def test_key_comes_from_versions_and_content_not_source_code(
    corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.search import cache as storage_key

    before = corpus_key([corpus_dir])
    assert corpus_key([corpus_dir]) == before  # stable: nothing is hashed but files + versions
    monkeypatch.setattr(storage_key, "ANALYZER_VERSION", "999")
    after_analyzer = corpus_key([corpus_dir])
    monkeypatch.undo()
    monkeypatch.setattr(storage_key, "FORMAT_VERSION", 999)
    after_format = corpus_key([corpus_dir])
    assert len({before, after_analyzer, after_format}) == 3


def test_every_paper_field_survives_the_cache(tmp_path: Path, cache_dir: Path) -> None:
    records = [
        {
            "id": f"p{n}",
            "title": f"Title {n}",
            "abstract": f"Abstract {n} about quokkas, see https://example.org/{n}.",
            "authors": ["A. Author", f"B. Writer{n}"],
            "url": f"https://example.com/{n}",
            "keywords": "quokkas; marsupials",
            "venue": "ICML 2026 poster",
            "track": "main",
            "status": "Poster",
        }
        for n in range(6)
    ]
    records.append({"abstract": "No metadata at all here, only words about wombats."})
    corpus = tmp_path / "papers.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    report, _ = load_corpus_and_index([corpus], cache_dir, min_papers=0)
    cached, _ = load_corpus_and_index([corpus], cache_dir, min_papers=0)
    assert cached == report
    assert cached.papers[0].authors == ("A. Author", "B. Writer0")
    assert cached.papers[0].keywords == ("quokkas", "marsupials")
    assert cached.papers[0].year == 2026 and cached.papers[-1].year is None
    assert cached.papers[0].links[0] == ("Page", "https://example.com/0")
    assert cached.papers[-1].links == () and cached.papers[-1].authors == ()


def test_cached_index_survives_its_file_being_replaced(
    corpus_dir: Path, cache_dir: Path, builds: list[int]
) -> None:
    load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    _, mapped = load_corpus_and_index([corpus_dir], cache_dir, min_papers=0)
    expected = ranking(mapped, QUERIES[0])
    path = only_cache_file(cache_dir)
    # As every writer does (`write_state`): a new file renamed over the mapped one, then pruned.
    replacement = path.with_suffix(".new")
    replacement.write_bytes(b"a newer cache")
    os.replace(replacement, path)
    path.unlink()
    assert ranking(mapped, QUERIES[0]) == expected
    assert len(builds) == 1


@pytest.fixture
def stamps_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stamp files however recently they changed (tests write their corpus just before)."""
    from bot.search import cache as stamps

    monkeypatch.setattr(stamps, "_RACY_NS", -1)


def test_stamps_reuse_the_hash_of_an_unchanged_file(
    corpus_dir: Path, cache_dir: Path, stamps_now: None
) -> None:
    cache_dir.mkdir()
    stamps = cache_dir / STAMPS_FILE
    key = corpus_key([corpus_dir], stamps=stamps)
    assert key == corpus_key([corpus_dir])  # same key as hashing everything
    recorded = json.loads(stamps.read_text())
    assert len(recorded) == len(list(corpus_dir.iterdir()))
    forged = {name: [*entry[:-1], "00" * 32] for name, entry in recorded.items()}
    stamps.write_text(json.dumps(forged))
    assert corpus_key([corpus_dir], stamps=stamps) != key  # the stamped hash was used, not re-read


def test_stamps_never_hide_an_edit(corpus_dir: Path, cache_dir: Path, stamps_now: None) -> None:
    cache_dir.mkdir()
    stamps = cache_dir / STAMPS_FILE
    before = corpus_key([corpus_dir], stamps=stamps)
    seed = sorted(corpus_dir.glob("*.txt"))[0]
    info = seed.stat()
    seed.write_bytes(seed.read_bytes().replace(b"the", b"teh", 1))  # same size
    os.utime(seed, ns=(info.st_atime_ns, info.st_mtime_ns))  # same mtime: only ctime tells
    assert seed.stat().st_size == info.st_size
    assert corpus_key([corpus_dir], stamps=stamps) == corpus_key([corpus_dir]) != before


def test_recent_files_are_not_stamped(corpus_dir: Path, cache_dir: Path) -> None:
    corpus_key([corpus_dir], stamps=cache_dir / STAMPS_FILE)
    assert not (cache_dir / STAMPS_FILE).exists()  # written just now: hashed again next time


@pytest.mark.parametrize("content", [b"", b"not json", b"[1, 2]", b'{"x": "y"}'])
def test_unreadable_stamps_only_cost_a_rehash(
    corpus_dir: Path, cache_dir: Path, stamps_now: None, content: bytes
) -> None:
    cache_dir.mkdir()
    (cache_dir / STAMPS_FILE).write_bytes(content)
    assert corpus_key([corpus_dir], stamps=cache_dir / STAMPS_FILE) == corpus_key([corpus_dir])


def test_no_stamps_without_a_cache_directory(
    corpus_dir: Path, cache_dir: Path, stamps_now: None
) -> None:
    corpus_key([corpus_dir], stamps=cache_dir / STAMPS_FILE)
    assert not cache_dir.exists()  # a corpus never cached leaves nothing behind


def test_stamps_of_vanished_files_are_dropped(
    corpus_dir: Path, cache_dir: Path, stamps_now: None
) -> None:
    cache_dir.mkdir()
    stamps = cache_dir / STAMPS_FILE
    stamps.write_text(json.dumps({str(corpus_dir / "gone.txt"): [0, 0, 0, 0, 0, "00"]}))
    corpus_key([corpus_dir], stamps=stamps)
    recorded = json.loads(stamps.read_text())
    assert recorded and str(corpus_dir / "gone.txt") not in recorded
