"""Fusing BM25 scores with embedding similarities (the shipped rule), and how confident it is.

Pure numpy over one query's per-paper score vectors; parameters were chosen on the dev
sets' tune splits only (experiments/), never on the held-out ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RRF_K = 60
"""Reciprocal rank fusion's k (Cormack et al., SIGIR 2009: 1 / (k + rank))."""
BM25_WEIGHT = 0.5
"""BM25's share in the fusion (the cosine's is 1): tune sweep 0.3-1.0 (with paper vectors
embedded symmetrically), where 0.5 ranked own-words and Chinese questions' papers first
most often without losing a keyword question's first place (0.3 lost one)."""


LISTEN_COVERAGE = 0.6
"""When BM25's first paper holds at least this share of a Latin-script question's idf weight,
BM25 answers it well: its leader stays first and the model is the minor voice below it
(`LISTEN_WEIGHT`). Issue 20, round 2 (experiments/fusion_weights.py), chosen on the tune
splits of both dev sets and the odd-numbered Cranfield queries: 0.6 with the leader kept
first lost no BM25 recall@1 on English summary, title, keyword, question and typo questions
and gained Cranfield nDCG@10 (0.7-0.8 gained less)."""
LISTEN_WEIGHT = 0.25
"""The model's weight against BM25's 1 below a kept leader (tune: 0.25 and 0.5 alike, 0 --
BM25's whole order, round 1 -- lost Cranfield nDCG@10 to the blend on long questions)."""
UNSURE_WEIGHT = 1 / BM25_WEIGHT
"""The model's weight against BM25's 1 otherwise: the 50/50 blend (tune: lower weights lost
own-words recall@3; 3 gained otherlang recall@3 and lost an own-words recall@1, a tie)."""
GLOSS_WEIGHT = 0.5
"""The model's weight against BM25's 1 for a Chinese question glossed into English, whose BM25
leader, if it covers the gloss as `LISTEN_COVERAGE` asks, stays first. Chosen on the tune
splits once the gloss had the field's terms (experiments/ml_terms.py): Chinese recall@1 /
@3 0.818 / 0.909 on both sets against 0.727 / 0.818-0.909 with `UNSURE_WEIGHT`, the weight
it had when CC-CEDICT's everyday senses made the gloss a weak signal; no flag moved."""


@dataclass(frozen=True, slots=True)
class Blend:
    """How one question's two rankings are fused."""

    weight: float
    """The model's weight against BM25's 1."""
    leader: int | None = None
    """BM25's first paper, kept first whatever the model says; None: no paper is kept."""


def blend_for(
    bm25: np.ndarray, coverage: np.ndarray, *, latin: bool, glossed: bool = False
) -> Blend:
    """How much the model's ranking counts against BM25's for one question.

    A Latin-script question whose BM25 leader holds most of its idf weight (`coverage`, per
    paper) is one BM25 answers well: the leader stays first and the model only reorders the
    rest a little. A Chinese question scored on its English gloss (`glossed`) keeps a leader
    that covers the gloss so too, and BM25 is its main voice (`GLOSS_WEIGHT`). A question in
    another script, or one no paper covers well, gets the model's full help.
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


def fuse(
    bm25: np.ndarray,
    cosine: np.ndarray,
    *,
    matched: np.ndarray,
    blend: Blend,
    k: float = RRF_K,
) -> np.ndarray:
    """1/(k + BM25 rank) for papers with a query term + weight/(k + cosine rank), the leader
    (if any) lifted above every other paper.

    The same ranking as `rrf(..., weight=1/weight)` for weight > 0; at weight 0, BM25's order,
    then the papers without a query term by meaning (a vanishing cosine share breaks ties).
    """
    if blend.weight > 0:
        fused = rrf(bm25, cosine, matched=matched, k=k, weight=1 / blend.weight)
    else:
        fused = np.zeros(len(cosine)) + 1e-9 / (k + ranks(cosine))
        fused[matched] += 1.0 / (k + ranks(bm25)[matched])
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

    A paper with no query term (`matched` False) gets no BM25 share.

    `matched` defaults to a BM25 score above the lowest one: BM25+ gives every paper a
    constant per query term, so "no match" is the minimum, not zero.
    """
    bm25 = np.asarray(bm25, dtype=np.float64)
    if matched is None:
        matched = bm25 > bm25.min(initial=np.inf)
    fused = 1.0 / (k + ranks(cosine))
    fused[matched] += weight / (k + ranks(bm25)[matched])
    return fused


