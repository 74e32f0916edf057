"""Choose the hybrid's confidence rule by cross-validation on the dev set's tune split only.

Run: OMP_NUM_THREADS=1 uv run python -m experiments.confidence_cv [--describe]
(`--describe`: each signal's separation on tune alone, descriptive, not used for choosing)

Signals are what `HybridRetriever.search` has for its top paper (`signals.answer_features`: request
words dropped, typos corrected, RRF fusion). Positive = an on-topic question (question,
ownwords, chinese, typo); negative = off-topic or near-miss. A question the hybrid answers
with BM25 alone (no query term) is left out of fitting and counted as the bot answers it.

Pre-declared objective (written before any run on the round-5 data):
- Each family's free parameters are chosen inside each training fold so that at most 3% of
  the fold's on-topic questions are flagged ("nothing matched well"), flagging as many
  off-topic + near-miss questions as possible under that.
- Families: round3 (cos >= floor and (z >= cut or coverage >= 0.6)), round4 (round3 plus the
  BM25-agreement path: BM25 rank <= a and z >= az), logistic (L2-regularised logistic
  regression over `signals.FEATURE_NAMES`, threshold set in-fold as above).
- Score: repeated stratified k-fold (k=5, 20 repeats, strata = styles, seed 0), flags pooled
  over all held-out folds. Choose the family with the most off-topic + near-miss flagged
  among those with on-topic flagged <= 0.05; a difference under 0.02 is a tie, and a tie goes
  to the simpler family (round3 < round4 < logistic). If none meets 0.05: the family with the
  fewest on-topic flagged.
The chosen family is then fitted on all of tune and its constants printed (for bot.fusion).

Round 6 (declared before any run with the new signals; same objective, protocol, seed,
budgets, tie margin and choice rule as round 5): `FEATURE_NAMES` (experiments/signals.py)
gained five signals (unknown_latin, rare_coverage, cos_gap5, cos_gap10, top3_agreement).
New families, in simplicity order after round4 and before the logistic ones: round4 plus one
gate on one new signal, the gate's threshold chosen in-fold with round 4's parameters from GATES
(the threshold that lets everything through is in each grid, so a gate family can only match
round4 in-fold): gate_unknown (confident only if unknown_latin <= t), gate_rare
(rare_coverage >= t), gate_gap5 (cos_gap5 >= t), gate_gap10 (cos_gap10 >= t), gate_agree
(top3_agreement >= t). Then logistic (the five round-5 signals, as round 5) and logistic10
(all ten). The choice among all of them follows the rule above; the brief's bar to ship a
new family: more CV off + near flagged than round4 by more than TIE at on-topic <= 0.05.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchmarks.hybrid_eval import ON_STYLES
from benchmarks.previous_rules import LEXICAL_COVERAGE, decide
from bot.search import HybridRetriever
from bot.search.phrasing import topic_text
from experiments.signals import FEATURE_NAMES, answer_features
from experiments.tuning import auc, seed_hybrid
from testkit.devset import load_devset

ON_BUDGET_FIT = 0.03
"""In-fold: at most this share of training on-topic questions flagged."""
ON_BUDGET = 0.05
"""Cross-validated on-topic flagged allowed for a family to be chosen."""
TIE = 0.02
"""Off-topic + near-miss flagged closer than this is a tie (goes to the simpler family)."""
FOLDS, REPEATS, SEED = 5, 20, 0
L2 = 1.0
"""Ridge penalty on the standardised logistic weights (not the intercept)."""
FLOORS = (0.0, 0.80, 0.805, 0.81, 0.815, 0.82, 0.83)
CUTS = tuple(np.round(np.arange(1.75, 3.01, 0.125), 3))
AGREEMENTS = ((0, 0.0), *itertools.product((1, 2, 3), (0.0, 1.0, 1.25, 1.5, 1.75)))
"""(BM25 rank, z) of the agreement path; rank 0: no agreement path (round 3)."""
LEXICAL = LEXICAL_COVERAGE

COS, Z, COV, LOGRANK, MARGIN, UNKNOWN, RARE, GAP5, GAP10, AGREE = range(len(FEATURE_NAMES))
ROUND5_FEATURES = (COS, Z, COV, LOGRANK, MARGIN)
GATES: dict[str, tuple[int, int, tuple[float, ...]]] = {
    # name: (feature, direction: +1 confident if >= t, -1 if <= t, thresholds)
    "gate_unknown": (UNKNOWN, -1, (1.0, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0)),
    "gate_rare": (RARE, 1, (0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0)),
    "gate_gap5": (GAP5, 1, (0.0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04)),
    "gate_gap10": (GAP10, 1, (0.0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05)),
    "gate_agree": (AGREE, 1, (0.0, 1.0, 2.0, 3.0)),
}


@dataclass(frozen=True)
class Data:
    """Tune questions' features (rows), labels (1 on-topic) and styles."""

    x: np.ndarray
    y: np.ndarray
    style: np.ndarray


