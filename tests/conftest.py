"""Shared fixtures: the seed corpus, its index, a fake Bot API server, the bot Application."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import DEFAULT_CORPUS, Settings
from bot.corpus import Paper, load_corpus
from bot.search import Index
from testkit.fake_bot_api import FakeBotApi


@pytest.fixture(autouse=True)
def data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh DATA_DIR per test, so nothing writes a database into the repository."""
    path = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("DATA_DIR", str(path))
    return path


@pytest.fixture(scope="session")
def papers() -> tuple[Paper, ...]:
    """The papers of the repository's seed corpus."""
    return load_corpus([DEFAULT_CORPUS]).papers


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

    settings = Settings(token=fake_api.token, api_base_url=fake_api.base_url)
    return build_application(settings, index)
