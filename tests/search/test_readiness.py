"""Never blocked on vectors: the estimate, `search`'s notice and `--wait`, and `prepare`.

A fake embedder (deterministic vectors, held or interrupted on demand) stands in for the
model here; `test_prepared_dir.py` runs the real one across processes.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import bot.search as search_package
from bot import cli, loading
from bot.answers import pending_notice
from bot.config import load_settings
from bot.i18n import translator
from bot.logs import EtaClock
from bot.search.semantic.embedding import MIN_TIMED_PAPERS, RATES_FILE, UNIT, read_rate, write_rate
from testkit.devset import load_seed_papers

# SEMANTIC=on with a stand-in engine, plus CLI and prepare runs: the semantic tier.
pytestmark = [pytest.mark.slow, pytest.mark.semantic]

DIM = 8


class FakeEmbedder:
    """Vectors from each text's hash; `hold` blocks paper batches, `interrupt_after` sends
    SIGINT to this process at that batch (an operator's Ctrl-C, which the terminal sends to
    the process, not to a thread)."""

    name = "fake-embedder/1"
    dim = DIM
    workers = 1

    def __init__(self) -> None:
        self.hold = threading.Event()
        self.held = False
        self.batches = 0
        self.interrupt_after: int | None = None

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.batches += 1
        if self.interrupt_after is not None and self.batches == self.interrupt_after:
            os.kill(os.getpid(), signal.SIGINT)
        if self.held:
            self.hold.wait()
        return np.stack([self.embed_query(text) for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
        vector = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
        return vector / np.linalg.norm(vector)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    embedder = FakeEmbedder()
    monkeypatch.setattr(search_package, "load_default_embedder", lambda **_: embedder)
    return embedder


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "papers.jsonl"
    records = [{"id": p.id, "title": p.title, "abstract": p.abstract} for p in load_seed_papers()]
    path.write_text("".join(json.dumps(r) + "\n" for r in records[:20]), encoding="utf-8")
    return path


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "prepared"
    monkeypatch.setenv("SEMANTIC", "on")
    monkeypatch.setenv("INDEX_CACHE_DIR", str(directory))
    return directory


# ------------------------------------------------------------------ the clock and the rate


def test_the_clock_counts_from_the_cache_and_times_only_new_work() -> None:
    clock = EtaClock(prior_rate=2.0)
    assert clock.seconds_left() is None and not clock.checked.is_set()
    clock(900, 1000)  # 900 read from the cache
    assert clock.checked.is_set() and not clock.measured.is_set()
    assert clock.missing == 100 and clock.seconds_left() == pytest.approx(50.0)  # prior rate
    clock(950, 1000)
    measured = clock.measured_rate()
    assert clock.measured.is_set() and measured is not None and measured[1] == 50
    assert clock.seconds_left() == pytest.approx(50 / measured[0])
    clock(1000, 1000)
    assert clock.seconds_left() == 0.0


def test_the_rate_waits_for_every_run_under_way() -> None:
    # Two workers, four papers each: the first run to finish is half the work under way, so
    # its rate alone would read half the real one.
    clock = EtaClock(in_flight=8)
    clock(0, 100)
    clock(4, 100)
    assert not clock.measured.is_set() and clock.measured_rate() is None
    assert clock.seconds_left() is None  # no prior rate: unknown, not a guess from one run
    clock(8, 100)
    measured = clock.measured_rate()
    assert clock.measured.is_set() and measured is not None and measured[1] == 8
    few = EtaClock(in_flight=8)  # fewer papers missing than under way: timed when all are done
    few(97, 100)
    few(100, 100)
    assert few.measured.is_set() and few.measured_rate() is not None


def test_a_rate_is_recorded_per_model_and_threads_and_only_when_timed_on_enough(
    tmp_path: Path,
) -> None:
    write_rate(tmp_path, "m", 1, 3.0, MIN_TIMED_PAPERS - 1)
    assert read_rate(tmp_path, "m", 1) is None  # too few papers: warm-up noise
    write_rate(tmp_path, "m", 1, 3.0, 100)
    write_rate(tmp_path, "m", None, 5.0, 100)
    assert read_rate(tmp_path, "m", 1).papers_per_second == 3.0  # type: ignore[union-attr]
    assert read_rate(tmp_path, "m", None).papers_per_second == 5.0  # type: ignore[union-attr]
    assert read_rate(tmp_path, "other", 1) is None
    (tmp_path / RATES_FILE).write_text("{not json")
    assert read_rate(tmp_path, "m", 1) is None  # damaged: no figure, no error


def test_the_notice_names_count_time_rate_and_command_in_every_language() -> None:
    readiness = loading.Readiness(ready=False, missing=3017, seconds=1100, rate=2.74, measured=True)
    english = pending_notice(readiness, t=translator("en"))
    assert "3,017 papers still need embedding" in english  # grouped, as the progress lines
    assert "3,017" in pending_notice(readiness, t=translator("zh_Hans"))
    assert "about 18 minutes" in english and "2.7 papers/s, timed just now" in english
    assert "python -m bot prepare" in english
    last = loading.Readiness(ready=False, missing=1, seconds=30, rate=40, measured=False)
    assert "the last run's rate" in pending_notice(last, t=translator("en"))
    assert "18 分钟" in pending_notice(readiness, t=translator("zh_Hans"))
    assert "18 分鐘" in pending_notice(readiness, t=translator("zh_Hant"))
    unknown = loading.Readiness(ready=False, missing=5, seconds=None, rate=None)
    assert "not known yet" in pending_notice(unknown, t=translator("en"))
    assert pending_notice(loading.Readiness(ready=True), t=translator("en")) == ""


# ------------------------------------------------------------------ search: never blocked


def search(capsys: pytest.CaptureFixture[str], corpus: Path, *extra: str) -> tuple[dict, str]:
    argv = ["search", "--json", "--limit", "2", "--corpus", str(corpus), *extra]
    assert cli.main([*argv, "graph mixup"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_search_answers_at_once_with_bm25_and_says_what_is_left(
    fake: FakeEmbedder, corpus: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache_dir.mkdir()
    write_rate(cache_dir, fake.name, None, 0.5, 100)  # the last run: 20 papers take ~40 s
    fake.held = True  # never finishes: the answer must not wait for it
    answer, err = search(capsys, corpus)
    fake.hold.set()
    assert answer["semantic"] is False and answer["results"]
    assert "20 papers still need embedding" in err
    assert "about 40 seconds (at 0.5 papers/s, the last run's rate)" in err
    assert "python -m bot prepare" in err and "--wait" in err and "--no-semantic" in err


def test_without_a_recorded_rate_the_first_batch_is_timed(
    fake: FakeEmbedder, corpus: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Timing says the rest is quick (a fake embedder): it is embedded before answering."""
    answer, err = search(capsys, corpus)
    assert answer["semantic"] is True and "still need embedding" not in err
    again, err = search(capsys, corpus)  # now cached: fused, nothing said
    assert again["semantic"] is True and err == ""


