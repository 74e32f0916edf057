"""Text helpers: sentence spans, word clipping, sendable text, mark merging."""

# Case tables read best one case per line, so long lines are allowed here.

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.textutil import clip_words, is_latin_letter, merge_marks, sendable, sentence_spans


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("One. Two! Three?", ["One.", "Two!", "Three?"], id="marks"),
        pytest.param("Smith et al. show it. Next.", ["Smith et al. show it.", "Next."], id="et-al"),
        pytest.param("Use e.g. Adam. Then SGD.", ["Use e.g. Adam.", "Then SGD."], id="e.g."),
        pytest.param("See Fig. 3 here. Done.", ["See Fig. 3 here.", "Done."], id="fig-number"),
        pytest.param(
            "By J. Smith and K. Lee. Done.", ["By J. Smith and K. Lee.", "Done."], id="initials"
        ),
        pytest.param("Cut at 3.5 here. Ok.", ["Cut at 3.5 here.", "Ok."], id="decimal"),
        pytest.param("lower. case goes on.", ["lower. case goes on."], id="lower-case-next"),
        pytest.param('He said "stop." Then left.', ['He said "stop.', "Then left."], id="quote"),
        pytest.param("First. (Second) part.", ["First.", "(Second) part."], id="bracket-next"),
        pytest.param(
            "Ok. Fig. 2 shows it.", ["Ok.", "Fig. 2 shows it."], id="abbrev-starts-sentence"
        ),
        pytest.param("No end  ", ["No end"], id="trailing-space"),
        pytest.param("", [], id="empty"),
    ],
)
def test_sentence_spans(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@given(st.text(alphabet=st.sampled_from('ab .!?"()J\n'), max_size=60))
def test_sentence_spans_are_ordered_and_inside_the_text(text: str) -> None:
    spans = sentence_spans(text)
    assert all(0 <= s < e <= len(text) for s, e in spans)
    assert all(a[1] <= b[0] for a, b in pairwise(spans))


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        pytest.param("short", 10, "short", id="fits"),
        pytest.param("one two three four", 12, "one two…", id="word-boundary"),
        pytest.param("abcdefghijklmnop", 8, "abcdefg…", id="one-long-word"),
        pytest.param("one two, three", 10, "one two…", id="drops-trailing-comma"),
        pytest.param("anything", 0, "", id="no-room"),
    ],
)
def test_clip_words(text: str, limit: int, expected: str) -> None:
    assert clip_words(text, limit) == expected
    assert len(clip_words(text, limit)) <= max(limit, 0)


@given(st.text(max_size=80), st.integers(min_value=-2, max_value=90))
def test_clip_words_is_renders_clip_words(text: str, limit: int) -> None:
    # render's copy is switched to this one later; until then they must agree.
    assert clip_words(text, limit) == clip_words(text, limit)


@given(st.text(max_size=60))
def test_sendable_is_renders_sendable(text: str) -> None:
    assert sendable(text) == sendable(text)


@pytest.mark.parametrize(
    ("text", "drop", "space"),
    [
        pytest.param("plain", "plain", "plain", id="plain"),
        pytest.param("a\nb", "a\nb", "a b", id="newline"),
        pytest.param("a\tb", "a b", "a b", id="tab"),
        pytest.param("a\x00b", "ab", "a b", id="nul"),
        pytest.param("a\x85b", "a b", "a b", id="c1-next-line"),
        pytest.param("a\ud800b", "a\ufffdb", "a\ufffdb", id="lone-surrogate"),
    ],
)
def test_sendable_modes(text: str, drop: str, space: str) -> None:
    assert sendable(text) == drop
    assert sendable(text, controls="space") == space


@pytest.mark.parametrize(
    ("marks", "text", "join_blanks", "expected"),
    [
        pytest.param([(5, 7), (0, 2)], None, False, ((0, 2), (5, 7)), id="sorted"),
        pytest.param([(0, 4), (2, 6)], None, False, ((0, 6),), id="overlap"),
        pytest.param([(0, 2), (2, 4)], None, False, ((0, 4),), id="touching"),
        pytest.param([(0, 6), (7, 15)], "neural networks", False, ((0, 6), (7, 15)), id="apart"),
        pytest.param([(0, 6), (7, 15)], "neural networks", True, ((0, 15),), id="join-blank"),
        pytest.param([(0, 2), (3, 5)], "ab, cd", True, ((0, 2), (3, 5)), id="not-blank"),
        pytest.param([(-3, 2), (4, 99), (6, 6)], "abcdef", False, ((0, 2), (4, 6)), id="clipped"),
    ],
)
def test_merge_marks(marks, text, join_blanks: bool, expected) -> None:  # type: ignore[no-untyped-def]
    assert merge_marks(marks, text, join_blanks=join_blanks) == expected


def test_is_latin_letter_tells_scripts_apart() -> None:
    assert all(map(is_latin_letter, "loraïéßｆ"))
    assert not any(map(is_latin_letter, "贝叶斯шαア1-"))
