"""bot.search.semantic.fusion: rank fusion and the confidence of the fused top paper."""

from __future__ import annotations

import numpy as np
import pytest

from bot.search.semantic.fusion import (
    COSINE_FLOOR,
    COVERAGE_WEIGHT,
    GLOSS_WEIGHT,
    LISTEN_COVERAGE,
    LISTEN_WEIGHT,
    STANDOUT_CUT,
    STANDOUT_CUT_GLOSS,
    STANDOUT_CUT_OTHER,
    UNSURE_WEIGHT,
    Blend,
    blend_for,
    fuse,
    fused_scores,
    ranks,
    rrf,
    standout,
    verdict,
)


def is_confident(cosine, top, coverage, *, latin, glossed=False) -> bool:
    """The shipped rule's flag: its margin reaches its cut."""
    return verdict(cosine, top, coverage, latin=latin, glossed=glossed).confident


def test_ranks_are_one_based_by_descending_score() -> None:
    assert ranks(np.array([0.1, 0.9, 0.5])).tolist() == [3, 1, 2]


def test_rrf_adds_reciprocal_ranks() -> None:
    bm25 = np.array([3.0, 2.0, 1.0])
    cosine = np.array([0.1, 0.9, 0.5])
    fused = rrf(bm25, cosine, matched=np.array([True, True, True]), k=10, weight=1.0)
    assert np.allclose(fused, [1 / 11 + 1 / 13, 1 / 12 + 1 / 11, 1 / 13 + 1 / 12])
    assert int(np.argmax(fused)) == 1  # second by both beats first-and-last


def test_rrf_gives_no_bm25_share_to_papers_without_a_query_term() -> None:
    bm25 = np.array([0.5, 0.5, 2.0])  # BM25+: unmatched papers share the lowest score
    cosine = np.array([0.9, 0.1, 0.2])
    fused = rrf(bm25, cosine, k=10, weight=1.0)
    assert np.allclose(fused, [1 / 11, 1 / 13, 1 / 11 + 1 / 12])


def test_rrf_weight_scales_only_the_bm25_share() -> None:
    bm25 = np.array([3.0, 2.0, 1.0])
    cosine = np.array([0.1, 0.9, 0.5])
    matched = np.array([True, True, True])
    fused = rrf(bm25, cosine, matched=matched, k=10, weight=0.5)
    assert np.allclose(fused, [1 / 13 + 0.5 / 11, 1 / 11 + 0.5 / 12, 1 / 12 + 0.5 / 13])


def test_default_rrf_lets_a_paper_first_in_meaning_beat_one_first_in_words() -> None:
    # Paper 0 is BM25's first and the cosine's third; paper 1 the reverse: with equal
    # shares they tie, with BM25's tuned smaller share meaning wins.
    bm25 = np.array([3.0, 1.0, 2.0])
    cosine = np.array([0.1, 0.9, 0.5])
    matched = np.array([True, True, True])
    assert np.isclose(*rrf(bm25, cosine, matched=matched, weight=1.0)[:2])
    assert int(np.argmax(rrf(bm25, cosine, matched=matched))) == 1


def test_rrf_of_a_question_with_no_terms_is_the_embedding_order() -> None:
    cosine = np.array([0.2, 0.8, 0.5])
    assert np.argsort(-rrf(np.zeros(3), cosine)).tolist() == [1, 2, 0]


def test_a_paper_that_stands_out_is_confident_and_a_flat_field_is_not() -> None:
    rng = np.random.default_rng(0)
    flat = 0.82 + 0.01 * rng.standard_normal(50)
    clear = flat.copy()
    clear[7] = 0.95
    assert standout(clear) > 5
    assert is_confident(clear, 7, 0.0, latin=True)
    assert not is_confident(flat, int(np.argmax(flat)), 0.0, latin=True)


def test_standout_does_not_grow_with_the_corpus_as_the_best_z_score_does() -> None:
    # An off-topic question: every paper an equal draw. Its best z-score grows with the
    # number of papers (the maximum of more draws); the gap to the tenth best does not.
    rng = np.random.default_rng(3)
    small = [standout(rng.standard_normal(60)) for _ in range(200)]
    large = [standout(rng.standard_normal(6000)) for _ in range(200)]
    assert np.median(large) <= np.median(small)
    assert not any(is_confident(0.9 + 0.01 * rng.standard_normal(6000), 0, 0.0, latin=True)
                   for _ in range(20))  # fmt: skip


