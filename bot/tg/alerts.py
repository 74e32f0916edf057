"""Topic alerts: after a reload, new papers that confidently match a followed topic.

`reload_index` starts `send_alerts` as a background task once the new index is served,
so the reload answers at once. Each follower gets one message listing the new papers
for all their topics (split only past Telegram's 4096 characters); a user who blocked
the bot is unsubscribed quietly.

Each (user, paper) alert is claimed in the store's ledger before it is sent, so several
replicas reloading onto one database (or one replica reloading twice) send it once; a
claim whose message failed for a transient reason is released for a later reload.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Mapping, Sequence

from telegram.constants import ParseMode
from telegram.error import Forbidden, TelegramError
from telegram.ext import Application

from bot.answers import results
from bot.corpus import Paper
from bot.i18n import DEFAULT_LANGUAGE, Lang, is_language, translator
from bot.render import library, to_html
from bot.search import Retriever
from bot.search.confidence import is_confident
from bot.store import StoreUnavailable
from bot.store.model import topic_key
from bot.tg.handlers._replies import NO_PREVIEW
from bot.tg.state import BotState

logger = logging.getLogger(__name__)

ALERT_SEARCH_DEPTH = 50  # ours: new papers are looked for among a topic's top 50
MAX_ALERT_PAPERS = 20  # ours: per topic; an alert is a pointer, not a digest


def new_paper_ids(old: Retriever | None, new: Retriever) -> frozenset[str]:
    """Ids served by `new` that `old` did not have (all of them when there was no old).

    From the id sets alone: making every `Paper` of two large indexes just to read their ids
    would hold the event loop and leave the papers' memory behind.
    """
    if old is None:
        return frozenset(new.paper_ids())
    return frozenset(new.paper_ids() - old.paper_ids())


def topic_matches(index: Retriever, topic: str, new_ids: Collection[str]) -> tuple[Paper, ...]:
    """New papers in `index` that match `topic` confidently, best first (CPU work)."""
    result = results(index, topic, limit=ALERT_SEARCH_DEPTH, snippets=False)
    if not result.confident:
        return ()
    found = [
        hit.paper for hit in result.hits if hit.paper.id in new_ids and is_confident(hit.coverage)
    ]
    return tuple(found[:MAX_ALERT_PAPERS])


def user_alert(
    topics: Sequence[str], matches: Mapping[str, tuple[Paper, ...]]
) -> list[tuple[str, tuple[Paper, ...]]]:
    """One user's alert: each topic with its new papers, a paper listed under its first topic."""
    listed: set[str] = set()
    alert = []
    for topic in topics:
        papers = tuple(p for p in matches.get(topic_key(topic), ()) if p.id not in listed)
        listed.update(p.id for p in papers)
        if papers:
            alert.append((topic, papers))
    return alert


async def send_alerts(application: Application, old: Retriever | None, new: Retriever) -> int:
    """Tell each follower about new papers on their topics; returns how many users were told."""
    state: BotState = application.bot_data
    if state.store is None:
        return 0
    try:
        # Recorded whether or not anyone follows a topic yet: a later follower must not hear
        # of a paper that merely came back.
        new_ids = await _never_served(state, old, new)
        followers = await state.store.followers() if new_ids else {}
    except StoreUnavailable as exc:
        logger.warning("No topic alerts after this reload: the database is not answering (%s)", exc)
        return 0
    if not new_ids or not followers:
        return 0
    loop = asyncio.get_running_loop()
    matches: dict[str, tuple[Paper, ...]] = {}
    for topics in followers.values():
        for topic in topics:
            key = topic_key(topic)
            if key not in matches:  # one search per distinct topic, however many follow it
                # One search per executor call, so users' questions interleave with these.
                matches[key] = await loop.run_in_executor(
                    state.executor(), topic_matches, new, topic, new_ids
                )
    told = 0
    for user_id, topics in followers.items():
        alert = await _claimed(state, user_id, user_alert(topics, matches))
        if alert:
            told += await _send(application, user_id, topics, alert)
    logger.info("Topic alerts: %d new papers, %d users told", len(new_ids), told)
    return told


