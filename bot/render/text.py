"""Text helpers for rendering: one-line cleaning, cuts, sendable text and highlight merging,
all from `bot.textutil` (one copy each).
"""

from __future__ import annotations

from bot.textutil import clean, clean_keep_edges, clip_words, merge_marks, sendable

__all__ = ["clean", "clean_keep_edges", "clip_words", "merge_marks", "sendable"]
