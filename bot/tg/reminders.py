"""Reminders: a private message N minutes before each saved paper's presentation (/remind). One
task sends them, each claimed in the store's ledger first so it goes out once across replicas."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from telegram.error import Forbidden, TelegramError
from telegram.ext import Application

from bot import planner
from bot.answers import saved_papers
from bot.corpus import Paper
from bot.i18n import pick_language, translator
from bot.render import reminder_doc
from bot.store import (
    MAX_REMINDER_KEY_CHARS,
    MAX_REMINDER_MINUTES,
    ReminderUser,
    StoreUnavailable,
)
from bot.tg.replies import send_to
from bot.tg.state import BotState

logger = logging.getLogger(__name__)

MAX_SLEEP = timedelta(seconds=60)  # the longest the job sleeps between rounds


def plan(
    papers: Sequence[Paper], minutes: int, now: datetime, sent: frozenset[planner.SentKey]
) -> tuple[tuple[planner.Entry, ...], datetime | None]:
    """The reminders due at `now` not yet sent that fit the ledger, and when the next is due."""
    due = planner.due_reminders(papers, minutes, now, sent)
    fits = tuple(e for e in due if len(e.paper.id) <= MAX_REMINDER_KEY_CHARS)
    return fits, planner.next_due(papers, minutes, now, sent)


async def remind_round(application: Application, now: datetime) -> datetime | None:
    """Send every reminder due at `now`; when the next falls due (None: none, or no store)."""
    state: BotState = application.bot_data
    if state.store is None or state.index is None:
        return None
    try:
        users = await state.store.reminder_users()
    except StoreUnavailable as exc:
        logger.warning("No reminders this round: the database is not answering (%s)", exc)
        return None
    loop = asyncio.get_running_loop()
    soonest: datetime | None = None
    for user in users:
        try:
            papers = await saved_papers(state.store, state.index, user.user_id)
            sent = await state.store.sent_reminders(user.user_id)
        except StoreUnavailable as exc:
            logger.warning("No reminders for user %s this round: %s", user.user_id, exc)
            continue
        # One user per executor call, so questions interleave with a large round.
        due, upcoming = await loop.run_in_executor(
            state.executor(), plan, papers, user.minutes, now, sent
        )
        if due:
            await _remind(application, user, due, now)
        if upcoming is not None and (soonest is None or upcoming < soonest):
            soonest = upcoming
    return soonest


def _keys(entries: Iterable[planner.Entry]) -> set[planner.SentKey]:
    return {planner.sent_key(entry) for entry in entries}


async def _remind(
    application: Application, user: ReminderUser, due: Sequence[planner.Entry], now: datetime
) -> None:
    """Claim `due` for the user, send what this replica claimed, release what failed."""
    state: BotState = application.bot_data
    assert state.store is not None  # remind_round checked
    try:
        claimed = await state.store.claim_reminders(user.user_id, _keys(due))
    except StoreUnavailable as exc:
        # Unclaimed means possibly sent elsewhere: skipping beats a duplicate.
        logger.warning(
            "No reminders for user %s: the database is not answering (%s)", user.user_id, exc
        )
        return
    mine = [entry for entry in due if planner.sent_key(entry) in claimed]
    t = translator(pick_language(user.language))  # their /lang, else the one /remind was in
    for number, entry in enumerate(mine):
        assert entry.start is not None  # due reminders are of timed presentations
        minutes = max(1, math.ceil((entry.start - now).total_seconds() / 60))
        try:
            doc = reminder_doc(entry, minutes=minutes, t=t, mine=user.timezone or "")
            await send_to(application.bot, user.user_id, doc)
        except Forbidden:
            logger.info("User %s blocked the bot; their reminders are turned off", user.user_id)
            await _give_up(state, user.user_id, _keys(mine[number:]), turn_off=True)
            return
        except TelegramError as exc:
            logger.warning("Could not send a reminder to user %s: %s", user.user_id, exc)
            await _give_up(state, user.user_id, _keys([entry]), turn_off=False)


async def _give_up(
    state: BotState, user_id: int, keys: set[planner.SentKey], *, turn_off: bool
) -> None:
    """Release claims not sent (a later round may send them); `turn_off` reminders."""
    assert state.store is not None
    try:
        if turn_off:
            await state.store.set_reminder(user_id, None)
        await state.store.release_reminders(user_id, keys)
    except StoreUnavailable as exc:
        logger.warning("Could not release user %s's reminder claims: %s", user_id, exc)


async def run_reminders(application: Application) -> None:
    """The reminder job: a round, then sleep until the next is due, `MAX_SLEEP` or a wake."""
    state: BotState = application.bot_data
    while True:
        state.reminders_wake.clear()  # a wake-up during the round starts another
        try:
            soonest = await remind_round(application, state.clock.now())
        except Exception:  # one bad round must not end reminders for good
            logger.exception("A reminder round failed")
            soonest = None
        wait = MAX_SLEEP
        if soonest is not None:
            wait = min(MAX_SLEEP, soonest - state.clock.now())
        await state.clock.wait(wait.total_seconds(), state.reminders_wake)


def saved_soon(state: BotState, paper: Paper) -> None:
    """Wake the job when a just-saved `paper` is presented soon: its reminder may be due now."""
    if planner.due_reminders([paper], MAX_REMINDER_MINUTES, state.clock.now(), ()):
        state.reminders_wake.set()


def start_reminders(application: Application) -> None:
    """Start the reminder job (kept in `BotState.reminders_task`)."""
    state: BotState = application.bot_data
    state.reminders_task = asyncio.create_task(run_reminders(application), name="reminders")


async def stop_reminders(application: Application) -> None:
    """Stop the reminder job and wait until it has (a send in flight is cancelled)."""
    state: BotState = application.bot_data
    task, state.reminders_task = state.reminders_task, None
    if task is not None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