Rule = Callable[[np.ndarray], np.ndarray]
"""Features (n, 5) -> confident (n,) bools."""


@dataclass(frozen=True)
class ZRule:
    """Round 3's rule (agreement 0) or round 4's, over feature rows."""

    floor: float
    cut: float
    agreement: int
    agreement_z: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return decide(
            x[:, COS],
            x[:, Z],
            x[:, COV],
            np.rint(np.exp(x[:, LOGRANK])),
            cut=self.cut,
            floor=self.floor,
            lexical=LEXICAL,
            agreement=self.agreement,
            agreement_z=self.agreement_z,
        )


def best_grid(x: np.ndarray, y: np.ndarray, agreements: tuple[tuple[int, float], ...]) -> ZRule:
    """The grid rule flagging most negatives with <= ON_BUDGET_FIT of positives flagged."""
    best: tuple[float, float, tuple[float, float, int, float]] | None = None
    for floor, cut, (a, az) in itertools.product(FLOORS, CUTS, agreements):
        confident = ZRule(floor, cut, a, az)(x)
        on_flagged = float(np.mean(~confident[y == 1]))
        if on_flagged > ON_BUDGET_FIT:
            continue
        key = (float(np.mean(~confident[y == 0])), -on_flagged)
        if best is None or key > best[:2]:
            best = (*key, (floor, cut, a, az))
    if best is None:  # nothing meets the budget: confident whenever above no floor
        return ZRule(0.0, -np.inf, 0, 0.0)
    return ZRule(*best[2])


@dataclass(frozen=True)
class Logistic:
    """A fitted logistic rule on raw features: confident when w·x + b >= threshold."""

    weights: np.ndarray
    intercept: float
    threshold: float

    def score(self, x: np.ndarray) -> np.ndarray:
        """The linear score (log-odds of on-topic)."""
        return x @ self.weights + self.intercept

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.score(x) >= self.threshold


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = L2) -> Logistic:
    """IRLS on standardised features with an L2 penalty, folded back to raw features."""
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    design = np.column_stack([np.ones(len(x)), (x - mean) / std])
    penalty = np.diag([0.0] + [l2] * x.shape[1])
    beta = np.zeros(design.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-design @ beta))
        gradient = design.T @ (y - p) - penalty @ beta
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.abs(step).max() < 1e-10:
            break
    weights = beta[1:] / std
    intercept = float(beta[0] - (mean / std) @ beta[1:])
    fitted = Logistic(weights, intercept, 0.0)
    scores = np.sort(fitted.score(x[y == 1]))
    # Flag (score < threshold) at most ON_BUDGET_FIT of the positives.
    allowed = int(np.floor(ON_BUDGET_FIT * len(scores)))
    return Logistic(weights, intercept, float(scores[allowed]))


@dataclass(frozen=True)
class GatedRule:
    """Round 4's rule, and one new signal past a threshold (`GATES`)."""

    rule: ZRule
    feature: int
    direction: int
    threshold: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.rule(x) & (
            self.direction * x[:, self.feature] >= self.direction * self.threshold
        )


def best_gated(x: np.ndarray, y: np.ndarray, gate: str) -> Rule:
    """Round 4's grid × the gate's thresholds, chosen as `best_grid` chooses (vectorised)."""
    return best_gated_on(x, y, *GATES[gate])


