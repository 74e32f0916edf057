"""Semantic search for the bot: the served index wrapped in a hybrid while papers embed."""

from __future__ import annotations

import asyncio
import logging
import threading

from telegram.ext import Application

from bot import loading
from bot.answers import pending_notice
from bot.i18n import translator
from bot.search import Index
from bot.tg.state import BotState

logger = logging.getLogger(__name__)


async def serve_semantic(application: Application, index: Index) -> None:
    """Replace the served `index` with a hybrid of it, unless a reload replaced it first."""
    state: BotState = application.bot_data
    if not state.settings.semantic:
        return
    # The old job's child saves its papers in hand first: the new one then reads them.
    await end_embedding(state)
    started = await asyncio.to_thread(loading.start_semantic, index, state.settings, separate=True)
    if started is None:  # no model: BM25 goes on alone
        return
    if state.index is not index:  # a reload swapped in another index meanwhile
        await asyncio.to_thread(started.job.finish)
        return
    state.index = started.retriever  # BM25 answers until the job attaches the vectors
    state.embedding_job = started.job
    logger.info("Embedding %d papers in the background", len(index))
    # Off the loop and not awaited (a reload must not wait on the vector cache's read).
    threading.Thread(target=_log_readiness, args=(started,), name="readiness", daemon=True).start()


def _log_readiness(started: loading.SemanticStart) -> None:
    """Log how many papers are left to embed and about how long, once the cache is read."""
    readiness = loading.settle(started, quick=0.0)
    notice = pending_notice(readiness, t=translator("en"))
    if notice:
        logger.info("%s", notice)


async def end_embedding(state: BotState) -> None:
    """Stop the embedding job, if any, and wait for its child to end; its work stays cached."""
    job, state.embedding_job = state.embedding_job, None
    if job is not None:
        await asyncio.to_thread(job.finish)
