"""Plain-text helpers shared by the corpus, search and rendering: one copy of each rule.

- `sentence_spans`: where sentences start and end (abbreviations and initials do not end one);
- `clip_words`: a word-boundary cut with "…";
- `sendable`: text any message or terminal can carry (no controls, no lone surrogates);
- `merge_marks`: highlight spans made sorted and non-overlapping;
- `clean`: one line (whitespace runs collapsed, controls dropped);
- `is_latin_letter`: whether a letter is of the Latin script.

Pure functions over `str`; nothing here knows about Telegram.
"""

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

Span = tuple[int, int]
"""`[start, end)` character offsets into a text."""

ABBREVIATIONS = frozenset({
    "al", "e.g", "i.e", "etc", "vs", "cf", "fig", "eq", "approx", "resp", "ca", "no", "dr", "mr",
    "ms",
})  # fmt: skip
"""Words (lower case, without their final dot) whose dot does not end a sentence."""

# A sentence ends at . ! or ?, possibly inside closing quotes or brackets, before whitespace.
_SENTENCE_END = re.compile(r"[.!?][\"”’')\]]*\s+")
_INITIAL = re.compile(r"[A-Z]")


def sentence_spans(text: str) -> list[Span]:
    """`[start, end)` spans of the sentences of `text`, each ending at its punctuation mark.

    A dot after an abbreviation (`et al.`, `e.g.`) or an initial (`J. Smith`) does not end a
    sentence, nor does any mark followed by a lower-case letter.
    """
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
    """`text` cut to at most `limit` characters on a word boundary, with `…` when cut.

    The cut falls at the last space of the first `limit - 1` characters unless that would lose
    more than half of them; `strip` lists the characters dropped from the end before the `…`.
    """
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
    """`text` safe to send: lone surrogates become U+FFFD, control characters go.

    controls: "drop" keeps newlines, turns other whitespace controls into spaces and drops
    the rest (a message's text); "space" turns every control, newline included, into a
    space (one-line corpus text, collapsed afterwards).
    """
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
    """Sorted, non-overlapping spans; overlapping or touching ones become one.

    text: when given, spans are clipped to it and empty ones dropped.
    join_blanks: also join spans separated only by whitespace in `text` ("neural networks"
    reads better as one highlight than as two).
    """
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


def is_latin_letter(char: str) -> bool:
    """Whether a character is a Latin-script letter (its Unicode name says LATIN: "é", "ｆ")."""
    return "LATIN" in unicodedata.name(char, "")


def is_latin_text(text: str) -> bool:
    """Whether every letter of a non-empty `text` is Latin (digits and marks don't count)."""
    return bool(text) and all(is_latin_letter(ch) for ch in text if ch.isalpha())
