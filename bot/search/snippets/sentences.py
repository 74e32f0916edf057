"""The one or two sentences of an abstract that best match a query, with the matches marked."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from math import fsum
from operator import itemgetter

from bot.search.query.analysis import Analyzer
from bot.search.snippets.words import marks, words_holding
from bot.textutil import Span, merge_marks, sentence_spans

MAX_SNIPPET_CHARS = 300
"""Longest snippet, ellipses included."""


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
    sentences: Sequence[Span] | None = None,
    plain: bool = False,
    prefixes: Sequence[str] | None = None,
    masks: Mapping[str, int] | None = None,
    word_marks: dict[str, list[Span]] | None = None,
) -> Snippet:
    """The one or two sentences of `text` that best match `terms` (weighted), matches marked.

    The optional arguments (what the index knows of `text`) make it faster, never different.
    """
    sentences = list(sentence_spans(text) if sentences is None else sentences)
    sentences = sentences or [(0, len(text))]
    wanted = {t: weights[t] for t in terms}
    if masks is None:
        masks = sentence_masks(text, sentences, analyzer.analyze, wanted)
    lo, hi = _best_window(sentences, [(wanted[t], m) for t, m in masks.items() if m])
    window = text[lo:hi]
    if not (plain and prefixes is not None):
        return _clip(window, merge_marks(marks(window, wanted, analyzer)))
    known = {} if word_marks is None else word_marks
    spans = [
        (start + s, start + e)
        for start, end in words_holding(window.lower(), prefixes).items()
        for s, e in _word_marks(window[start:end], wanted, analyzer, known)
    ]
    return _clip(window, merge_marks(spans))


def sentence_masks(
    text: str,
    sentences: Iterable[Span],
    analyze: Callable[[str], Iterable[str]],
    wanted: Mapping[str, float] | None = None,
) -> dict[str, int]:
    """Each term's sentences as bits, only the `wanted` ones if given."""
    masks: dict[str, int] = {}
    for i, (lo, hi) in enumerate(sentences):
        held = set(analyze(text[lo:hi]))
        for term in held if wanted is None else held & wanted.keys():
            masks[term] = masks.get(term, 0) | 1 << i
    return masks


def _word_marks(
    word: str, wanted: Mapping[str, float], analyzer: Analyzer, known: dict[str, list[Span]]
) -> list[Span]:
    """The spans of the wanted terms in one word, from `known` when it was met before."""
    spans = known.get(word)
    if spans is None:
        spans = known[word] = [(s, e) for t, s, e in analyzer.analyze_spans(word) if t in wanted]
    return spans


def _best_window(sentences: list[Span], held: list[tuple[float, int]]) -> Span:
    """The sentence or pair of neighbouring sentences whose matched terms weigh most.

    Ties prefer a window within `MAX_SNIPPET_CHARS`, then one sentence, then the earlier.
    """
    weights: dict[int, list[float]] = {}  # sentence -> its terms' weights
    for w, mask in held:
        while mask:
            bit = mask & -mask
            weights.setdefault(bit.bit_length() - 1, []).append(w)
            mask ^= bit
    if not weights:
        lo, hi = sentences[0]
        if len(sentences) > 1 and sentences[1][1] - lo <= MAX_SNIPPET_CHARS:
            hi = sentences[1][1]
        return lo, hi
    # fsum: exact, so the same terms weigh the same in any order (ties stay ties).
    weight = {i: fsum(weights[i]) for i in sorted(weights)}
    if len(weight) == 1:  # one sentence matches: it wins unless its terms weigh nothing
        ((i, w),) = weight.items()
        if w > 0:
            return _add_neighbour(sentences, i, weight)
    # Sentences, then pairs, in order: the first best wins, as with `max` (no two tie).
    best: tuple[float, bool, bool, int] | None = None
    chosen, single = sentences[0], -1  # the window, and its sentence if it is one
    for i, w in weight.items():
        lo, hi = sentences[i]
        rank = w, hi - lo <= MAX_SNIPPET_CHARS, True, -lo
        if best is None or rank > best:
            best, chosen, single = rank, (lo, hi), i
    # Only a pair of two matching sentences can win: a pair that fits holds a matching
    # sentence that fits too, which ranks above it on the same weight.
    for i in weight:
        if i + 1 in weight:
            lo, hi = sentences[i][0], sentences[i + 1][1]
            if hi - lo <= MAX_SNIPPET_CHARS:
                rank = _weight(held, 3 << i), True, False, -lo
                if best is None or rank > best:
                    best, chosen, single = rank, (lo, hi), -1
    if best is not None and best[0] <= 0:  # zero-weight terms: every window ties on weight
        chosen, single = _best_of_all(sentences, held, weight)
    return _add_neighbour(sentences, single, weight) if single >= 0 else chosen


def _weight(held: list[tuple[float, int]], sentences: int) -> float:
    """The summed weight of the terms in any of `sentences` (bits); `fsum`: order-independent."""
    return fsum(w for w, mask in held if mask & sentences)


def _best_of_all(
    sentences: list[Span], held: list[tuple[float, int]], weight: dict[int, float]
) -> tuple[Span, int]:
    """`_best_window`'s rank over every window, matched or not: (window, its sentence or -1)."""
    windows = [
        ((weight.get(i, 0.0), hi - lo <= MAX_SNIPPET_CHARS, True, -lo), (lo, hi), i)
        for i, (lo, hi) in enumerate(sentences)
    ]
    for i, (a, b) in enumerate(pairwise(sentences)):
        if b[1] - a[0] <= MAX_SNIPPET_CHARS:
            windows.append(((_weight(held, 3 << i), True, False, -a[0]), (a[0], b[1]), -1))
    _, window, single = max(windows, key=itemgetter(0))
    return window, single


def _add_neighbour(sentences: list[Span], i: int, weight: Mapping[int, float]) -> Span:
    """Sentence `i` with its better-matching (else the next) neighbour if the pair still fits."""
    lo, hi = sentences[i]
    after = i + 1 < len(sentences) and sentences[i + 1][1] - lo <= MAX_SNIPPET_CHARS
    before = i > 0 and hi - sentences[i - 1][0] <= MAX_SNIPPET_CHARS
    if before and (not after or weight.get(i - 1, 0.0) > weight.get(i + 1, 0.0)):
        return sentences[i - 1][0], hi
    return (lo, sentences[i + 1][1]) if after else (lo, hi)


def _clip(text: str, kept_marks: tuple[Span, ...], limit: int = MAX_SNIPPET_CHARS) -> Snippet:
    """Cut `text` to `limit` chars on word boundaries around its first marks, so a match shows."""
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
