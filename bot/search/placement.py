"""Which words of a text hold which query terms, found without analysing the whole text.

A snippet needs the words of an abstract that hold the query's terms, and their sentences.
A word's terms do not depend on its neighbours, and a word holding a term nearly always
contains the term's stem minus its last letters (`word_prefix`), so only the words holding
a prefix need analysing. That hint is made safe one of two ways: the index knows, for each
term, a prefix every abstract word holding it contains (the whole term for most; for those
`short_prefixes` notes, less: "firstord" is held by "first-order", "happi" by "happy");
else the words found must add up to the abstract's own count of each term
(`abstract_counts`). Either failing, the caller takes the full pass (`placed_chunks`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from itertools import chain, compress
from operator import not_

from bot.corpus import Paper
from bot.search.analysis import Analyzer
from bot.search.documents import TITLE_WEIGHT
from bot.textutil import Span

__all__ = [
    "Placed",
    "abstract_counts",
    "placed_by_prefix",
    "placed_chunks",
    "plain_text",
    "short_prefixes",
    "word_prefix",
    "words_holding",
]

Placed = list[tuple[int, int, Set[str]]]
"""Each word holding a wanted term: its `[start, end)` in the text and the wanted terms it
holds, in text order."""

_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


def word_prefix(term: str) -> str:
    """What a word holding `term` nearly always contains: the stem minus its last letters.

    ("happi" from "happy": "happ"); a hint of where to look, safe only where the index or a
    count says so.
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


def abstract_counts(paper: Paper, indexed: dict[str, int], analyzer: Analyzer) -> dict[str, int]:
    """How often each term occurs in the abstract: indexed counts minus the other fields'.

    The reverse of `documents.document_terms` (title `TITLE_WEIGHT` times, keywords,
    authors); words analyse one by one as they do in their field (no term spans whitespace).
    """
    if not any(indexed.values()):
        return indexed
    prefixes = [word_prefix(t) for t, n in indexed.items() if n]

    def terms_of(fields: Iterable[str]) -> list[str]:
        # Only the words that may hold a term are analysed: most of a title's and all of an
        # author's words are new to the analyzer's cache on a first search. A word skipped
        # wrongly leaves an abstract count too high, which the snippet's own check catches
        # (it then takes its full pass), never a wrong snippet.
        words = []
        for field in fields:
            low = field.lower()
            if not (parts := [p for p in prefixes if p in low]):  # most fields
                continue
            if field.isascii():  # `low` keeps the positions; words split at " " (may join
                # two at another space: both analysed, each once, so no count too low)
                words += [field[s:e] for s, e in words_holding(low, parts).items()]
            else:
                words += [w for w in field.split() if any(p in w.lower() for p in parts)]
        return analyzer.analyze(" ".join(words)) if words else []

    title, other = terms_of([paper.title]), terms_of([*paper.keywords, *paper.authors])
    if not title and not other:  # no other field holds a prefix: every count is the abstract's
        return indexed
    return {t: n - TITLE_WEIGHT * title.count(t) - other.count(t) for t, n in indexed.items()}


def plain_text(text: str, sentences: Sequence[Span], analyzer: Analyzer) -> bool:
    """Whether `text` is printable ASCII that `analyzer` folds to itself, with no word running
    across the end of one of `sentences` (`sentence_spans(text)`): what the snippets' fast path
    checks of a text before it looks for words in it."""
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


def placed_by_prefix(
    text: str,
    sentences: Sequence[Span],
    wanted: Mapping[str, float],
    analyzer: Analyzer,
    prefixes: Sequence[str],
    expected: list[int] | None = None,
    *,
    plain: bool = False,
) -> Placed | None:
    """The words of `text` holding a wanted term, found as the words holding one of `prefixes`.

    prefixes: one of each wanted term `text` may hold (it holds no other).
    expected: how often `text` holds each wanted term (in `wanted`'s order) when the words
        found must add up to it; None when every word holding one of the terms is known to
        contain its prefix. None is returned when they do not add up, and for text that is
        not ASCII whose only whitespace is " " (`plain`: known to be `plain_text`).
    """
    terms_of_chunks = getattr(analyzer, "terms_of_chunks", None)
    fold = getattr(analyzer, "fold", None)
    if terms_of_chunks is None or fold is None:
        return None
    if not plain and (not text.isascii() or _crosses_sentence_end(text, sentences)):
        return None
    if not prefixes:
        return [] if expected is None or not any(expected) else None
    folded = text if plain else fold(text)
    # Printable ASCII's only space is " ", so the words split at " " are the chunks
    # `chunk_terms` would analyse.
    if not plain and not _printable(folded):
        return None
    spans = words_holding(folded.lower(), prefixes)
    starts = sorted(spans)
    chunk_sets = terms_of_chunks([folded[s : spans[s]] for s in starts])
    if expected is not None:
        held = list(chain.from_iterable(chunk_sets))
        if list(map(held.count, wanted)) != expected:
            return None
    keys = wanted.keys()
    return [
        (start, spans[start], matched)
        for start, terms in zip(starts, chunk_sets, strict=True)
        if (matched := keys & terms)
    ]


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


def placed_chunks(
    text: str, sentences: Sequence[Span], wanted: Mapping[str, float], analyzer: Analyzer
) -> Placed | None:
    """Where the words (whitespace-separated chunks) holding a wanted term are, with those terms.

    One cached pass over the whole text (`chunk_terms`) instead of one `analyze` a sentence
    and then one a word; a word's every occurrence is found by string search and kept only
    as a whole chunk. None (use the slow path) when the analyzer cannot tell (no
    `chunk_terms`), a word runs across a sentence's end (closing quotes after the dot), or
    the occurrences do not add up.
    """
    chunk_terms = getattr(analyzer, "chunk_terms", None)
    if chunk_terms is None or _crosses_sentence_end(text, sentences):
        return None
    size = len(text)
    folded, chunks, terms = chunk_terms(text)
    keys = frozenset(wanted)
    hit = list(map(not_, map(keys.isdisjoint, terms)))
    words = dict(compress(zip(chunks, terms, strict=True), hit))
    placed: Placed = []
    for word, word_terms in words.items():
        matched = keys.intersection(word_terms)
        at = folded.find(word)
        while at != -1:
            end = at + len(word)
            if (at == 0 or folded[at - 1].isspace()) and (end == size or folded[end].isspace()):
                placed.append((at, end, matched))
            at = folded.find(word, at + 1)
    if len(placed) != sum(hit):
        return None
    placed.sort()
    return placed