def test_standout_is_measured_against_the_kth_best_paper() -> None:
    cosine = np.array([0.9, 0.5, 0.5, 0.1])
    spread = cosine.std()
    assert np.isclose(standout(cosine, k=2), 0.4 / spread)
    assert np.isclose(standout(cosine, k=4), 0.8 / spread)
    assert np.isclose(standout(cosine, k=10), 0.8 / spread)  # fewer papers than k: the last
    assert standout(np.full(5, 0.8)) == 0.0
    assert standout(np.array([0.9])) == 0.0


def test_cosine_floor_flags_a_weak_best_match() -> None:
    cosine = np.full(20, 0.70)
    cosine[3] = 0.79  # stands out, but nothing is really similar
    assert cosine[3] < COSINE_FLOOR and not is_confident(cosine, 3, 0.0, latin=True)
    assert is_confident(cosine + 0.1, 3, 0.0, latin=True)  # the same standout, above it


def test_a_question_in_the_papers_words_needs_less_standout() -> None:
    rng = np.random.default_rng(1)
    cosine = 0.84 + 0.01 * rng.standard_normal(50)
    top = int(np.argmax(cosine))
    gap = standout(cosine)
    assert 0.5 < gap < STANDOUT_CUT  # stands out a little
    assert not is_confident(cosine, top, 0.0, latin=True)
    assert is_confident(cosine, top, 1.0, latin=True)  # BM25 holds all its words
    assert not is_confident(cosine - 0.1, top, 1.0, latin=True)  # but never below the floor


def test_another_script_is_judged_on_the_model_alone() -> None:
    cosine = np.full(50, 0.84)
    cosine[:10] = 0.85  # ten papers alike at the top
    tied, clear = cosine.copy(), cosine.copy()
    tied[3], clear[3] = 0.8505, 0.90  # one a hair above them, or well above
    assert standout(tied) < STANDOUT_CUT_OTHER < standout(clear)
    assert is_confident(clear, 3, 0.0, latin=False)
    assert not is_confident(tied, 3, 1.0, latin=False)  # BM25's coverage does not count


def test_a_glossed_chinese_question_counts_its_glosss_coverage() -> None:
    # A standout under the other scripts' cut: a glossed question whose top paper holds
    # enough of the gloss's weight is confident; unglossed, or holding too little, it is not.
    cosine = np.full(50, 0.84)
    cosine[:10] = 0.85  # ten papers alike at the top,
    cosine[top := 3] = 0.8505  # one a hair above them
    gap = standout(cosine)
    assert 0 < gap < STANDOUT_CUT_OTHER < STANDOUT_CUT_GLOSS
    enough = (STANDOUT_CUT_GLOSS - gap) / COVERAGE_WEIGHT + 0.01
    assert is_confident(cosine, top, enough, latin=False, glossed=True)
    assert not is_confident(cosine, top, enough - 0.02, latin=False, glossed=True)
    assert not is_confident(cosine, top, enough, latin=False)  # not glossed: standout alone
    assert not is_confident(cosine - 0.1, top, 1.0, latin=False, glossed=True)  # the floor
    # Its own cut, not the Latin one: the same coverage is not enough for a Latin question.
    assert not is_confident(cosine, top, enough, latin=True)


def test_a_confident_english_question_keeps_bm25s_leader_first() -> None:
    # BM25's leader holds all of the question's weight: the model, which prefers paper 2,
    # cannot move it, and only reorders the rest as the minor voice.
    bm25 = np.array([3.0, 2.0, 1.0, 0.5])
    coverage = np.array([1.0, 0.5, 0.5, 0.0])
    cosine = np.array([0.1, 0.2, 0.9, 0.8])
    blend = blend_for(bm25, coverage, latin=True)
    assert blend == Blend(LISTEN_WEIGHT, leader=0)
    fused = fuse(bm25, cosine, matched=coverage > 0, blend=blend)
    assert np.argsort(-fused).tolist() == [0, 1, 2, 3]
    assert fused_scores(bm25, cosine, coverage, latin=True).tolist() == fused.tolist()


