"""Deterministic stand-ins for the embedding model: a bag of hashed words (no model, fast),
and variants that wait for a test or fail, made in an `EmbeddingProcess`'s child."""

from __future__ import annotations

import hashlib
import os
import signal
from collections.abc import Sequence
from typing import Any

import numpy as np

from bot.search.query.analysis import EnglishAnalyzer

__all__ = [
    "BrokenEmbedder",
    "GatedEmbedder",
    "WordHashEmbedder",
    "broken_embedder",
    "gated_embedder",
    "word_hash_embedder",
]

_ANALYZER = EnglishAnalyzer()


class WordHashEmbedder:
    """Texts sharing words get close vectors; `name` keys caches like a real model's."""

    dim = 64
    workers = 1

    def __init__(self, name: str = "word-hash-test") -> None:
        self.name = name
        self.calls = 0
        """Texts embedded so far (a test can tell a stored result from a new one)."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.embed_query(text) for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        self.calls += 1
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in _ANALYZER.analyze(text):
            vector[hashlib.blake2b(word.encode(), digest_size=2).digest()[0] % self.dim] += 1
        vector += 1e-3
        return vector / np.linalg.norm(vector)


def word_hash_embedder() -> WordHashEmbedder:
    """A `WordHashEmbedder` made where it embeds (an `EmbeddingProcess`'s child)."""
    return WordHashEmbedder()


class GatedEmbedder(WordHashEmbedder):
    """Embeds `free` texts, then waits before each further run until `gate` (a
    multiprocessing Event, shared with the test) is set."""

    def __init__(self, gate: Any, free: int) -> None:
        super().__init__()
        self.gate, self.free = gate, free

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.calls >= self.free:
            self.gate.wait()
        return super().embed_documents(texts)


def gated_embedder(gate: Any, free: int) -> GatedEmbedder:
    """A `GatedEmbedder` made in the child (pass it with `functools.partial`)."""
    return GatedEmbedder(gate, free)


class BrokenEmbedder(WordHashEmbedder):
    """Its first run of papers fails: `how` is "raise" (an error) or "kill" (the process is
    killed, as by the out-of-memory killer)."""

    def __init__(self, how: str) -> None:
        super().__init__()
        self.how = how

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        raise RuntimeError("the engine broke")


def broken_embedder(how: str) -> BrokenEmbedder:
    """A `BrokenEmbedder` made in the child (pass it with `functools.partial`)."""
    return BrokenEmbedder(how)
