"""Text helpers for rendering: one line, word-boundary cuts, sendable text, highlight merging.

One copy of each; `bot.cli` and the Telegram side call these rather than their own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_SPACE = re.compile(r"\s+")


def clean(text: str) -> str:
    """One line: whitespace runs collapsed, control characters dropped."""
    if text.isprintable():  # no controls, surrogates or line breaks: skip the per-char pass
        return _SPACE.sub(" ", text).strip()
    text = "".join(
        " " if ch in "\t\n\r\v\f" else ch
        for ch in text
        if ch in "\t\n\r\v\f" or unicodedata.category(ch) not in ("Cc", "Cs")
    )
    return _SPACE.sub(" ", text).strip()


def truncate_words(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters on a word boundary, with `…` when cut."""
    if limit < 1:
        return ""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-–—") + "…"


def clean_keep_edges(text: str) -> str:
    """Like `clean`, but a leading/trailing space survives (spans join on it)."""
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() and text.strip() else ""
    inner = clean(text)
    return f"{lead}{inner}{trail}" if inner else (" " if text else "")


def merge_marks(text: str, marks: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Highlight spans of `text`, sorted; runs separated only by whitespace become one.

    Empty, out-of-range and overlapping marks are dropped (that text stays unmarked).
    """
    merged: list[tuple[int, int]] = []
    for start, end in sorted(marks):
        if start < 0 or start >= end or end > len(text) or (merged and start < merged[-1][1]):
            continue
        if merged and not text[merged[-1][1] : start].strip():
            # "Arboreal Neural Networks" reads better as one highlight than as three.
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


# Characters a message cannot carry: lone surrogates (invalid UTF-8/UTF-16) and controls
# (Telegram drops or refuses them); "\n" is the one control messages use.
_UNSENDABLE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _unsendable(match: re.Match[str]) -> str:
    char = match.group()
    return "\ufffd" if char >= "\ud800" else " " if char.isspace() else ""


def sendable(text: str) -> str:
    """`text` safe to send: lone surrogates as U+FFFD, controls except newline dropped."""
    return _UNSENDABLE.sub(_unsendable, text) if _UNSENDABLE.search(text) else text
