"""Shared fixtures: the seed corpus, its index, a fake Bot API server, the bot Application."""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.config import Settings
from bot.corpus import Paper, load_corpus
from bot.search import Index
from bot.store import Store
from testkit.fake_bot_api import FakeBotApi
from testkit.paths import SEED_CORPUS
from testkit.pg import REQUIRE_ENV, Backend, PgCluster, find_bin_dir

# Where bytecode may not be written (PYTHONDONTWRITEBYTECODE), pytest would rewrite every test
# module's asserts again on every run (~15 s a worker on 2 cores): cache them outside the tree.
if sys.dont_write_bytecode:
    sys.pycache_prefix = str(Path(__file__).resolve().parents[1] / ".pytest_cache" / "pycache")
    sys.dont_write_bytecode = False

PROCESS_TESTS = Path(__file__).resolve().parent / "process"
"""Process-level and end-to-end tests: the slow tier by folder."""


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by these marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark tests under tests/process/ `slow`, and tests on the PostgreSQL server `postgres`
    and `slow` (the everyday loop runs the store on SQLite; the whole suite on both)."""
    for item in items:
        if PROCESS_TESTS in item.path.parents:
            item.add_marker(pytest.mark.slow)
        if "pg_cluster" in getattr(item, "fixturenames", ()) or item.get_closest_marker("postgres"):
            item.add_marker(pytest.mark.postgres)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def bm25_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """SEMANTIC=off for every test that does not set it.

    Embedding a corpus takes seconds a paper on a cold vector cache (a clean clone, CI); it
    belongs to the tests about it (test_hybrid, test_e2e_semantic), which say SEMANTIC=on.
    """
    monkeypatch.setenv("SEMANTIC", "off")


@pytest.fixture(autouse=True)
def seeds_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """CORPUS=the seed corpus for every test that does not set it.

    The bot's default is the bundled programme (6,628 papers: seconds to load, more to index
    cold); the tests about that default unset CORPUS themselves.
    """
    monkeypatch.setenv("CORPUS", str(SEED_CORPUS))


@pytest.fixture(autouse=True)
def data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh DATA_DIR per test, so nothing writes a database into the repository, nor into
    the user's own data folder (`Settings()` built in a test defaults to XDG_DATA_HOME's)."""
    path = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("DATA_DIR", str(path))
    monkeypatch.setenv("XDG_DATA_HOME", str(path / "xdg"))
    return path


@pytest.fixture(scope="session")
def papers() -> tuple[Paper, ...]:
    """The papers of the repository's seed corpus."""
    return load_corpus([SEED_CORPUS]).papers


@pytest.fixture(scope="session")
def index(papers: tuple[Paper, ...]) -> Index:
    """The seed corpus indexed once per session (the index is immutable)."""
    return Index.build(papers)


@pytest.fixture
def fake_api() -> Iterator[FakeBotApi]:
    """A fresh fake Telegram Bot API server on 127.0.0.1."""
    with FakeBotApi() as api:
        yield api


@pytest.fixture
def app(fake_api: FakeBotApi, index: Index):  # -> telegram.ext.Application
    """The real bot Application talking to `fake_api`; use `async with app:`."""
    from bot.tg.app import build_application

    settings = Settings(token=fake_api.token, api_base_url=fake_api.base_url, corpus=(SEED_CORPUS,))
    return build_application(settings, index)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A PostgreSQL server for the whole session; skipped locally without binaries, never in CI."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but no PostgreSQL binaries (apt-get install postgresql)")
        pytest.skip("PostgreSQL binaries not found (apt-get install postgresql)")
    cluster = PgCluster(bin_dir)
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """An empty database on each backend."""
    if request.param == "sqlite":
        return Backend("sqlite", None, tmp_path)
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    url = cluster.create_schema(f"test_{uuid.uuid4().hex[:16]}")
    return Backend("postgres", url, tmp_path, cluster)


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Store]:
    """An open store on an empty database, on each backend."""
    opened = await backend.open()
    yield opened
    await opened.close()


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    """A private copy of the seed corpus that a test may change or add papers to."""
    target = tmp_path / "corpus"
    shutil.copytree(SEED_CORPUS, target)
    for file in target.iterdir():
        file.chmod(0o644)  # a read-only checkout's modes are copied too
    return target
