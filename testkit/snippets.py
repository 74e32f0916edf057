"""The snippet rule written out the slow, plain way, and fuzzed abstract text to test it on."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from math import fsum

from hypothesis import strategies as st

from bot.search.query.analysis import EnglishAnalyzer
from bot.search.snippets import MAX_SNIPPET_CHARS, Snippet
from bot.search.snippets.sentences import _clip
from bot.textutil import Span, merge_marks, sentence_spans

ENGLISH = EnglishAnalyzer()
WORDS = st.sampled_from(
    ["Graph", "graphs,", "networks.", "(GNNs)", "state-of-the-art", "e.g.", "al.", "J.", "?",
     '."', "models.)", "—", "naïve", "ﬁne-tuning", "http://x.org/graph", "\\emph{graph}", "LLMs",
     "Attention!", "data", "x", "\u00a0", "\n", "  "]
)  # fmt: skip
SNIPPET_TEXT = st.lists(st.one_of(WORDS, st.text(max_size=12)), max_size=60).map(" ".join)


def reference_snippet(
    text: str, terms: Sequence[str], weights: Mapping[str, float], analyzer: EnglishAnalyzer
) -> Snippet:
    """The snippet rule, straightforwardly: no masks, no caches, no skipped words.

    Every sentence is analysed whole and every window (a sentence, or two neighbours that fit)
    ranked by its matched terms' weight, then a window that fits, a single sentence, the
    earlier one; a chosen sentence gets its better-matching neighbour if the pair fits; the
    matches are marked from `analyze_spans` of the window.
    """
    wanted = {t: weights[t] for t in terms}
    sentences = sentence_spans(text) or [(0, len(text))]
    found: dict[Span, set[str]] = {
        (lo, hi): set(analyzer.analyze(text[lo:hi])) & wanted.keys() for lo, hi in sentences
    }
    for a, b in pairwise(sentences):
        found[a[0], b[1]] = found[a] | found[b]

    def weight(window: Span) -> float:
        return fsum(wanted[t] for t in found[window])

    def fits(window: Span) -> bool:
        return window[1] - window[0] <= MAX_SNIPPET_CHARS

    def rank(window: Span) -> tuple[float, bool, bool, int]:
        return weight(window), fits(window), window in sentences, -window[0]

    windows = sentences + [(a[0], b[1]) for a, b in pairwise(sentences) if fits((a[0], b[1]))]
    if not any(found.values()):
        window = sentences[0]
        if len(sentences) > 1 and fits((window[0], sentences[1][1])):
            window = window[0], sentences[1][1]
    else:
        window = max((w for w in windows if found[w]), key=rank)
        if weight(window) <= 0:
            window = max(windows, key=rank)
        if window in sentences:
            window = _with_neighbour(window, sentences, weight, fits)
    lo, hi = window
    shown = [(s, e) for t, s, e in analyzer.analyze_spans(text[lo:hi]) if t in wanted]
    return _clip(text[lo:hi], merge_marks(shown), MAX_SNIPPET_CHARS)


def _with_neighbour(
    window: Span,
    sentences: list[Span],
    weight: Callable[[Span], float],
    fits: Callable[[Span], bool],
) -> Span:
    """A chosen sentence with its better-matching neighbour (the next on a tie), if it fits."""
    i = sentences.index(window)
    before = (sentences[i - 1][0], window[1]) if i > 0 else None
    after = (window[0], sentences[i + 1][1]) if i + 1 < len(sentences) else None
    options = [
        (weight(sentences[j]), is_after, pair)
        for j, is_after, pair in ((i - 1, False, before), (i + 1, True, after))
        if pair is not None and fits(pair)
    ]
    return max(options)[2] if options else window
