"""Snippets: the one or two sentences of an abstract that best match a query, matches marked.

Computed after ranking, for the hits shown only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from math import fsum

from bot.search.analysis import Analyzer
from bot.textutil import Span, merge_marks, sentence_spans

__all__ = ["MAX_SNIPPET_CHARS", "Snippet", "best_snippet", "marks"]

MAX_SNIPPET_CHARS = 300
"""Longest snippet, ellipses included."""

_CHUNK = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class Snippet:
    """One or two best-matching sentences, plain text, with matched words marked."""

    text: str
    marks: tuple[tuple[int, int], ...] = ()
    """Character spans `[start, end)` in `text` of the words that matched the query."""


def best_snippet(
    text: str, terms: Sequence[str], weights: Mapping[str, float], analyzer: Analyzer
) -> Snippet:
    """The one or two sentences of `text` that best match `terms` (weighted), matches marked."""
    sentences = sentence_spans(text) or [(0, len(text))]
    wanted = {t: weights[t] for t in terms}
    # Sentences end at whitespace, so each analyses as it does inside the whole text.
    found = {w: set(analyzer.analyze(text[w[0] : w[1]])) & wanted.keys() for w in sentences}
    pairs = [(a[0], b[1]) for a, b in pairwise(sentences) if b[1] - a[0] <= MAX_SNIPPET_CHARS]
    found.update({(a[0], b[1]): found[a] | found[b] for a, b in pairwise(sentences)})

    def weight(lo: int, hi: int) -> float:
        # fsum: exact, so the same terms weigh the same in any set order (ties stay ties).
        return fsum(wanted[t] for t in found[lo, hi])

    if any(found.values()):
        single = set(sentences)

        def rank(w: Span) -> tuple[float, bool, bool, int]:
            # Most matched weight; then a window that fits, one sentence, the earlier one.
            return weight(*w), w[1] - w[0] <= MAX_SNIPPET_CHARS, w in single, -w[0]

        windows = sentences + pairs
        # Only windows with a match can beat one with positive weight: rank just those.
        lo, hi = max((w for w in windows if found[w]), key=rank)
        if weight(lo, hi) <= 0:  # zero-weight terms: every window ties on weight
            lo, hi = max(windows, key=rank)
        if (lo, hi) in single:
            lo, hi = _add_neighbour(sentences, (lo, hi), weight)
    else:
        lo, hi = sentences[0]
        if len(sentences) > 1 and sentences[1][1] - lo <= MAX_SNIPPET_CHARS:
            hi = sentences[1][1]
    window = text[lo:hi]
    return _clip(window, merge_marks(marks(window, wanted, analyzer)), MAX_SNIPPET_CHARS)


def marks(text: str, wanted: Mapping[str, float], analyzer: Analyzer) -> list[Span]:
    """Spans of the `wanted` terms in `text`.

    Spans need the slow, uncached `analyze_spans`; ASCII text analyses word by word
    (whitespace-separated chunks) exactly as whole, so only the chunks whose cached terms
    include a wanted one are analysed for spans.
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


def _add_neighbour(
    sentences: list[Span], chosen: Span, weight: Callable[[int, int], float]
) -> Span:
    """Add the better-matching (else the next) neighbour sentence if the pair still fits."""
    i = sentences.index(chosen)
    options = []
    if i + 1 < len(sentences):
        options.append((chosen[0], sentences[i + 1][1], weight(*sentences[i + 1]), 1))
    if i > 0:
        options.append((sentences[i - 1][0], chosen[1], weight(*sentences[i - 1]), 0))
    fitting = [o for o in options if o[1] - o[0] <= MAX_SNIPPET_CHARS]
    if not fitting:
        return chosen
    lo, hi, _, _ = max(fitting, key=lambda o: (o[2], o[3]))
    return lo, hi


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