# Calibrated for multilingual-e5-small used symmetrically ("query: " on papers too) on the
# tune splits of the seed dev set and the paperlists dev set together (57 and 3,017 papers;
# experiments/confidence_calibration.py); another model needs its own. How each round chose
# the rule and constants: experiments/NOTES.md.
GAP_RANK = 10
"""The standout is measured against the paper in this place of the cosine order."""
STANDOUT_CUT = 1.75
"""A Latin-script question is confident when standout + coverage reaches this (tune, both
corpora: the cut at which no more than 5% of the questions whose first paper was right get
flagged; 1.5-2.0 trade on-topic for off-topic flags, experiments/NOTES.md)."""
COVERAGE_WEIGHT = 1.0
"""What the first paper's BM25 coverage (0-1) adds to the standout for a Latin question
(tune: 0.5-1.0 the same; 0 loses questions in the papers' own words)."""
STANDOUT_CUT_OTHER = 0.625
"""The cut for a question in another script, whose words BM25 seldom holds (tune)."""
STANDOUT_CUT_GLOSS = 1.0
"""A Chinese question scored through its English gloss (`gloss.Glossary`) is confident when
standout + `COVERAGE_WEIGHT` x the gloss's coverage reaches this (issue 20,
experiments/chinese_gloss.py: on the tune splits' Chinese questions the largest cut, in
steps of 0.25, that flagged no more than 5% of the right first papers on each set; it flagged
4 of 8 off-topic / near-miss questions against `STANDOUT_CUT_OTHER`'s 3, and on held-out 6 of
8 against 4, with 2 of 27 right first papers flagged). Only 8 negatives a split: a
direction, not a calibrated cut; to re-check when the dev sets have more."""
COSINE_FLOOR = 0.81
"""And the first paper's cosine reaches this (tune: off-topic questions' best cosines over
the 57 seed papers reach 0.80, on-topic ones' start at 0.815)."""
MATCH_Z = 2.125
"""`semantic_matches`: a paper counts as a match in meaning when its cosine's z-score among
all papers reaches this (and the floor); sizes the pages of a confident answer."""


def standout(cosine: np.ndarray, k: int = GAP_RANK) -> float:
    """How far the best cosine stands above the `k`-th best, in standard deviations of all.

    Unlike the best paper's z-score, which grows with the corpus (the maximum of more draws),
    the gap at the top of the order stays put: an off-topic question's best papers are a
    smooth tail (issue 20: z 2.5-5.6 among 3,017 papers against 2.1 among 57), a question
    about one paper lifts it clear of the next ones.
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


def is_confident(
    cosine: np.ndarray,
    top: int,
    coverage: float,
    *,
    latin: bool,
    glossed: bool = False,
    cut: float = STANDOUT_CUT,
    cut_other: float = STANDOUT_CUT_OTHER,
    cut_gloss: float = STANDOUT_CUT_GLOSS,
    floor: float = COSINE_FLOOR,
    coverage_weight: float = COVERAGE_WEIGHT,
) -> bool:
    """Whether to present paper `top` as a match rather than "nothing matched well".

    Both signals, per kind of question: the first paper's cosine clears the floor, and the
    best cosine stands out of the rest (`standout`), by `cut` together with the paper's share
    of the question's idf weight (`coverage`) for a Latin-script question, by `cut_gloss`
    together with its share of the gloss's for a Chinese question scored through its English
    gloss (`glossed`), by `cut_other` for one in another script.
    """
    cosine = np.asarray(cosine)
    if not len(cosine) or cosine[top] < floor:
        return False
    gap = standout(cosine)
    if latin:
        return gap + coverage_weight * coverage >= cut
    if glossed:
        return gap + coverage_weight * coverage >= cut_gloss
    return gap >= cut_other
