"""experiments/signals.py: the answer-time signals only the confidence-tuning rounds used.

Moved from tests/test_fusion.py and tests/test_hybrid.py with the functions (issue 18).
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.previous_rules import confidence
from bot.corpus import Paper
from bot.search import HybridRetriever, Index
from bot.search.semantic.fusion import RRF_K
from experiments.signals import (
    FEATURE_NAMES,
    RANK_CAP,
    answer_features,
    confidence_features,
    rarest_known,
    top_agreement,
    unknown_latin_share,
    weighted,
)
from testkit.devset import load_seed_papers

STOPPING = "cost-aware stopping rule"
CHINESE_STOPPING = "贝叶斯优化 什么时候停止 考虑评估成本"


def test_weighted_mixes_min_max_scaled_scores() -> None:
    bm25 = np.array([0.0, 10.0, 5.0])
    cosine = np.array([0.8, 0.7, 0.9])
    assert np.allclose(weighted(bm25, cosine, weight=0.5), [0.25, 0.5, 0.75])
    assert np.allclose(weighted(np.ones(3), np.ones(3), weight=0.5), 0)


def test_confidence_features_describe_the_top_paper() -> None:
    cosine = np.array([0.80, 0.90, 0.80, 0.80])
    fused = np.array([0.010, 0.030, 0.020, 0.005])
    features = dict(zip(FEATURE_NAMES, confidence_features(cosine, fused, 1, 0.5, 3), strict=True))
    assert features["cosine"] == 0.90
    assert np.isclose(features["z"], confidence(cosine, 1, 0.0))
    assert features["coverage"] == 0.5
    assert np.isclose(features["log_bm25_rank"], np.log(3))
    assert np.isclose(features["fused_margin"], 0.010 * RRF_K)
    no_word = confidence_features(cosine, fused, 1, 0.0, None)
    far = confidence_features(cosine, fused, 1, 0.0, 10_000)
    assert no_word[3] == far[3] == np.log(RANK_CAP)  # capped: independent of corpus size


def test_confidence_features_measure_cosine_gaps_and_agreement() -> None:
    cosine = np.linspace(0.90, 0.79, 12)  # paper 0 best, then 1, 2, ...
    fused = np.linspace(0.03, 0.01, 12)
    bm25 = np.array([1.0, 0.5, 5.0, 4.0] + [0.5] * 8)  # 0.5: BM25+'s "no query word"
    row = confidence_features(cosine, fused, 0, 0.5, 3, bm25=bm25, unknown_latin=0.25)
    features = dict(zip(FEATURE_NAMES, row, strict=True))
    assert np.isclose(features["cos_gap5"], cosine[0] - cosine[4])
    assert np.isclose(features["cos_gap10"], cosine[0] - cosine[9])
    assert features["top3_agreement"] == 2  # BM25: 2, 3, 0; cosine: 0, 1, 2; both: 0 and 2
    assert features["unknown_latin"] == 0.25
    assert confidence_features(cosine, fused, 0, 0.5, 3)[FEATURE_NAMES.index("top3_agreement")] == 0


def test_top_agreement_counts_only_papers_bm25_matched() -> None:
    cosine = np.array([0.9, 0.8, 0.7, 0.1, 0.0])
    assert top_agreement(cosine, np.array([3.0, 2.0, 1.0, 0.0, 0.0])) == 3
    assert top_agreement(cosine, np.array([0.0, 0.0, 0.0, 2.0, 1.0])) == 0
    # Only paper 0 matched a word: ties at the minimum are not BM25's picks.
    assert top_agreement(cosine, np.array([2.0, 1.0, 1.0, 1.0, 1.0])) == 1


def test_unknown_latin_share_counts_unknown_latin_terms_only() -> None:
    weights = {"specul": 4.0, "decod": 1.0, "贝叶斯优化": 4.0, "naïv": 1.0}
    known = {"decod"}.__contains__
    assert unknown_latin_share(weights, known) == (4.0 + 1.0) / 10.0
    assert unknown_latin_share(weights, lambda t: True) == 0.0
    assert unknown_latin_share({}, known) == 0.0


def test_rarest_known_picks_the_most_specific_known_terms() -> None:
    weights = {"model": 0.5, "merg": 3.0, "specul": 4.7, "weight": 1.0}
    assert rarest_known(weights, lambda t: t != "specul") == ["merg", "weight"]
    assert rarest_known(weights, lambda t: False) == []


class _PointsAt:
    """An embedder whose every question vector is one paper's unit vector.

    The term signals under test come from BM25; only the fused top paper depends on the
    cosine, so pointing it at the paper the question is about stands in for the model.
    """

    def __init__(self, row: int, count: int) -> None:
        self._vector = np.eye(count, dtype=np.float32)[row]

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("papers are attached, not embedded")


@pytest.fixture(scope="module")
def hybrid() -> HybridRetriever:
    """Fourteen seed papers, the stopping paper among them, with one-hot paper vectors."""
    seeds = load_seed_papers()
    papers: list[Paper] = list(
        dict.fromkeys([*seeds[:12], *[p for p in seeds if STOPPING in p.abstract][:1]])
    )
    row = next(i for i, p in enumerate(papers) if STOPPING in p.abstract)
    retriever = HybridRetriever(Index.build(papers), _PointsAt(row, len(papers)))
    retriever.attach_vectors(np.eye(len(papers), dtype=np.float32))
    return retriever


def test_answer_features_weigh_unknown_latin_words_not_chinese(hybrid: HybridRetriever) -> None:
    unknown = FEATURE_NAMES.index("unknown_latin")
    chinese = answer_features(hybrid, CHINESE_STOPPING)
    english = answer_features(hybrid, "cost-aware stopping rule for zorblaxian quuxification")
    assert chinese is not None and english is not None
    assert chinese[unknown] == 0.0  # its unknown terms are CJK phrases
    assert 0.0 < english[unknown] < 1.0
    # The stopping paper holds the question's most specific known words.
    assert english[FEATURE_NAMES.index("rare_coverage")] == 1.0


def test_answer_features_are_none_before_the_vectors(hybrid: HybridRetriever) -> None:
    fresh = HybridRetriever(hybrid.index, hybrid.embedder)
    assert answer_features(fresh, "cost-aware stopping rule") is None
    assert answer_features(hybrid, "the of and") is None  # no query term: BM25 alone
