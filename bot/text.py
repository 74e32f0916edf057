"""The analyzer: one pipeline for papers and queries (normalise, tokenize, stop, stem)."""

from __future__ import annotations

ANALYZER_VERSION = "1"
"""Bump when `analyze` changes what it returns: on-disk index caches key on it."""


def analyze(text: str) -> list[str]:
    """Index/query terms of `text`."""
    raise NotImplementedError
