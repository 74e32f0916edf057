"""Text helpers for rendering: one-line cleaning; cuts, sendable text and highlight merging
come from `bot.textutil` (one copy each).
"""

from __future__ import annotations

import re
import unicodedata

from bot.textutil import clip_words, merge_marks, sendable

__all__ = ["clean", "clean_keep_edges", "clip_words", "merge_marks", "sendable"]

_SPACE = re.compile(r"\s+")


def clean(text: str) -> str:
    """One line: whitespace runs collapsed, control characters dropped."""
    if text.isprintable():  # no controls, surrogates or line breaks: skip the per-char pass
        # Printable text's only whitespace is " " (other spaces are not printable): without
        # a double space there is no run to collapse, and the regex pass is skipped.
        return (_SPACE.sub(" ", text) if "  " in text else text).strip()
    text = "".join(
        " " if ch in "\t\n\r\v\f" else ch
        for ch in text
        if ch in "\t\n\r\v\f" or unicodedata.category(ch) not in ("Cc", "Cs")
    )
    return _SPACE.sub(" ", text).strip()


def clean_keep_edges(text: str) -> str:
    """Like `clean`, but a leading/trailing space survives (spans join on it)."""
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() and text.strip() else ""
    inner = clean(text)
    return f"{lead}{inner}{trail}" if inner else (" " if text else "")