def best_gated_on(
    x: np.ndarray, y: np.ndarray, feature: int, direction: int, thresholds: tuple[float, ...]
) -> Rule:
    """Round 4's grid × one gate on column `feature` (also experiments/second_model.py's)."""
    bases = [ZRule(f, c, a, az) for f, c, (a, az) in itertools.product(FLOORS, CUTS, AGREEMENTS)]
    base = np.array([b(x) for b in bases])  # (rules, rows)
    gates = np.array([direction * x[:, feature] >= direction * t for t in thresholds])
    confident = base[:, None, :] & gates[None, :, :]  # (rules, thresholds, rows)
    on_flagged = (~confident[..., y == 1]).mean(axis=-1)
    off_flagged = (~confident[..., y == 0]).mean(axis=-1)
    ok = on_flagged <= ON_BUDGET_FIT
    if not ok.any():
        return ZRule(0.0, -np.inf, 0, 0.0)
    # Most negatives flagged, then fewest positives, then the first in grid order (as best_grid).
    best_off = off_flagged[ok].max()
    tied = ok & (off_flagged == best_off)
    best_on = on_flagged[tied].min()
    r, t = np.unravel_index(np.argmax(tied & (on_flagged == best_on)), ok.shape)
    return GatedRule(bases[r], feature, direction, thresholds[t])


@dataclass(frozen=True)
class Columns:
    """A rule fitted on some feature columns only."""

    rule: Rule
    columns: tuple[int, ...]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.rule(x[:, self.columns])


def _logistic_on(columns: tuple[int, ...]) -> Callable[[np.ndarray, np.ndarray], Rule]:
    return lambda x, y: Columns(fit_logistic(x[:, columns], y), columns)


FAMILIES: dict[str, Callable[[np.ndarray, np.ndarray], Rule]] = {
    "round3": lambda x, y: best_grid(x, y, ((0, 0.0),)),
    "round4": lambda x, y: best_grid(x, y, AGREEMENTS),
    **{g: (lambda x, y, g=g: best_gated(x, y, g)) for g in GATES},
    "logistic": _logistic_on(ROUND5_FEATURES),
    "logistic10": _logistic_on(tuple(range(len(FEATURE_NAMES)))),
}


