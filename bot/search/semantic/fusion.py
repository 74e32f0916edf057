"""Fusing BM25 scores with embedding similarities, and how confident the fused answer is.

Parameters were tuned on the dev sets' tune splits (docs/decisions.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RRF_K = 60
"""Reciprocal rank fusion's k (Cormack et al., SIGIR 2009: 1 / (k + rank))."""
BM25_WEIGHT = 0.5
"""BM25's share in the fusion (the cosine's is 1)."""


LISTEN_COVERAGE = 0.6
"""BM25's first paper stays first when it holds this share of a Latin-script question's idf
weight: BM25 answers such a question well, and the model only reorders the rest."""
LISTEN_WEIGHT = 0.25
"""The model's weight against BM25's 1 below a kept leader (a blend beats BM25 alone there)."""
UNSURE_WEIGHT = 1 / BM25_WEIGHT
"""The model's weight against BM25's 1 otherwise: the `BM25_WEIGHT` blend."""
GLOSS_WEIGHT = 0.5
"""The model's weight against BM25's 1 for a Chinese question glossed into English: BM25 on
the gloss (the field's own terms) is the main voice."""


@dataclass(frozen=True, slots=True)
class Blend:
    """How one question's two rankings are fused."""

    weight: float
    """The model's weight against BM25's 1 (above 0)."""
    leader: int | None = None
    """BM25's first paper, kept first whatever the model says; None: no paper is kept."""


def blend_for(
    bm25: np.ndarray, coverage: np.ndarray, *, latin: bool, glossed: bool = False
) -> Blend:
    """How much the model's ranking counts against BM25's for one question (`coverage`: idf share).

    A leader covering a Latin-script (or glossed) question stays first; others get full help.
    """
    bm25, coverage = np.asarray(bm25), np.asarray(coverage)
    unsure = Blend(GLOSS_WEIGHT if glossed else UNSURE_WEIGHT)
    if not (latin or glossed) or not len(bm25) or not coverage.max(initial=0.0) > 0:
        return unsure
    leader = int(np.argmax(np.where(coverage > 0, bm25, -np.inf)))
    if coverage[leader] >= LISTEN_COVERAGE:
        return Blend(GLOSS_WEIGHT if glossed else LISTEN_WEIGHT, leader)
    return unsure


def fused_scores(
    bm25: np.ndarray,
    cosine: np.ndarray,
    coverage: np.ndarray,
    *,
    latin: bool,
    glossed: bool = False,
) -> np.ndarray:
    """The shipped fusion of one question's per-paper signals: `fuse` with `blend_for`."""
    blend = blend_for(bm25, coverage, latin=latin, glossed=glossed)
    return fuse(bm25, cosine, matched=np.asarray(coverage) > 0, blend=blend)


def fuse(bm25: np.ndarray, cosine: np.ndarray, *, matched: np.ndarray, blend: Blend) -> np.ndarray:
    """`rrf` with BM25's weight 1/`blend.weight`, the leader (if any) lifted above all."""
    fused = rrf(bm25, cosine, matched=matched, weight=1 / blend.weight)
    if blend.leader is not None:
        fused[blend.leader] = fused.max() + 1.0
    return fused


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each paper by descending score (ties in paper order)."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    result = np.empty(len(order), dtype=np.int64)
    result[order] = np.arange(1, len(order) + 1)
    return result


def rrf(
    bm25: np.ndarray,
    cosine: np.ndarray,
    *,
    matched: np.ndarray | None = None,
    k: float = RRF_K,
    weight: float = BM25_WEIGHT,
) -> np.ndarray:
    """Weighted reciprocal rank fusion: 1/(k + cosine rank) + `weight`/(k + BM25 rank).

    Unmatched papers get no BM25 share; BM25+ gives every paper a constant, so `matched` defaults
    to a score above the lowest.
    """
    bm25 = np.asarray(bm25, dtype=np.float64)
    if matched is None:
        matched = bm25 > bm25.min(initial=np.inf)
    fused = 1.0 / (k + ranks(cosine))
    fused[matched] += weight / (k + ranks(bm25)[matched])
    return fused


# Calibrated for multilingual-e5-small used symmetrically ("query: " on papers too) on a small
# and a large corpus; another model needs its own.
GAP_RANK = 10
"""The standout is measured against the paper in this place of the cosine order."""
STANDOUT_CUT = 1.75
"""A Latin-script question is confident when standout + coverage reaches this."""
COVERAGE_WEIGHT = 1.0
"""What the first paper's BM25 coverage (0-1) adds to the standout, so that questions in the
papers' own words are not flagged."""
STANDOUT_CUT_OTHER = 0.625
"""The cut for a question in another script, whose words BM25 seldom holds."""
STANDOUT_CUT_GLOSS = 1.0
"""The cut for a Chinese question scored through its English gloss (standout plus the gloss's
coverage). The dev sets hold few Chinese negatives: re-check it when they have more."""
COSINE_FLOOR = 0.81
"""And the first paper's cosine must reach this (between off-topic and on-topic best cosines)."""
MATCH_Z = 2.125
"""A paper matches in meaning when its cosine's z-score reaches this (`semantic_matches`)."""


def standout(cosine: np.ndarray, k: int = GAP_RANK) -> float:
    """How far the best cosine stands above the `k`-th best, in standard deviations of all.

    Unlike the best z-score, which grows with the corpus, this gap does not.
    """
    cosine = np.asarray(cosine, dtype=np.float64)
    if len(cosine) < 2:
        return 0.0
    spread = float(cosine.std())
    if spread <= 0:
        return 0.0
    k = min(k, len(cosine))
    top = np.partition(cosine, (len(cosine) - k, len(cosine) - 1))
    return float((top[-1] - top[len(cosine) - k]) / spread)


def z_scores(cosine: np.ndarray) -> np.ndarray:
    """Every paper's cosine as a z-score among all papers (all 0 when they are all equal)."""
    cosine = np.asarray(cosine, dtype=np.float64)
    spread = float(cosine.std())
    if spread <= 0:
        return np.zeros(len(cosine))
    return (cosine - float(cosine.mean())) / spread


def semantic_matches(cosine: np.ndarray) -> np.ndarray:
    """Papers that clearly match in meaning alone: the floor, and z-score `MATCH_Z`."""
    return (np.asarray(cosine) >= COSINE_FLOOR) & (z_scores(cosine) >= MATCH_Z)


@dataclass(frozen=True, slots=True)
class Verdict:
    """How well an answer's first paper matched: its margin against the cut it must reach."""

    margin: float
    cut: float

    @property
    def confident(self) -> bool:
        """Whether to present the first paper as a match rather than only the closest."""
        return self.margin >= self.cut


def verdict(
    cosine: np.ndarray, top: int, coverage: float, *, latin: bool, glossed: bool = False
) -> Verdict:
    """The margin of paper `top` and the cut it must reach for that kind of question.

    Below `COSINE_FLOOR` the margin falls short of the cut by the cosine's shortfall.
    """
    cosine = np.asarray(cosine)
    if not len(cosine):
        return Verdict(0.0, STANDOUT_CUT)
    gap = standout(cosine)
    if latin:
        margin, cut = gap + COVERAGE_WEIGHT * coverage, STANDOUT_CUT
    elif glossed:
        margin, cut = gap + COVERAGE_WEIGHT * coverage, STANDOUT_CUT_GLOSS
    else:
        margin, cut = gap, STANDOUT_CUT_OTHER
    shortfall = COSINE_FLOOR - float(cosine[top])
    if shortfall > 0:
        margin = min(margin, cut) - shortfall
    return Verdict(margin, cut)
