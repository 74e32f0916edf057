"""Semantic search for the bot: wrap the served index in a hybrid and embed in the background.

Called after start-up and after each reload, as a task: loading the model and embedding
run in worker threads, so neither the first getUpdates nor any answer waits. Until the
vectors are ready the hybrid answers with BM25 (and, seconds in, corrects typos).
"""

from __future__ import annotations

import asyncio
import logging

from telegram.ext import Application

from bot import loading
from bot.search import Index
from bot.tg.state import BotState

logger = logging.getLogger(__name__)


async def serve_semantic(application: Application, index: Index) -> None:
    """Replace the served `index` with a hybrid of it, unless a reload replaced it first."""
    state: BotState = application.bot_data
    if not state.settings.semantic:
        return
    stop_embedding(state)
    retriever, job = await asyncio.to_thread(loading.semantic_retriever, index, state.settings)
    if state.index is not index:  # a reload swapped in another index meanwhile
        if job is not None:
            job.stop()
        return
    state.index = retriever  # the one swap; BM25 answers until the job attaches vectors
    state.embedding_job = job
    if job is not None:
        logger.info("Embedding %d papers in the background", len(index))


def stop_embedding(state: BotState) -> None:
    """Ask the running embedding job (if any) to stop; its work so far stays cached."""
    job, state.embedding_job = state.embedding_job, None
    if job is not None:
        job.stop()