def stratified_folds(style: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """FOLDS disjoint test-index sets, each style spread evenly over them."""
    folds: list[list[int]] = [[] for _ in range(FOLDS)]
    start = 0
    for s in sorted(set(style.tolist())):
        members = rng.permutation(np.flatnonzero(style == s))
        for i, row in enumerate(members):
            folds[(start + i) % FOLDS].append(int(row))
        start += len(members)
    return [np.array(sorted(f)) for f in folds]


def cross_validate(
    data: Data, fit: Callable[[np.ndarray, np.ndarray], Rule], chosen: Counter[str] | None = None
) -> dict[str, float]:
    """Pooled flagged shares over REPEATS × FOLDS held-out folds (`chosen`: counts fold rules)."""
    rng = np.random.default_rng(SEED)
    flagged = {"offtopic": [0, 0], "nearmiss": [0, 0], "on": [0, 0]}
    for _ in range(REPEATS):
        for test in stratified_folds(data.style, rng):
            train = np.setdiff1d(np.arange(len(data.y)), test)
            rule = fit(data.x[train], data.y[train])
            if chosen is not None and isinstance(rule, ZRule | GatedRule):
                chosen[repr(rule)] += 1
            confident = rule(data.x[test])
            for row, ok in zip(test, confident, strict=True):
                key = "on" if data.y[row] == 1 else str(data.style[row])
                flagged[key][0] += int(not ok)
                flagged[key][1] += 1
    rates = {k: f / n for k, (f, n) in flagged.items()}
    off, near = flagged["offtopic"], flagged["nearmiss"]
    rates["off+near"] = (off[0] + near[0]) / (off[1] + near[1])
    return rates


def choose(results: dict[str, dict[str, float]]) -> str:
    """The pre-declared choice (see the module docstring); FAMILIES is in simplicity order."""
    eligible = [f for f in FAMILIES if results[f]["on"] <= ON_BUDGET]
    if not eligible:
        return min(FAMILIES, key=lambda f: results[f]["on"])
    best = max(results[f]["off+near"] for f in eligible)
    return next(f for f in eligible if results[f]["off+near"] > best - TIE)


def tune_data(hybrid: HybridRetriever | None = None) -> tuple[Data, int, int]:
    """Tune questions' features; and off/near questions the hybrid leaves to BM25 (flagged)."""
    hybrid = seed_hybrid()[0] if hybrid is None else hybrid
    rows, labels, styles = [], [], []
    left_on = left_off = 0
    for q in load_devset(hybrid.papers, split="tune"):
        features = answer_features(hybrid, q.text)
        on = q.style in ON_STYLES
        if features is None:
            left_on += on
            left_off += not on
            continue
        rows.append(features)
        labels.append(int(on))
        styles.append(q.style)
    return Data(np.array(rows), np.array(labels), np.array(styles)), left_on, left_off


def describe() -> None:
    """Descriptive only, not used for any choice: how well each signal alone separates
    on-topic tune questions from near-miss and off-topic ones, plus a candidate not in
    FEATURE_NAMES: the question's cosine with the top paper's title vector."""
    hybrid, speller = seed_hybrid()
    data, _, _ = tune_data(hybrid)
    started = time.perf_counter()
    titles = hybrid.embedder.embed_documents([p.title for p in hybrid.papers])
    took = time.perf_counter() - started
    print(f"embedding {len(titles)} titles: {took:.2f} s (one run)")
    title = []
    for q in load_devset(hybrid.papers, split="tune"):
        top = hybrid.search(q.text, limit=1, snippets=False).hits[0].paper.id
        text = speller.correct(topic_text(q.text)).text
        title.append(float(titles[hybrid.index.row(top)] @ hybrid.embedder.embed_query(text)))
    x = np.column_stack([data.x, title])
    on, near, off = data.y == 1, data.style == "nearmiss", data.style == "offtopic"
    print("\n| signal (tune) | AUC on vs near-miss | AUC on vs off-topic | on mean | near mean |")
    print("|---|---|---|---|---|")
    for i, name in enumerate((*FEATURE_NAMES, "title_cosine")):
        col = x[:, i]
        cells = f"{auc(col[on], col[near]):.3f} | {auc(col[on], col[off]):.3f}"
        print(f"| {name} | {cells} | {col[on].mean():.3f} | {col[near].mean():.3f} |")
    print("\nunknown_latin mean by style:")
    for style in sorted(set(data.style.tolist())):
        print(f"  {style}: {x[data.style == style, UNKNOWN].mean():.3f}")


def main() -> None:
    """Cross-validate every family on tune, choose, fit the choice on all of tune."""
    data, left_on, left_off = tune_data()
    counts = {s: int((data.style == s).sum()) for s in sorted(set(data.style.tolist()))}
    print(f"tune: {len(data.y)} questions with hybrid signals {counts}")
    print(f"answered by BM25 alone (no query term): {left_on} on-topic, {left_off} off/near")
    print(f"CV: {REPEATS} x stratified {FOLDS}-fold; in-fold on-topic budget {ON_BUDGET_FIT}\n")
    print("| family | off-topic | near-miss | off+near | on-topic |")
    print("|---|---|---|---|---|")
    results = {}
    per_fold: dict[str, Counter[str]] = {}
    for name, fit in FAMILIES.items():
        per_fold[name] = Counter()
        results[name] = r = cross_validate(data, fit, per_fold[name])
        cells = " | ".join(f"{r[k]:.3f}" for k in ("offtopic", "nearmiss", "off+near", "on"))
        print(f"| {name} | {cells} |")
    for name, counts in per_fold.items():
        for rule_text, n in counts.most_common(5):
            print(f"  {name} fold rule x{n}: {rule_text}")
    chosen = choose(results)
    print(f"\nchosen (pre-declared rule): {chosen}")
    rule = FAMILIES[chosen](data.x, data.y)
    if isinstance(rule, Columns) and isinstance(rule.rule, Logistic):
        print("fitted on all of tune:")
        names = [FEATURE_NAMES[c] for c in rule.columns]
        for name, w in zip(names, rule.rule.weights, strict=True):
            print(f"  {name}: {w:.4f}")
        print(f"  intercept: {rule.rule.intercept:.4f}\n  threshold: {rule.rule.threshold:.4f}")
    else:
        print(f"fitted on all of tune: {rule}")
    confident = rule(data.x)
    shipped = ZRule(0.81, 2.125, 2, 1.0)(data.x)
    print(
        "round 4 as shipped, in-sample on tune: off+near flagged "
        f"{np.mean(~shipped[data.y == 0]):.3f}, on-topic flagged "
        f"{np.mean(~shipped[data.y == 1]):.3f}"
    )
    print(
        "in-sample on tune: off+near flagged "
        f"{np.mean(~confident[data.y == 0]):.3f}, on-topic flagged "
        f"{np.mean(~confident[data.y == 1]):.3f}"
    )


if __name__ == "__main__":
    describe() if "--describe" in sys.argv[1:] else main()
