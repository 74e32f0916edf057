"""`EmbeddingProcess`: a hybrid's papers embedded in a child process at the lowest CPU priority.

A thread would share the GIL (the tokenizer is Python) and the cores with every answer. The
child ("spawn": no fork of a threaded process) stops when the pipe to it closes, so none
outlives the bot; Ctrl-C is left to this process, which then stops it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection

from bot.logs import Progress
from bot.search.rank.retriever import Retriever
from bot.search.semantic.embedding import Embedder
from bot.search.semantic.hybrid import HybridRetriever
from bot.search.semantic.job import attach

logger = logging.getLogger(__name__)

NICE = 19
"""The child's niceness: the lowest priority, so any runnable thread of the bot (or of the
machine) takes a core before it."""
STOP_SECONDS = 30.0
"""How long `finish` waits for the child to finish its papers in hand and save them before
it kills it (the work saved at the last checkpoint stays)."""

EmbedderFactory = Callable[[], Embedder | None]
"""Makes the child's embedder (None: no model here); picklable, as a module's function."""


@dataclass(frozen=True, slots=True)
class CorpusSource:
    """Where the child reads the corpus the served index was loaded from (the settings')."""

    paths: tuple[str, ...]
    cache_dir: str
    corpus_filter: str = ""
    venue_timezone: str = ""


class EmbeddingProcess:
    """Embeds a retriever's papers in a low-priority child process, then attaches the vectors.

    Nothing is attached if the child finds `source`'s papers differ from the retriever's.
    """

    def __init__(
        self,
        retriever: HybridRetriever,
        source: CorpusSource,
        *,
        make_embedder: EmbedderFactory | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.retriever = retriever
        self._progress = progress
        self.done = threading.Event()
        """Set when the job has ended, whether the vectors were attached or not."""
        self._stopped = threading.Event()
        context = multiprocessing.get_context("spawn")
        self._results, child_results = context.Pipe(duplex=False)
        child_stop, self._stop_pipe = context.Pipe(duplex=False)
        level = logging.getLogger().getEffectiveLevel()
        args = (source, _identity(retriever), make_embedder or _product_embedder, level,
                child_results, child_stop)  # fmt: skip
        self.process = context.Process(target=_child, args=args, name="embedding", daemon=True)
        """The child (`pid`, `exitcode`)."""
        self._child_ends = (child_results, child_stop)
        self._thread = threading.Thread(target=self._watch, name="embedding", daemon=True)

    def start(self) -> EmbeddingProcess:
        """Start the child and its reader thread; returns self (ended, logged, if it cannot)."""
        try:
            self.process.start()
        except OSError as error:
            logger.error("No embedding process (%s); answering with BM25 alone", error)
            self.done.set()
            return self
        for end in self._child_ends:  # the child holds them now: its exit is our EOF
            end.close()
        self._thread.start()
        logger.info("Embedding papers in process %s at the lowest CPU priority", self.process.pid)
        return self

    def stop(self) -> None:
        """Ask the child to end after its current papers (its work so far stays cached)."""
        self._stopped.set()
        self._stop_pipe.close()

    def finish(self, timeout: float = STOP_SECONDS) -> bool:
        """`stop`, then wait for the child (killed after `timeout` s); False if it never started."""
        self.stop()
        if self._thread.ident is None:
            return False
        if not self.done.wait(timeout):
            logger.warning("The embedding process did not stop in %.0f s: killed", timeout)
            self.process.kill()
            self.done.wait()
        return True

    def _watch(self) -> None:
        """Pass the child's progress on, attach its result; log how it ended."""
        started, failure = time.perf_counter(), None
        try:
            while True:
                kind, *payload = self._results.recv()
                if kind == "progress" and self._progress is not None:
                    self._progress(*payload)
                elif kind == "ready" and not self._stopped.is_set():
                    vectors, calibration = payload
                    attach(self.retriever, vectors, calibration, started)
                elif kind == "failed":
                    failure = payload[0]
        except (EOFError, OSError):
            pass  # the child has ended
        except Exception:  # attaching failed: BM25 keeps answering
            logger.exception("Embedding papers failed; answering with BM25 alone")
        finally:
            self._results.close()  # a child still sending takes it as a stop
            self.process.join()
            self._log_end(failure)
            self.done.set()

    def _log_end(self, failure: str | None) -> None:
        """Say why the vectors were not attached, unless they were or a stop ended it."""
        if failure is not None:
            logger.error("Embedding papers failed; answering with BM25 alone: %s", failure)
        elif self.process.exitcode and not self._stopped.is_set():
            logger.error(
                "The embedding process ended (exit code %s); answering with BM25 alone",
                self.process.exitcode,
            )


def _identity(served: Retriever) -> tuple[int, str]:
    """How many papers, and the digest of their ids in order: the same corpus or not."""
    ids = "\n".join(served.paper_ids())
    return len(served), hashlib.sha256(ids.encode("utf-8", "surrogatepass")).hexdigest()


def _product_embedder() -> Embedder | None:
    """The product's model, embedding papers on every core."""
    from bot.search.semantic.e5_onnx import load_default_embedder

    return load_default_embedder(num_threads=None)


def _child(
    source: CorpusSource,
    identity: tuple[int, str],
    make_embedder: EmbedderFactory,
    level: int,
    results: Connection,
    stop_pipe: Connection,
) -> None:
    """The child's life: every outcome is a message (an error's too), never a traceback."""
    with contextlib.suppress(OSError, AttributeError):  # no nice(): at the usual priority
        os.nice(NICE)
    stop = _Stop(stop_pipe)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the bot stops us when it stops
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    from bot.logs import LOG_FORMAT

    logging.basicConfig(level=level, format=LOG_FORMAT)  # a spawned child starts without it
    send = functools.partial(_send, results, stop)
    try:
        outcome = _embed(source, identity, make_embedder, send, stop)
    except Exception:
        outcome = ("failed", traceback.format_exc().rstrip())
    if outcome is not None:
        send(*outcome)
    results.close()


class _Stop(threading.Event):
    """The child's stop: set by SIGTERM or the parent closing the pipe; polled, never waited on."""

    def __init__(self, pipe: Connection) -> None:
        super().__init__()
        self._pipe = pipe

    def is_set(self) -> bool:
        """Set, or the parent's end is closed (the pipe reads EOF) or gone."""
        if not super().is_set():
            try:
                closed = self._pipe.poll()  # nothing is ever sent: readable means EOF
            except OSError:
                closed = True
            if closed:
                self.set()
        return super().is_set()


def _send(results: Connection, stop: threading.Event, *message: object) -> None:
    """Send a report to the parent; a parent that is gone is a stop."""
    try:
        results.send(message)
    except OSError:
        stop.set()


def _embed(
    source: CorpusSource,
    identity: tuple[int, str],
    make_embedder: EmbedderFactory,
    send: Callable[..., None],
    stop: threading.Event,
) -> tuple[object, ...] | None:
    """Load the corpus, embed, calibrate: the last message to send (None: stopped)."""
    from bot.search.cache import load_cached, load_corpus_and_index
    from bot.search.semantic.job import vectors_and_calibration

    paths, cache_dir, keep = source.paths, source.cache_dir, source.corpus_filter
    zone = source.venue_timezone
    loaded = load_cached(paths, cache_dir, keep, zone)
    _report, index = loaded or load_corpus_and_index(
        paths, cache_dir, corpus_filter=keep, venue_timezone=zone
    )
    if _identity(index) != identity:
        return ("failed", "the corpus changed since it was loaded: /reload embeds the new one")
    embedder = make_embedder()
    if embedder is None:
        return ("failed", "the model did not load")
    report = functools.partial(send, "progress")
    found = vectors_and_calibration(
        index, embedder, cache_dir=cache_dir, progress=report, stop=stop
    )
    return None if found is None or stop.is_set() else ("ready", *found)