async def _never_served(state: BotState, old: Retriever | None, new: Retriever) -> frozenset[str]:
    """Ids `new` serves that neither `old` nor any index before it did (the store records)."""
    # Set work over every id of both indexes: off the loop.
    added = await asyncio.to_thread(new_paper_ids, old, new)
    served = old.paper_ids() if old is not None else frozenset[str]()
    if not added and not served:
        return frozenset()
    assert state.store is not None  # send_alerts checked
    return await state.store.never_served(served, added)


def only_papers(
    alert: list[tuple[str, tuple[Paper, ...]]], paper_ids: Collection[str]
) -> list[tuple[str, tuple[Paper, ...]]]:
    """`alert` keeping only papers in `paper_ids`, and only topics left with a paper."""
    kept = ((topic, tuple(p for p in papers if p.id in paper_ids)) for topic, papers in alert)
    return [(topic, papers) for topic, papers in kept if papers]


def alert_ids(alert: list[tuple[str, tuple[Paper, ...]]]) -> frozenset[str]:
    """Every paper id an alert lists."""
    return frozenset(paper.id for _topic, papers in alert for paper in papers)


async def _claimed(
    state: BotState, user_id: int, alert: list[tuple[str, tuple[Paper, ...]]]
) -> list[tuple[str, tuple[Paper, ...]]]:
    """The part of `alert` this replica claimed in the ledger (nothing if the store is down)."""
    if not alert or state.store is None:
        return []
    try:
        claimed = await state.store.claim_alerts(user_id, alert_ids(alert))
    except StoreUnavailable as exc:
        # Unclaimed means possibly sent elsewhere: skipping beats a duplicate.
        logger.warning(
            "No topic alert for user %s: the database is not answering (%s)", user_id, exc
        )
        return []
    return only_papers(alert, claimed)


async def _send(
    application: Application,
    user_id: int,
    topics: Sequence[str],
    alert: list[tuple[str, tuple[Paper, ...]]],
) -> int:
    """Send one user's alert; unsubscribe them if they blocked the bot. 1 if sent, else 0."""
    state: BotState = application.bot_data
    t = translator(await _language(state, user_id))
    try:
        for part in to_html(library.alert_doc(alert, t=t)):
            await application.bot.send_message(
                user_id, part.text, parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW
            )
    except Forbidden:
        logger.info("User %s blocked the bot; their topics are unfollowed", user_id)
        try:
            for topic in topics:
                if state.store is not None:
                    await state.store.unfollow(user_id, topic)
        except StoreUnavailable as exc:
            logger.warning("Could not unfollow user %s's topics: %s", user_id, exc)
        return 0
    except TelegramError as exc:
        logger.warning("Could not send a topic alert to user %s: %s", user_id, exc)
        try:
            # Released, so the next reload retries (a part already sent may then repeat).
            if state.store is not None:
                await state.store.release_alerts(user_id, alert_ids(alert))
        except StoreUnavailable as store_exc:
            logger.warning("Could not release user %s's alert claims: %s", user_id, store_exc)
        return 0
    return 1


async def _language(state: BotState, user_id: int) -> Lang:
    """The follower's /lang choice (cached like a message's), else English: no update here."""
    cached = state.languages.get(user_id)
    if cached is not None:
        return cached
    try:
        stored = await state.store.get_language(user_id) if state.store is not None else None
    except StoreUnavailable:
        return DEFAULT_LANGUAGE
    return stored if is_language(stored) else DEFAULT_LANGUAGE  # type: ignore[return-value]


def start_alerts(application: Application, old: Retriever | None, new: Retriever) -> None:
    """Run `send_alerts` in the background (kept in `BotState.alerts_task`)."""
    state: BotState = application.bot_data
    work = send_alerts(application, old, new)
    # PTB awaits its tasks at shutdown, but only while running (not in a bare `async with`).
    if application.running:
        state.alerts_task = application.create_task(work, name="topic-alerts")
    else:
        state.alerts_task = asyncio.create_task(work, name="topic-alerts")
