"""Spelling: variants, edit distance by length, real words kept unless in a phrase."""

from __future__ import annotations

import random
import string

import pytest

from bot.search.query.spelling import (
    Correction,
    Lexicon,
    correct_query,
    english_words,
    lexicon,
    max_edits,
    papers_lexicon,
    spelling_variants,
)

CORPUS = [
    "Multimodal models describe epileptic seizure semiology in videos.",
    "Shapley values attribute importance; computing Shapley values is costly.",
    "Batch normalization slows dynamic sparse training of networks.",
    "Reinforcement learning from human feedback aligns language models.",
    "A color and geometry fusion for anomaly detection; adversarial defense for CLIP.",
    "Protein structures from cryo-EM density maps; the selection of samples.",
]


@pytest.fixture(scope="module")
def words():  # type: ignore[no-untyped-def]
    return lexicon(CORPUS)


@pytest.fixture(scope="module")
def is_word():  # type: ignore[no-untyped-def]
    return english_words()


def test_lexicon_counts_words_and_pairs(words) -> None:  # type: ignore[no-untyped-def]
    assert words.words["shapley"] == 2
    assert words.pairs["shapley", "values"] == 2
    assert words.pairs["values", "attribute"] == 1


@pytest.mark.parametrize(
    ("word", "edits"),
    [("cold", 0), ("atack", 1), ("siezure", 1), ("lerning", 1), ("retreival", 2)],
)
def test_allowed_edits_grow_with_length(word: str, edits: int) -> None:
    assert max_edits(word) == edits


@pytest.mark.parametrize(
    ("word", "variant"),
    [
        ("normalisation", "normalization"),
        ("colour", "color"),
        ("defence", "defense"),
        ("behaviour", "behavior"),
        ("optimise", "optimize"),
        ("color", "colour"),
    ],
)
def test_british_and_american_variants(word: str, variant: str) -> None:
    assert variant in spelling_variants(word)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        pytest.param("siezure", "seizure", id="swapped-letters"),
        pytest.param("adverserial", "adversarial", id="vowel"),
        pytest.param("lerning", "learning", id="missing-letter"),
        pytest.param("reinforcment", "reinforcement", id="long-word"),
        pytest.param("normalisation", "normalization", id="british"),
        pytest.param("colour", "color", id="british-short"),
    ],
)
def test_closest_word_finds_the_meant_corpus_word(words, typo: str, meant: str) -> None:  # type: ignore[no-untyped-def]
    assert words.closest(typo) == meant


def test_short_or_far_words_have_no_match(words) -> None:  # type: ignore[no-untyped-def]
    assert words.closest("cold") is None  # 1 edit from "color", but too short
    assert words.closest("pizza") is None
    assert words.closest("癫痫发作") is None


def test_typos_in_a_query_are_corrected_and_listed(words, is_word) -> None:  # type: ignore[no-untyped-def]
    result = correct_query("Siezure videos and reinforcment lerning", words, is_word=is_word)
    assert result.text == "seizure videos and reinforcement learning"
    assert result.changes == (
        ("Siezure", "seizure"),
        ("reinforcment", "reinforcement"),
        ("lerning", "learning"),
    )


def test_real_word_is_corrected_only_into_a_corpus_phrase(words, is_word) -> None:  # type: ignore[no-untyped-def]
    assert correct_query("Shapely values", words, is_word=is_word).text == "shapley values"
    assert correct_query("a shapely statue", words, is_word=is_word).changes == ()
    # "electron" is one of the corpus's "selection" by 2 edits, but an English word.
    assert correct_query("electron microscopy", words, is_word=is_word).changes == ()


def test_variant_is_used_even_for_an_english_word(words, is_word) -> None:  # type: ignore[no-untyped-def]
    assert correct_query("colour", words, is_word=is_word).text == "color"


def test_known_and_same_words_are_not_corrections(words) -> None:  # type: ignore[no-untyped-def]
    assert correct_query("seizures", words, same=lambda a, b: a.rstrip("s") == b).changes == ()
    assert correct_query("trainings", words, known=lambda w: True).changes == ()


def test_unchanged_query_keeps_its_text(words, is_word) -> None:  # type: ignore[no-untyped-def]
    query = "Batch normalization, sparse training! 贝叶斯优化"
    assert correct_query(query, words, is_word=is_word) == Correction(query)


def test_lexicon_pairs_stay_inside_one_text() -> None:
    texts = ["we use shapley", "values here", "", "shapley values"] * 600  # several chunks
    pairs = lexicon(texts).pairs
    assert pairs["shapley", "values"] == 600
    assert pairs["values", "here"] == 600
    assert pairs["here", "shapley"] == 0 and pairs["shapley", "we"] == 0
    assert pairs["unknown", "values"] == 0


def test_closest_is_the_nearest_of_every_corpus_word() -> None:
    """Comparing only words of a near length and letters finds what comparing all does."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    from testkit.devset import load_seed_papers

    lexicon_ = papers_lexicon(load_seed_papers())
    counts = lexicon_.words

    def every_word(word: str) -> str | None:
        limit = max_edits(word)
        found = process.extract(
            word, counts.keys(), scorer=OSA.distance, score_cutoff=limit, limit=None
        )
        best = min((d for _, d, _ in found), default=None)
        near = [w for w, d, _ in found if d == best]
        return max(near, key=lambda w: (counts[w], w)) if near else None

    rng = random.Random(7)
    typos = []
    for word in rng.sample(sorted(w for w in counts if len(w) > 4), 400):
        at = rng.randrange(len(word))
        letter = rng.choice(string.ascii_lowercase)
        typos += [word[:at] + letter + word[at + 1 :], word[:at] + word[at + 1 :]]
        typos.append(word[:at] + word[at + 1 : at + 2] + word[at] + word[at + 2 :])
    typos += ["".join(rng.choices("bcdfghkmnpqvwxz", k=rng.randrange(5, 12))) for _ in range(50)]
    typos = [t for t in typos if t not in counts and not spelling_variants(t)]
    assert sum(every_word(t) is not None for t in typos) > len(typos) // 2
    assert [lexicon_.closest(t) for t in typos] == [every_word(t) for t in typos]


def test_each_distinct_unknown_word_is_looked_up_once(
    words, is_word, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    looked_up: list[str] = []
    closest = Lexicon.closest

    def counting(self: Lexicon, word: str) -> str | None:
        looked_up.append(word)
        return closest(self, word)

    monkeypatch.setattr(Lexicon, "closest", counting)
    result = correct_query("lerning " * 50 + "siezure Siezure", words, is_word=is_word)
    assert result.text == "learning " * 50 + "seizure seizure"
    assert sorted(looked_up) == ["lerning", "siezure"]
