"""Which words of a text hold which query terms, found without analysing the whole text.

A word's terms do not depend on its neighbours, and a word holding a term nearly always
contains the start of the term (`word_prefix`). The index notes, for each term, a prefix that
every abstract word holding it does contain (`short_prefixes`), so a snippet analyses only the
words holding one of those prefixes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from bot.search.query.analysis import Analyzer
from bot.textutil import Span

_CHUNK = re.compile(r"\S+")
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


def word_prefix(term: str) -> str:
    """What a word holding `term` nearly always contains: the stem minus its last letters.

    ("happi" from "happy": "happ"); a hint of where to look, safe only where the index says so.
    """
    return term if len(term) <= 2 else term[: len(term) - (1 if len(term) <= 4 else 2)]


def short_prefixes(chunks: Iterable[str], terms: Iterable[Sequence[str]]) -> dict[str, int]:
    """For each term some of `chunks` holds without containing it whole: how many of the
    term's first letters every such chunk contains.

    chunks: words of folded text (`chunk_terms`), each with its `terms`. A stem that changed
    its end ("happi" from "happy": 4), a joined compound's term ("firstord" from
    "first-order": 5) and an irregular stem ("die" from "dying": 1) are such.
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
    """Whether `text` is printable ASCII that `analyzer` folds to itself, with no word running
    across the end of one of `sentences` (`sentence_spans(text)`): what the snippets' fast path
    checks before it looks for words split at " "."""
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
    """Whether ASCII text is printable (bytes 0x20-0x7e, as `isprintable`, faster): then its
    only whitespace is " "."""
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
    """Spans of the `wanted` terms in `text`.

    Spans need `analyze_spans` (slow but for a short text it remembers, such as one word);
    ASCII text analyses word by word (whitespace-separated chunks) exactly as whole, so only
    the chunks whose cached terms include a wanted one are analysed for spans.
    """
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
