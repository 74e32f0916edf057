"""/recommend end to end: the real Application, the fake Bot API, a real database (SQLite and
PostgreSQL), on the real paperlists sample (305 ICML 2013–2019 papers) with BM25 alone.

Save three bandit papers → most of the first five recommendations are bandit papers; a
dismissed paper never comes back (on any page, after a restart too); another user's list is
untouched; with nothing saved, a hint on how to save.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application

from bot.config import Settings
from bot.corpus import Paper, load_corpus
from bot.render import Recommend, paper_ref, parse_callback
from bot.render.callbacks import ToggleSave, encode
from bot.search import Index
from bot.store import Store
from bot.tg.app import build_application
from testkit.fake_bot_api import ApiCall, FakeBotApi, Updates, parse_html
from testkit.paths import TEST_DATA
from testkit.pg import Backend

SAMPLE = TEST_DATA / "paperlists_sample"
ALICE, BOB = 1001, 2002


def save_data(paper_id: str) -> str:
    """The callback data of a paper's "☆ Save" button."""
    return encode(ToggleSave(paper_ref(paper_id), save=True))


@pytest.fixture(scope="module")
def sample() -> Index:
    return Index.build(load_corpus(sorted(SAMPLE.glob("icml*.json"))).papers)


def on_topic(paper: Paper) -> bool:
    return "bandit" in f"{paper.title} {paper.abstract}".casefold()


class Bot:
    """One running Application over `store`, fed updates; taps buttons on sent messages."""

    def __init__(self, app: Application, api: FakeBotApi) -> None:
        self.app, self.api, self.updates = app, api, Updates()
        self.ids = iter(range(1, 1_000_000))

    async def send(self, text: str, user: int) -> ApiCall:
        await self._feed(self.updates.message(text, chat_id=user))
        return self.api.calls_of("sendMessage")[-1]

    async def tap(self, data: str, on: ApiCall, user: int) -> ApiCall:
        """Tap `data` on the message `on`; the message as edited (or sent) afterwards."""
        message = self.api.message_json(on.result["chat"]["id"], on.result["message_id"])
        edits = len(self.api.calls_of("editMessageText"))
        await self._feed(self.updates.callback(data, message=message, user_id=user))
        edited = self.api.calls_of("editMessageText")
        return edited[-1] if len(edited) > edits else self.api.calls_of("sendMessage")[-1]

    async def _feed(self, payload: dict[str, Any]) -> None:
        update = Update.de_json({"update_id": next(self.ids), **payload}, self.app.bot)
        await self.app.process_update(update)


def buttons(call: ApiCall) -> list[str]:
    markup = call.params.get("reply_markup") or {}
    return [b["callback_data"] for row in markup.get("inline_keyboard", []) for b in row]


def shown(call: ApiCall, index: Index) -> list[Paper]:
    """The recommended papers on a page, from its "not interested" buttons, in order."""
    refs = [a.ref for a in map(parse_callback, buttons(call)) if isinstance(a, Recommend) and a.ref]
    return [paper for paper in map(index.get, refs) if paper is not None]


async def all_pages(bot: Bot, first: ApiCall, index: Index, user: int) -> list[Paper]:
    """Every recommendation, turning pages with Next until there is none."""
    papers, page = shown(first, index), first
    while True:
        offsets = [
            a.offset
            for a in map(parse_callback, buttons(page))
            if isinstance(a, Recommend) and a.ref is None
        ]
        later = [o for o in offsets if o > (parse_offset(page) or 0)]
        if not later:
            return papers
        page = await bot.tap(f"c:{later[0]}", page, user)
        papers += shown(page, index)


def parse_offset(call: ApiCall) -> int | None:
    dismiss = [a for a in map(parse_callback, buttons(call)) if isinstance(a, Recommend) and a.ref]
    return dismiss[0].offset if dismiss else None


async def started(api: FakeBotApi, index: Index, store: Store) -> Application:
    app = build_application(Settings(token=api.token, api_base_url=api.base_url), index)
    app.bot_data.store = store
    await app.initialize()
    return app


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Store]:
    opened = await backend.open(timeout=2)
    yield opened
    await opened.close()