def test_the_kept_leader_beats_a_paper_the_model_and_bm25_both_rank_second() -> None:
    # Paper 1 is BM25's second and the model's first: the 50/50 blend puts it first, the
    # kept leader does not move.
    bm25 = np.array([3.0, 2.9, 1.0])
    coverage = np.array([0.9, 0.9, 0.3])
    cosine = np.array([0.1, 0.9, 0.5])
    assert int(np.argmax(rrf(bm25, cosine, matched=coverage > 0))) == 1
    assert int(np.argmax(fused_scores(bm25, cosine, coverage, latin=True))) == 0


def test_an_english_question_bm25_covers_poorly_gets_the_models_help() -> None:
    bm25 = np.array([3.0, 2.0, 1.0])
    coverage = np.array([LISTEN_COVERAGE - 0.1, 0.2, 0.2])
    cosine = np.array([0.1, 0.2, 0.9])
    blend = blend_for(bm25, coverage, latin=True)
    assert blend == Blend(UNSURE_WEIGHT) and UNSURE_WEIGHT > LISTEN_WEIGHT
    fused = fuse(bm25, cosine, matched=coverage > 0, blend=blend)
    assert int(np.argmax(fused)) == 2  # first in meaning, third in words: the blend's pick


def test_a_chinese_question_uses_the_model_even_when_bm25_covers_it() -> None:
    bm25 = np.array([3.0, 2.0, 1.0])
    coverage = np.array([1.0, 0.5, 0.5])  # e.g. its English terms
    assert blend_for(bm25, coverage, latin=False) == Blend(UNSURE_WEIGHT)
    assert blend_for(bm25, coverage, latin=True) == Blend(LISTEN_WEIGHT, leader=0)


def test_a_glossed_chinese_question_is_led_by_bm25_of_its_gloss() -> None:
    bm25 = np.array([3.0, 2.0, 1.0])
    cosine = np.array([0.1, 0.2, 0.9])
    covered = np.array([1.0, 0.5, 0.5])  # the leader holds the whole gloss: it stays first
    assert blend_for(bm25, covered, latin=False, glossed=True) == Blend(GLOSS_WEIGHT, leader=0)
    poorly = np.array([LISTEN_COVERAGE - 0.1, 0.5, 0.5])  # no leader kept, BM25 the main voice
    blend = blend_for(bm25, poorly, latin=False, glossed=True)
    assert blend == Blend(GLOSS_WEIGHT) and GLOSS_WEIGHT < UNSURE_WEIGHT
    fused = fuse(bm25, cosine, matched=poorly > 0, blend=blend)
    assert int(np.argmax(fused)) == 0  # BM25's first paper
    assert int(np.argmax(fused_scores(bm25, cosine, poorly, latin=False))) == 2  # unglossed


def test_no_query_term_matched_means_the_model_decides() -> None:
    assert blend_for(np.ones(3), np.zeros(3), latin=True) == Blend(UNSURE_WEIGHT)
    assert blend_for(np.zeros(0), np.zeros(0), latin=True) == Blend(UNSURE_WEIGHT)


def test_the_leader_is_bm25s_first_paper_not_the_best_covered_one() -> None:
    # Paper 1 holds every word once, paper 0 the rarest many times: BM25 prefers paper 0,
    # which holds too little of the question to be kept first.
    bm25 = np.array([5.0, 4.0, 1.0])
    coverage = np.array([0.5, 1.0, 0.2])
    assert blend_for(bm25, coverage, latin=True) == Blend(UNSURE_WEIGHT)


def test_fuse_with_a_weight_ranks_as_rrf_with_the_inverse_bm25_weight() -> None:
    rng = np.random.default_rng(0)
    bm25, cosine = rng.random(50), rng.random(50)
    matched = bm25 > 0.3
    for weight in (0.5, 2.0, 3.0):
        fused = fuse(bm25, cosine, matched=matched, blend=Blend(weight))
        old = rrf(bm25, cosine, matched=matched, weight=1 / weight)
        assert (
            np.argsort(-fused, kind="stable").tolist() == np.argsort(-old, kind="stable").tolist()
        )


def test_below_the_floor_the_margin_falls_short_of_the_cut_by_the_shortfall() -> None:
    rng = np.random.default_rng(3)
    cosine = 0.7 + 0.01 * rng.standard_normal(50)
    cosine[2] = 0.78  # stands far out, but under the floor
    judged = verdict(cosine, 2, 1.0, latin=True)
    assert judged.cut == STANDOUT_CUT and not judged.confident
    assert judged.margin == pytest.approx(STANDOUT_CUT - (COSINE_FLOOR - 0.78))