def test_wait_embeds_first(
    fake: FakeEmbedder, corpus: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache_dir.mkdir()
    write_rate(cache_dir, fake.name, None, 0.001, 100)  # "hours": only --wait waits
    answer, err = search(capsys, corpus, "--wait")
    assert answer["semantic"] is True and "still need embedding" not in err


def test_no_semantic_says_nothing_and_loads_no_model(
    fake: FakeEmbedder, corpus: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer, err = search(capsys, corpus, "--no-semantic")
    assert answer["semantic"] is False and err == "" and fake.batches == 0


# ------------------------------------------------------------------ prepare


def test_prepare_builds_the_cache_and_every_vector(
    fake: FakeEmbedder, corpus: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["prepare", "--corpus", str(corpus)]) == 0
    err = capsys.readouterr().err
    assert "20 papers, 20 embedded now, 0 from the cache" in err
    assert list(cache_dir.glob("index-*.idx")) and list(cache_dir.glob("vectors-*.vec"))
    assert read_rate(cache_dir, fake.name, None) is not None  # the next start can estimate
    assert cli.main(["prepare", "--corpus", str(corpus)]) == 0
    assert "0 embedded now, 20 from the cache" in capsys.readouterr().err


def test_prepare_is_resumable_after_an_interrupt(
    fake: FakeEmbedder,
    corpus: Path,
    cache_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake.interrupt_after = 2  # Ctrl-C while the second batch embeds
    assert cli.main(["prepare", "--corpus", str(corpus)]) == 130
    assert "papers still to embed; run prepare again" in capsys.readouterr().err
    fake.interrupt_after = None
    assert cli.main(["prepare", "--corpus", str(corpus)]) == 0
    err = capsys.readouterr().err
    done_before = int(err.split(" embedded now, ")[1].split(" from the cache")[0])
    assert done_before >= 2 * UNIT  # both batches' vectors were kept


def test_prepare_reports_a_corpus_error_with_exit_2(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["prepare", "--corpus", str(tmp_path / "missing.jsonl")]) == 2
    assert "python -m bot prepare: corpus error" in capsys.readouterr().err


def test_a_prepared_read_only_dir_is_served_without_a_write(
    fake: FakeEmbedder,
    corpus: Path,
    cache_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A corpus file written this instant is hashed again at the next start ("racy", see
    # storage.stamps) and its stamp written then; prepared minutes later, it is not.
    monkeypatch.setattr("bot.search.cache._RACY_NS", 0)
    assert cli.main(["prepare", "--corpus", str(corpus)]) == 0
    capsys.readouterr()
    before = {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in cache_dir.iterdir()}
    cache_dir.chmod(0o555)
    for path in cache_dir.iterdir():
        path.chmod(0o444)
    writes: list[str] = []
    real_mkstemp = __import__("tempfile").mkstemp

    def no_writes(*args, **kwargs):  # type: ignore[no-untyped-def]
        writes.append(str(kwargs.get("dir")))  # root may write to a chmod'ed dir: catch it here
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr("tempfile.mkstemp", no_writes)
    try:
        answer, err = search(capsys, corpus)
        assert answer["semantic"] is True and err == ""
    finally:
        cache_dir.chmod(0o755)
    assert writes == []
    after = {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in cache_dir.iterdir()}
    assert after == before


def test_settle_reads_the_cache_then_waits_only_when_quick(
    fake: FakeEmbedder, corpus: Path, cache_dir: Path
) -> None:
    settings = load_settings(env_file=None)
    _report, index = loading.load_index([corpus], settings.index_cache_dir)
    fake.held = True
    started = loading.start_semantic(index, settings)
    assert started is not None
    readiness = loading.settle(started, quick=0.0)  # no rate recorded, no time to time one
    assert readiness == loading.Readiness(ready=False, missing=20, seconds=None, rate=None)
    assert started.retriever.ready_in() is None
    fake.hold.set()
    started.job.done.wait()
    assert started.retriever.semantic_ready and started.retriever.ready_in() == 0.0
