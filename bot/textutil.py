"""Plain-text rules shared by the corpus, search, rendering and the store."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Literal

__all__ = [
    "ABBREVIATIONS",
    "Span",
    "clean",
    "clean_keep_edges",
    "clip_words",
    "is_latin_letter",
    "is_latin_text",
    "merge_marks",
    "sendable",
    "sentence_spans",
]

Span = tuple[int, int]  # `[start, end)` character offsets into a text

ABBREVIATIONS = frozenset({
    "al", "e.g", "i.e", "etc", "vs", "cf", "fig", "eq", "approx", "resp", "ca", "no", "dr", "mr",
    "ms",
})  # fmt: skip

# A sentence ends at . ! or ?, possibly inside closing quotes or brackets, before whitespace.
_SENTENCE_END = re.compile(r"[.!?][\"”’')\]]*\s+")
_INITIAL = re.compile(r"[A-Z]")


def sentence_spans(text: str) -> list[Span]:
    """The spans of `text`'s sentences. A dot after an abbreviation or an initial does not end
    a sentence, nor does a mark before a lower-case letter."""
    spans: list[Span] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.start() + 1
        following = text[match.end() : match.end() + 1]
        if following.isalpha() and not following.isupper():
            continue
        word_start = max(start, text.rfind(" ", start, match.start()) + 1)
        word = text[word_start : match.start()].lstrip("(")
        if word.lower().rstrip(".") in ABBREVIATIONS or _INITIAL.fullmatch(word):
            continue
        spans.append((start, end))
        start = match.end()
    rest = len(text.rstrip())
    if start < rest:
        spans.append((start, rest))
    return spans


def clip_words(text: str, limit: int, *, strip: str = " ,;:.-–—") -> str:
    """`text` cut to at most `limit` characters ending in `…`, at a space unless that loses
    more than half; `strip`'s characters are dropped before the `…`."""
    if limit < 1:
        return ""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(strip) + "…"


# Characters no message can carry: C0/C1 controls (Telegram drops or refuses them, terminals act
# on them) and lone surrogates, which JSON escapes ("\\ud800") can produce but neither UTF-8
# nor Telegram's UTF-16 can encode.
_CONTROLS_BUT_NEWLINE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _drop_control(match: re.Match[str]) -> str:
    char = match.group()
    return "\ufffd" if char >= "\ud800" else " " if char.isspace() else ""


def _space_control(match: re.Match[str]) -> str:
    return "\ufffd" if match.group() >= "\ud800" else " "


def sendable(text: str, *, controls: Literal["drop", "space"] = "drop") -> str:
    """`text` safe to send: lone surrogates become U+FFFD; control characters are dropped
    (whitespace ones become spaces, newlines stay), or all become spaces with "space"."""
    if controls == "space":
        if text.isprintable() or not _CONTROLS.search(text):  # isprintable: the fast path
            return text
        return _CONTROLS.sub(_space_control, text)
    if not _CONTROLS_BUT_NEWLINE.search(text):
        return text
    return _CONTROLS_BUT_NEWLINE.sub(_drop_control, text)


def merge_marks(
    marks: Iterable[Span], text: str | None = None, *, join_blanks: bool = False
) -> tuple[Span, ...]:
    """The spans sorted, overlapping or touching ones joined, clipped to `text` if given; with
    `join_blanks`, spans only whitespace apart are joined too (one highlight for two words)."""
    if text is not None:
        size = len(text)
        marks = ((max(0, s), min(size, e)) for s, e in marks if min(size, e) > max(0, s))
    merged: list[list[int]] = []
    for start, end in sorted(marks):
        if merged and (
            start <= merged[-1][1]
            or (join_blanks and text is not None and not text[merged[-1][1] : start].strip())
        ):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((s, e) for s, e in merged)


_SPACE = re.compile(r"\s+")


def clean(text: str) -> str:
    """One line: whitespace runs collapsed, control characters dropped."""
    if text.isprintable():  # its only whitespace is " ": the regex only for a double space
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


def is_latin_letter(char: str) -> bool:
    """Whether a character is a Latin-script letter (its Unicode name says LATIN: "é", "ｆ")."""
    return "LATIN" in unicodedata.name(char, "")


def is_latin_text(text: str) -> bool:
    """Whether every letter of a non-empty `text` is Latin (digits and marks don't count)."""
    return bool(text) and all(is_latin_letter(ch) for ch in text if ch.isalpha())
