"""Which words of a text hold which query terms, found without analysing the whole text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from bot.search.query.analysis import Analyzer
from bot.textutil import Span

_CHUNK = re.compile(r"\S+")
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


def word_prefix(term: str) -> str:
    """What a word holding `term` nearly always contains ("happi" -> "happ"); only a hint."""
    return term if len(term) <= 2 else term[: len(term) - (1 if len(term) <= 4 else 2)]


def short_prefixes(chunks: Iterable[str], terms: Iterable[Sequence[str]]) -> dict[str, int]:
    """Per term some chunk holds without containing it whole, the first letters all such contain.

    Such are changed stem ends ("happi"), joined compounds ("firstord"), irregular stems ("die").
    """
    short: dict[str, int] = {}
    for chunk, held in zip(chunks, terms, strict=True):
        if held:
            low = chunk.lower()
            for term in held:
                if term not in low:
                    chars = len(term) - 1
                    while chars and term[:chars] not in low:
                        chars -= 1
                    short[term] = min(chars, short.get(term, chars))
    return short


def plain_text(text: str, sentences: Sequence[Span], analyzer: Analyzer) -> bool:
    """Whether `text` is printable ASCII folding to itself with no word across a sentence's end."""
    fold = getattr(analyzer, "fold", None)
    spans = list(sentences) or [(0, len(text))]
    return (
        fold is not None
        and text.isascii()
        and _printable(text)
        and fold(text) == text
        and not _crosses_sentence_end(text, spans)
    )


def _printable(ascii_text: str) -> bool:
    """Whether ASCII text is printable (bytes 0x20-0x7e): then its only whitespace is " "."""
    return not ascii_text.encode("ascii").translate(None, _PRINTABLE_ASCII)


def _crosses_sentence_end(text: str, sentences: Sequence[Span]) -> bool:
    """True if a word runs across a sentence's end (closing quotes after the dot)."""
    size = len(text)
    return any(hi < size and not text[hi].isspace() for _, hi in sentences[:-1])


def words_holding(low: str, parts: Iterable[str]) -> dict[int, int]:
    """Start -> end of each word (split at " ") of `low` that contains one of `parts`."""
    size = len(low)
    find, rfind = low.find, low.rfind
    spans: dict[int, int] = {}
    for part in filter(None, parts):  # an empty part would be found everywhere, forever
        at = find(part)
        while at != -1:
            start = rfind(" ", 0, at) + 1
            end = find(" ", at)
            if end == -1:
                end = size
            spans[start] = end
            at = find(part, end)
    return spans


def marks(text: str, wanted: Mapping[str, float], analyzer: Analyzer) -> list[Span]:
    """Spans of the `wanted` terms in `text`; in ASCII text only chunks holding one are analysed."""
    if not text.isascii():
        return [(s, e) for t, s, e in analyzer.analyze_spans(text) if t in wanted]
    analyze, spans = analyzer.analyze, analyzer.analyze_spans
    return [
        (chunk.start() + s, chunk.start() + e)
        for chunk in _CHUNK.finditer(text)
        if not wanted.keys().isdisjoint(analyze(chunk[0]))
        for t, s, e in spans(chunk[0])
        if t in wanted
    ]