@pytest.mark.slow
async def test_recommendations_follow_saves_and_dismissals(
    fake_api: FakeBotApi, sample: Index, backend: Backend, store: Store
) -> None:
    app = await started(fake_api, sample, store)
    bot = Bot(app, fake_api)
    try:
        hint = parse_html((await bot.send("/recommend", ALICE)).params["text"])
        assert "☆" in hint and "/recommend" in hint  # how to save, not an empty list

        bandits = [p for p in sample.papers if "bandit" in p.title.casefold()][:3]
        card = await bot.send(f"/paper {bandits[0].id}", ALICE)
        for paper in bandits:
            await bot.tap(save_data(paper.id), card, ALICE)
        assert await store.count_saved(ALICE) == 3

        first = await bot.send("/recommend", ALICE)
        text = parse_html(first.params["text"])
        top = shown(first, sample)
        assert len(top) == 5 and sum(map(on_topic, top)) >= 4, [p.title for p in top]
        assert "like: " in text and any(p.title[:30] in text for p in bandits)
        assert not {p.id for p in top} & {p.id for p in bandits}  # never a saved paper

        unwanted = top[0]
        after = await bot.tap(f"d:0:{unwanted.id}", first, ALICE)
        assert unwanted.id not in {p.id for p in shown(after, sample)}
        everything = await all_pages(bot, after, sample, ALICE)
        assert len(everything) > 10 and unwanted.id not in {p.id for p in everything}
        assert await store.dismissed(ALICE) == {unwanted.id}

        # Bob's list is his own: Alice's saves and dismissals do not reach it.
        assert "☆" in parse_html((await bot.send("/recommend", BOB)).params["text"])
        bob_card = await bot.send(f"/paper {bandits[0].id}", BOB)
        for paper in bandits:
            await bot.tap(save_data(paper.id), bob_card, BOB)
        bob_first = await bot.send("/recommend", BOB)
        assert unwanted.id in {p.id for p in shown(bob_first, sample)}
        assert await store.dismissed(BOB) == frozenset()
    finally:
        await app.shutdown()

    # A restart (new store connection, new Application) keeps the dismissal.
    reopened = await backend.open(timeout=2)
    app = await started(fake_api, sample, reopened)
    try:
        bot = Bot(app, fake_api)
        first = await bot.send("/recommend", ALICE)
        again = await all_pages(bot, first, sample, ALICE)
        assert again and unwanted.id not in {p.id for p in again}
    finally:
        await app.shutdown()
        await reopened.close()


async def test_saved_has_a_recommend_button_and_forget_clears_dismissals(
    fake_api: FakeBotApi, sample: Index, store: Store
) -> None:
    app = await started(fake_api, sample, store)
    bot = Bot(app, fake_api)
    try:
        paper = next(p for p in sample.papers if "bandit" in p.title.casefold())
        card = await bot.send(f"/paper {paper.id}", ALICE)
        await bot.tap(save_data(paper.id), card, ALICE)
        listing = await bot.send("/saved", ALICE)
        assert "c:0" in buttons(listing)
        recommended = await bot.tap("c:0", listing, ALICE)
        assert recommended.method == "sendMessage"  # under the list, which stays
        assert shown(recommended, sample)
        await store.dismiss(ALICE, shown(recommended, sample)[0].id)

        confirm = await bot.send("/forget", ALICE)
        await bot.tap("g:yes", confirm, ALICE)
        assert await store.dismissed(ALICE) == frozenset()
    finally:
        await app.shutdown()


async def test_saved_words_rank_the_users_own_papers(
    fake_api: FakeBotApi, sample: Index, store: Store
) -> None:
    app = await started(fake_api, sample, store)
    bot = Bot(app, fake_api)
    try:
        bandit = next(p for p in sample.papers if "bandit" in p.title.casefold())
        kernel = next(p for p in sample.papers if "kernel" in p.title.casefold())
        card = await bot.send(f"/paper {bandit.id}", ALICE)
        for paper in (bandit, kernel):
            await bot.tap(save_data(paper.id), card, ALICE)

        text = parse_html((await bot.send("/saved bandit", ALICE)).params["text"])
        assert bandit.title[:40] in text and kernel.title[:40] not in text
        text = parse_html((await bot.send("/saved -bandit kernel", ALICE)).params["text"])
        assert kernel.title[:40] in text and bandit.title[:40] not in text
        text = parse_html((await bot.send("/saved diffusion transformers", ALICE)).params["text"])
        assert "None of your saved papers" in text
        bob = parse_html((await bot.send("/saved bandit", BOB)).params["text"])
        assert "reading list is empty" in bob
    finally:
        await app.shutdown()
