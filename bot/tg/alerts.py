"""Topic alerts after a reload: new papers on a follower's topics, sent once across replicas."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Mapping, Sequence

from telegram.error import Forbidden, TelegramError
from telegram.ext import Application

from bot.answers import results
from bot.corpus import Paper
from bot.i18n import DEFAULT_LANGUAGE, translator
from bot.render import reading_list
from bot.search import Retriever, is_confident
from bot.store import StoreUnavailable, topic_key
from bot.tg.preferences import chosen_language
from bot.tg.replies import send_to
from bot.tg.state import BotState

logger = logging.getLogger(__name__)

ALERT_SEARCH_DEPTH = 50  # new papers are looked for among a topic's top 50
MAX_ALERT_PAPERS = 20  # per topic; an alert is a pointer, not a digest
Alert = list[tuple[str, tuple[Paper, ...]]]  # (topic, its new papers)


def new_paper_ids(old: Retriever | None, new: Retriever) -> frozenset[str]:
    """Ids `new` serves that `old` did not, from the id sets alone (papers would be slow)."""
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


def user_alert(topics: Sequence[str], matches: Mapping[str, tuple[Paper, ...]]) -> Alert:
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
        # Recorded even when nobody follows: a later follower must not hear of a paper back.
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


def _ids(alert: Alert) -> frozenset[str]:
    return frozenset(paper.id for _topic, papers in alert for paper in papers)


async def _claimed(state: BotState, user_id: int, alert: Alert) -> Alert:
    """The part of `alert` this replica claimed in the ledger (nothing if the store is down)."""
    if not alert or state.store is None:
        return []
    try:
        claimed = await state.store.claim_alerts(user_id, _ids(alert))
    except StoreUnavailable as exc:
        # Unclaimed means possibly sent elsewhere: skipping beats a duplicate.
        logger.warning(
            "No topic alert for user %s: the database is not answering (%s)", user_id, exc
        )
        return []
    kept = ((topic, tuple(p for p in papers if p.id in claimed)) for topic, papers in alert)
    return [(topic, papers) for topic, papers in kept if papers]


async def _send(application: Application, user_id: int, topics: Sequence[str], alert: Alert) -> int:
    """Send one user's alert; unsubscribe them if they blocked the bot. 1 if sent, else 0."""
    state: BotState = application.bot_data
    t = translator(await chosen_language(state, user_id) or DEFAULT_LANGUAGE)
    try:
        await send_to(application.bot, user_id, reading_list.alert_doc(alert, t=t))
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
                await state.store.release_alerts(user_id, _ids(alert))
        except StoreUnavailable as store_exc:
            logger.warning("Could not release user %s's alert claims: %s", user_id, store_exc)
        return 0
    return 1


def start_alerts(application: Application, old: Retriever | None, new: Retriever) -> None:
    """Run `send_alerts` in the background, kept in `BotState.alerts_task`."""
    state: BotState = application.bot_data
    work = send_alerts(application, old, new)
    if application.running:
        state.alerts_task = application.create_task(work, name="topic-alerts")
    else:
        state.alerts_task = asyncio.create_task(work, name="topic-alerts")
