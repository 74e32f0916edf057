"""BM25 variants: rank-bm25's formulas, vectorised, one small pure function each.

Per variant: its idf, and the weight of (tf, length norm) pairs; a posting's contribution is
idf × its pair's weight. rank_bm25.BM25Plus also gives idf × delta to every document, with
or without the term: `bm25.BM25._constant` adds that to all scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["DEFAULT_PARAMS", "VARIANTS", "BM25Params", "bm25_params"]


@dataclass(frozen=True, slots=True)
class BM25Params:
    """A rank-bm25 class and its parameters (rank-bm25's defaults)."""

    variant: str = "BM25Plus"
    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25
    """BM25Okapi only: negative idfs become epsilon × mean idf."""
    delta: float = 1.0
    """BM25L (default 0.5) and BM25Plus (default 1.0) only."""


def _okapi_idf(p: BM25Params, n: int, df: np.ndarray, floor: float) -> np.ndarray:
    """rank_bm25.BM25Okapi's idf: log(N - df + .5) - log(df + .5), negatives -> eps × mean."""
    idf = np.log(n - df + 0.5) - np.log(df + 0.5)
    idf[idf < 0] = floor
    return idf


def _okapi(p: BM25Params, tf: np.ndarray, dn: np.ndarray) -> np.ndarray:
    """rank_bm25.BM25Okapi's weight (Robertson et al.); `dn` is k1 × (1 - b + b·dl/avgdl)."""
    return tf * (p.k1 + 1) / (tf + dn)


def _bm25l_idf(p: BM25Params, n: int, df: np.ndarray, floor: float) -> np.ndarray:
    """rank_bm25.BM25L's idf: log(N + 1) - log(df + .5)."""
    return math.log(n + 1) - np.log(df + 0.5)


def _bm25l(p: BM25Params, tf: np.ndarray, dn: np.ndarray) -> np.ndarray:
    """rank_bm25.BM25L's weight (Lv & Zhai 2011), with its extra `tf *`; `dn` is the norm.

    rank-bm25 multiplies by idf first (`idf * tf * ...`), so idf × this weight may differ
    from its score in the last bit (the tests compare with a relative tolerance of 1e-9).
    """
    ctd = tf / dn
    return tf * (p.k1 + 1) * (ctd + p.delta) / (p.k1 + ctd + p.delta)


def _bm25plus_idf(p: BM25Params, n: int, df: np.ndarray, floor: float) -> np.ndarray:
    """rank_bm25.BM25Plus's idf: log((N + 1) / df)."""
    return np.log((n + 1) / df)


def _bm25plus(p: BM25Params, tf: np.ndarray, dn: np.ndarray) -> np.ndarray:
    """rank_bm25.BM25Plus's weight (Lv & Zhai 2011) without delta (`BM25._constant` adds it).

    `(tf * (k1 + 1)) / (dn + tf)`: rank-bm25's `idf * (...)` is then idf × weight, the same
    operations, so the same bits.
    """
    return tf * (p.k1 + 1) / (dn + tf)


_IdfFunction = Callable[[BM25Params, int, np.ndarray, float], np.ndarray]
_ScoreFunction = Callable[[BM25Params, np.ndarray, np.ndarray], np.ndarray]
VARIANTS: dict[str, tuple[_IdfFunction, _ScoreFunction]] = {
    "BM25Okapi": (_okapi_idf, _okapi),
    "BM25L": (_bm25l_idf, _bm25l),
    "BM25Plus": (_bm25plus_idf, _bm25plus),
}
DEFAULT_PARAMS = BM25Params()


def bm25_params(variant: str) -> BM25Params:
    """rank-bm25's default parameters for `variant`; unknown names raise `ValueError`."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown BM25 variant {variant!r}; valid: {', '.join(VARIANTS)}")
    return BM25Params(variant=variant, delta=0.5 if variant == "BM25L" else 1.0)
