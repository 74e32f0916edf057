"""A deterministic stand-in for the embedding model: a bag of hashed words (no model, fast)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from bot.search.analysis import EnglishAnalyzer

__all__ = ["WordHashEmbedder"]

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
