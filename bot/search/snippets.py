"""Snippets: the one or two sentences of an abstract that best match a query, matches marked.

Computed after ranking, for the hits shown only.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, compress, pairwise
from math import fsum
from operator import itemgetter, not_

from bot.corpus import Paper
from bot.search.analysis import Analyzer
from bot.textutil import Span, merge_marks, sentence_spans

__all__ = [
    "MAX_SNIPPET_CHARS",
    "Snippet",
    "abstract_counts",
    "best_snippet",
    "marks",
    "plain_text",
    "word_prefix",
]

MAX_SNIPPET_CHARS = 300
"""Longest snippet, ellipses included."""

_CHUNK = re.compile(r"\S+")
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


@dataclass(frozen=True, slots=True)
class Snippet:
    """One or two best-matching sentences, plain text, with matched words marked."""

    text: str
    marks: tuple[tuple[int, int], ...] = ()
    """Character spans `[start, end)` in `text` of the words that matched the query."""


def best_snippet(
    text: str,
    terms: Sequence[str],
    weights: Mapping[str, float],
    analyzer: Analyzer,
    *,
    counts: Mapping[str, int] | None = None,
    sentences: Sequence[Span] | None = None,
    plain: bool = False,
) -> Snippet:
    """The one or two sentences of `text` that best match `terms` (weighted), matches marked.

    counts: when known (the index's term frequencies), how often each of `terms` occurs in
    `analyzer.analyze(text)`; then only the words that may hold a term are analysed.
    sentences: `sentence_spans(text)` when known (an index cache keeps them per abstract).
    plain: `plain_text(text, sentences, analyzer)` when known (the cache keeps it too): the
    words holding a term are then looked for without checking the text first.
    """
    sentences = list(sentence_spans(text) if sentences is None else sentences)
    sentences = sentences or [(0, len(text))]
    wanted = {t: weights[t] for t in terms}
    placed = None
    if counts is not None:
        placed = _placed_by_prefix(text, sentences, wanted, counts, analyzer, plain=plain)
    if placed is None:
        placed = _placed_chunks(text, sentences, wanted, analyzer)
    found: dict[int, set[str]] = {}  # sentence number -> its matched terms (those with some)
    if placed is None:
        # Sentences end at whitespace, so each analyses as it does inside the whole text.
        for i, (lo, hi) in enumerate(sentences):
            if matched := wanted.keys() & analyzer.analyze(text[lo:hi]):
                found[i] = matched
    else:
        starts = [lo for lo, _ in sentences]
        last = len(sentences) - 1
        for start, _, matched in placed:
            i = bisect_right(starts, start) - 1
            i = i if i >= 0 else last
            held = found.get(i)
            found[i] = matched if held is None else held | matched  # `placed`'s sets unchanged
    lo, hi = _best_window(sentences, found, wanted)
    window = text[lo:hi]
    if placed is None or not window.isascii():
        spans = marks(window, wanted, analyzer)
    else:  # the same spans as `marks`, from the words already known to match
        spans = [
            (start - lo + s, start - lo + e)
            for start, end, _ in placed
            if lo <= start < hi
            for t, s, e in analyzer.analyze_spans(text[start:end])
            if t in wanted
        ]
    return _clip(window, merge_marks(spans), MAX_SNIPPET_CHARS)


def _best_window(
    sentences: list[Span], found: dict[int, set[str]], wanted: Mapping[str, float]
) -> Span:
    """The sentence or pair of neighbouring sentences whose matched terms weigh most.

    found: the matched terms of each sentence that has some, by sentence number, ascending;
    a pair's terms are its sentences' together. wanted: each term's weight. Windows rank by
    matched weight, then a window that fits `MAX_SNIPPET_CHARS`, one sentence, the earlier
    one; only windows with a match are ranked unless none weighs more than 0. A single
    sentence chosen gets a neighbour if the pair fits (`_add_neighbour`).
    """
    if not found:
        lo, hi = sentences[0]
        if len(sentences) > 1 and sentences[1][1] - lo <= MAX_SNIPPET_CHARS:
            hi = sentences[1][1]
        return lo, hi
    # fsum: exact, so the same terms weigh the same in any set order (ties stay ties).
    weight = {i: fsum(map(wanted.__getitem__, f)) for i, f in found.items()}
    # Sentences, then pairs, in order: the first best wins, as with `max` (no two tie).
    best: tuple[float, bool, bool, int] | None = None
    chosen, single = sentences[0], -1  # the window, and its sentence if it is one
    for i, w in weight.items():
        lo, hi = sentences[i]
        rank = w, hi - lo <= MAX_SNIPPET_CHARS, True, -lo
        if best is None or rank > best:
            best, chosen, single = rank, (lo, hi), i
    last = len(sentences) - 1
    for i in sorted(found.keys() | [k - 1 for k in found]):  # pairs holding a match
        if not 0 <= i < last:
            continue
        lo, hi = sentences[i][0], sentences[i + 1][1]
        if hi - lo <= MAX_SNIPPET_CHARS:
            a, b = found.get(i), found.get(i + 1)
            w = weight[i] if b is None else weight[i + 1] if a is None else _weight(a | b, wanted)
            rank = w, True, False, -lo
            if best is None or rank > best:
                best, chosen, single = rank, (lo, hi), -1
    if best is not None and best[0] <= 0:  # zero-weight terms: every window ties on weight
        chosen, single = _best_of_all(sentences, found, weight, wanted)
    return _add_neighbour(sentences, single, weight) if single >= 0 else chosen


def _weight(terms: Iterable[str], wanted: Mapping[str, float]) -> float:
    """The terms' summed weight, exactly (`fsum`: the same in any order)."""
    return fsum(map(wanted.__getitem__, terms))


def word_prefix(term: str) -> str:
    """What a word holding `term` nearly always contains: the stem minus its last letters.

    ("happi" from "happy": "happ"); a hint of where to look, never trusted without a check.
    """
    return term if len(term) <= 2 else term[: len(term) - (1 if len(term) <= 4 else 2)]


def abstract_counts(
    paper: Paper, indexed: dict[str, int], analyzer: Analyzer, *, title_weight: int
) -> dict[str, int]:
    """How often each term occurs in the abstract: indexed counts minus the other fields'.

    The reverse of `index.document_terms` (title `title_weight` times, keywords, authors);
    words analyse one by one as they do in their field (no term spans whitespace).
    """
    if not any(indexed.values()):
        return indexed
    prefixes = [word_prefix(t) for t, n in indexed.items() if n]

    def terms_of(fields: Iterable[str]) -> list[str]:
        # Only the words that may hold a term are analysed: most of a title's and all of
        # an author's words are new to the analyzer's cache on a first search (~4 µs
        # each). A word skipped wrongly leaves an abstract count too high, which the
        # snippet's own check catches (it then takes its full pass), never a wrong one.
        words = []
        for field in fields:
            low = field.lower()
            if not (parts := [p for p in prefixes if p in low]):  # most fields
                continue
            if field.isascii():  # `low` keeps the positions; words split at " " (may join
                # two at another space: both analysed, each once, so no count too low)
                words += [field[s:e] for s, e in _words_holding(low, parts).items()]
            else:
                words += [w for w in field.split() if any(p in w.lower() for p in parts)]
        return analyzer.analyze(" ".join(words)) if words else []

    title, other = terms_of([paper.title]), terms_of([*paper.keywords, *paper.authors])
    if not title and not other:  # no other field holds a prefix: every count is the abstract's
        return indexed
    return {t: n - title_weight * title.count(t) - other.count(t) for t, n in indexed.items()}


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
    """Whether ASCII text is printable (bytes 0x20-0x7e, as `isprintable`, ~7x faster): then
    its only whitespace is " "."""
    return not ascii_text.encode("ascii").translate(None, _PRINTABLE_ASCII)


def _crosses_sentence_end(text: str, sentences: list[Span]) -> bool:
    """True if a word runs across a sentence's end (closing quotes after the dot)."""
    size = len(text)
    return any(hi < size and not text[hi].isspace() for _, hi in sentences[:-1])


def _placed_by_prefix(
    text: str,
    sentences: list[Span],
    wanted: Mapping[str, float],
    counts: Mapping[str, int],
    analyzer: Analyzer,
    *,
    plain: bool = False,
) -> list[tuple[int, int, set[str]]] | None:
    """`_placed_chunks`, analysing only the words that contain a stem's prefix.

    A word holding a term nearly always contains the term's stem minus its last letters
    ("happi" from "happy"); only such words are analysed. That they hold every occurrence
    is checked, not assumed: their terms must add up to `counts`, else None (and the caller
    takes the full pass). ASCII text whose only whitespace is " " only (`plain`: known to
    be `plain_text`, not checked again).
    """
    terms_of_chunks = getattr(analyzer, "terms_of_chunks", None)
    fold = getattr(analyzer, "fold", None)
    if terms_of_chunks is None or fold is None:
        return None
    if not plain and (not text.isascii() or _crosses_sentence_end(text, sentences)):
        return None
    expected = [counts.get(t, 0) for t in wanted]
    present = [t for t, n in zip(wanted, expected, strict=True) if n > 0]
    if not present:
        return [] if not any(expected) else None
    folded = text if plain else fold(text)
    # Printable ASCII's only space is " ", so the words split at " " are the chunks
    # `chunk_terms` would analyse.
    if not plain and not _printable(folded):
        return None
    spans = _words_holding(folded.lower(), [word_prefix(t) for t in present])
    starts = sorted(spans)
    chunk_sets = terms_of_chunks([folded[s : spans[s]] for s in starts])
    held = list(chain.from_iterable(chunk_sets))
    if list(map(held.count, wanted)) != expected:
        return None
    keys = wanted.keys()
    return [
        (start, spans[start], matched)
        for start, terms in zip(starts, chunk_sets, strict=True)
        if (matched := keys & terms)
    ]


def _words_holding(low: str, parts: Iterable[str]) -> dict[int, int]:
    """Start -> end of each word (split at " ") of `low` that contains one of `parts`."""
    size = len(low)
    find, rfind = low.find, low.rfind
    spans: dict[int, int] = {}
    for part in parts:
        at = find(part)
        while at != -1:
            start = rfind(" ", 0, at) + 1
            end = find(" ", at)
            if end == -1:
                end = size
            spans[start] = end
            at = find(part, end)
    return spans


def _placed_chunks(
    text: str, sentences: list[Span], wanted: Mapping[str, float], analyzer: Analyzer
) -> list[tuple[int, int, frozenset[str]]] | None:
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
    placed: list[tuple[int, int, frozenset[str]]] = []
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


def _best_of_all(
    sentences: list[Span],
    found: dict[int, set[str]],
    weight: dict[int, float],
    wanted: Mapping[str, float],
) -> tuple[Span, int]:
    """`_best_window`'s rank over every window, matched or not: (window, its sentence or -1)."""
    windows = [
        ((weight.get(i, 0.0), hi - lo <= MAX_SNIPPET_CHARS, True, -lo), (lo, hi), i)
        for i, (lo, hi) in enumerate(sentences)
    ]
    for i, (a, b) in enumerate(pairwise(sentences)):
        if b[1] - a[0] <= MAX_SNIPPET_CHARS:
            terms = found.get(i, set()) | found.get(i + 1, set())
            windows.append(((_weight(terms, wanted), True, False, -a[0]), (a[0], b[1]), -1))
    _, window, single = max(windows, key=itemgetter(0))
    return window, single


def _add_neighbour(sentences: list[Span], i: int, weight: Mapping[int, float]) -> Span:
    """Sentence `i` with its better-matching (else the next) neighbour if the pair still fits.

    weight: the matched weight of each sentence that has a match.
    """
    lo, hi = sentences[i]
    after = i + 1 < len(sentences) and sentences[i + 1][1] - lo <= MAX_SNIPPET_CHARS
    before = i > 0 and hi - sentences[i - 1][0] <= MAX_SNIPPET_CHARS
    if before and (not after or weight.get(i - 1, 0.0) > weight.get(i + 1, 0.0)):
        return sentences[i - 1][0], hi
    return (lo, sentences[i + 1][1]) if after else (lo, hi)


def _clip(text: str, kept_marks: tuple[Span, ...], limit: int) -> Snippet:
    """Cut `text` to `limit` chars on word boundaries around its first marks, with "…".

    Unlike `clip_words` the window may start later, so that the first match is shown.
    """
    if len(text) <= limit:
        return Snippet(text, kept_marks)
    start = 0
    if kept_marks and kept_marks[0][1] > limit - 1:
        start = max(0, kept_marks[0][0] - 40)
        space = text.find(" ", start, kept_marks[0][0])
        start = space + 1 if space != -1 else kept_marks[0][0]
    prefix = "…" if start > 0 else ""
    end = start + limit - len(prefix) - 1
    if end < len(text):
        space = text.rfind(" ", start, end + 1)
        end = space if space > start else end
    body = text[start:end].rstrip(" ,;:")
    suffix = "…" if start + len(body) < len(text) else ""
    shift = len(prefix) - start
    shown = tuple(
        (s + shift, e + shift) for s, e in kept_marks if s >= start and e <= start + len(body)
    )
    return Snippet(prefix + body + suffix, shown)
