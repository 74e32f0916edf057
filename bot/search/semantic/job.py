"""Embedding jobs: a hybrid's papers embedded in the background, its vectors attached when done.

`EmbeddingJob` uses a thread (one-shot commands own the cores); `EmbeddingProcess` a
low-priority child process (the bot: answers never wait for the papers).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from bot.search.semantic.calibration import Calibration, calibrated
from bot.search.semantic.embedding import Embedder, embed_papers
from bot.search.semantic.hybrid import HybridRetriever

if TYPE_CHECKING:
    from bot.search.rank.index import Index

logger = logging.getLogger(__name__)


class Embedding(Protocol):
    """A retriever's papers being embedded; the vectors are attached to it when done."""

    retriever: HybridRetriever
    done: threading.Event
    """Set when the job has ended, whether the vectors were attached or not."""

    def stop(self) -> None:
        """Ask the job to end soon; what it embedded so far stays cached."""
        ...

    def finish(self) -> bool:
        """`stop`, then wait for the job to end; False if it never started."""
        ...


def vectors_and_calibration(
    index: Index,
    embedder: Embedder,
    *,
    cache_dir: str | Path | None,
    progress: Callable[[int, int], None] | None,
    stop: threading.Event,
) -> tuple[np.ndarray, Calibration | None] | None:
    """The papers' vectors and the corpus's calibration; None when stopped before all vectors."""
    vectors = embed_papers(
        embedder, index.papers, cache_dir=cache_dir, progress=progress, stop=stop
    )
    if vectors is None or stop.is_set():
        return None
    index.queries.load_speller()  # the probes are prepared as the bot prepares questions
    return vectors, calibrated(index, vectors, embedder, cache_dir=cache_dir, stop=stop)


def attach(
    retriever: HybridRetriever, vectors: np.ndarray, calibration: Calibration | None, started: float
) -> None:
    """Attach the finished vectors (answers are fused from now on) and log it."""
    retriever.attach_vectors(vectors, calibration)
    logger.info(
        "Semantic search ready: %d papers in %.1f s", len(vectors), time.perf_counter() - started
    )


class EmbeddingJob:
    """Embeds a retriever's papers in a daemon thread, then attaches vectors; `stop()` ends it."""

    def __init__(
        self,
        retriever: HybridRetriever,
        embedder: Embedder,
        *,
        cache_dir: str | Path | None,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """Prepare the job; `embedder` embeds the papers (it may also answer questions)."""
        self.retriever = retriever
        self._embedder = embedder
        self._cache_dir = cache_dir
        self._progress = progress
        self._stop = threading.Event()
        self.done = threading.Event()
        """Set when the job has ended, whether the vectors were attached or not."""
        self._thread = threading.Thread(target=self._run, name="embedding", daemon=True)

    def start(self) -> EmbeddingJob:
        """Start the thread; returns self."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the thread to end after its current batch (its work so far stays cached)."""
        self._stop.set()

    def finish(self) -> bool:
        """`stop`, then wait for the thread to end; False if it never started."""
        self._stop.set()
        if self._thread.ident is None:
            return False
        self.done.wait()
        return True

    def _run(self) -> None:
        """Ready the speller (and a started glossary), embed, attach; errors logged, not raised."""
        started = time.perf_counter()
        try:
            # Before the vectors, so whoever waits for the job gets corrections and, if a front
            # end started the glossary, glossed Chinese questions (a missing one is logged once).
            self.retriever.queries.load_speller()
            self.retriever.queries.settle_glossary()
            found = vectors_and_calibration(
                self.retriever.index,
                self._embedder,
                cache_dir=self._cache_dir,
                progress=self._progress,
                stop=self._stop,
            )
            if found is not None:
                attach(self.retriever, *found, started)
        except Exception:  # a failed model must not take the bot down: BM25 keeps answering
            logger.exception("Embedding papers failed; answering with BM25 alone")
        finally:
            self.done.set()
