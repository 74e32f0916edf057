"""Issue 20 tuning rounds: the fusion's semantic weight and the confidence rule, on tune only.

Run: uv run python -m experiments.fusion_q20 [--sets seed,paperlists]
Loads the tune splits of the seed dev set and the paperlists dev set (benchmarks.paperlists_eval)
and prints, for rule families over the per-question signals, recall per set and style and the
confidence features; the decisions are in experiments/NOTES.md.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from benchmarks import previous_rules
from benchmarks.paperlists_eval import Signals, load_sets, metrics
from bot.search.semantic import fusion
from bot.search.semantic.embedding import load_default_embedder

DUMP = Path(".cache/q20_tune_signals.pkl")
WEIGHTS = (0.7, 0.0, 3.0, 2.0, 0)
"""The fusion family's parameters the confidence grid is run under (tau, lo, hi, cjk, agree)."""


def fused(s: Signals, weight: float) -> np.ndarray:
    """BM25 rank share 1/(k + rank) on matched papers + weight/(k + cosine rank)."""
    matched = s.coverage > 0
    out = weight / (fusion.RRF_K + fusion.ranks(s.cosine))
    out[matched] += 1.0 / (fusion.RRF_K + fusion.ranks(s.bm25)[matched])
    return out + 1e-12 * s.cosine  # weight 0: BM25 order, then meaning for the rest


def leader(s: Signals) -> int:
    """BM25's first paper."""
    return int(np.argmax(s.bm25))


def family(tau: float, w_lo: float, w_hi: float, w_cjk: float, agree: int) -> Callable:
    """Weight: non-Latin question -> w_cjk; BM25 leader covers >= tau (or is among the
    cosine's first `agree`) -> w_lo; else w_hi."""

    def weight(s: Signals) -> float:
        if not s.latin:
            return w_cjk
        top = leader(s)
        cov = float(s.coverage[top])
        if cov >= tau or (agree and previous_rules.rank_of(s.cosine, top) <= agree):
            return w_lo
        return w_hi

    return weight


def table(signals: Sequence[Signals], weight: Callable[[Signals], float]) -> dict:
    """(set, style) -> (r@1, r@3, mrr) of the fusion with this weight rule."""
    groups: dict = {}
    for s in signals:
        if s.expect is not None:
            groups.setdefault((s.set, s.style), []).append(s)
    return {
        key: metrics(mine, lambda s: np.argsort(-fused(s, weight(s)), kind="stable")[:10].tolist())
        for key, mine in groups.items()
    }


def baseline(signals: Sequence[Signals], engine: str) -> dict:
    """The same table for an engine's served ranking."""
    groups: dict = {}
    for s in signals:
        if s.expect is not None:
            groups.setdefault((s.set, s.style), []).append(s)
    return {key: metrics(mine, lambda s: s.ranked[engine]) for key, mine in groups.items()}


def show(name: str, tab: dict) -> None:
    """One row: r@1/r@3 per (set, style)."""
    cells = " ".join(f"{k[0][:4]}:{k[1][:5]} {v[0]:.2f}/{v[1]:.2f}" for k, v in sorted(tab.items()))
    print(f"{name:34} {cells}")


def sweep_fusion(signals: Sequence[Signals]) -> None:
    """Grid over the family; rank by: English lexical styles keep BM25's r@1, then the mean."""
    bm = baseline(signals, "bm25")
    for engine in ("bm25", "bm25s", "old"):
        show(engine, baseline(signals, engine))
    for w in (0.0, 0.5, 1.0, 2.0):
        show(f"constant w={w}", table(signals, lambda s, w=w: w))
    results = []
    grid = itertools.product(
        (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.01),
        (0.0, 0.25, 0.5),
        (0.5, 1.0, 2.0, 3.0),
        (2.0, 4.0),
        (0, 1, 3),
    )
    for tau, w_lo, w_hi, w_cjk, agree in grid:
        tab = table(signals, family(tau, w_lo, w_hi, w_cjk, agree))
        lexical = [k for k in tab if k[1] in ("summary", "title", "keyword", "question")]
        loss = sum(max(0.0, bm[k][0] - tab[k][0]) for k in lexical)
        mean = float(np.mean([(v[0] + v[1]) / 2 for v in tab.values()]))
        results.append((-loss, mean, (tau, w_lo, w_hi, w_cjk, agree), tab))
    results.sort(key=lambda r: (r[0], r[1]), reverse=True)
    for neg_loss, mean, params, tab in results[:15]:
        show(f"{params} loss={-neg_loss:.2f} m={mean:.3f}", tab)


def features(s: Signals, weight: float) -> dict:
    """The top paper's signals under the fusion with this weight."""
    out = fused(s, weight)
    top = int(np.argmax(out))
    z = fusion.z_scores(s.cosine)
    rank = previous_rules.rank_of(s.bm25, top) if s.coverage[top] > 0 else previous_rules.RANK_CAP
    second = -np.partition(-s.cosine, 1)[1]
    return {
        "on": s.expect is not None,
        "right": top == s.expect,
        "latin": s.latin,
        "cos": float(s.cosine[top]),
        "z": float(z[top]),
        "zn": float(z[top]) - float(np.sqrt(2 * np.log(len(s.cosine)))),
        "zmax": float(z.max()),
        "cov": float(s.coverage[top]),
        "rank": min(rank, previous_rules.RANK_CAP),
        "gap": float((s.cosine.max() - second) / max(1e-9, s.cosine.std())),
        "set": s.set,
        "style": s.style,
    }


def rule_grid(rows: Sequence[dict], budget: float = 0.05) -> None:
    """confident = cos >= floor and (cov >= lex or zn >= cut or (rank <= 2 and zn >= az)),
    the cut per script; best by off-topic flagged with on-topic flagged <= budget (both sets)."""
    col = {k: np.array([r[k] for r in rows]) for k in ("on", "latin", "cos", "zn", "cov", "rank")}
    sets = np.array([r["set"] for r in rows])
    on, off = col["on"].astype(bool), ~col["on"].astype(bool)
    res = []
    grid = itertools.product(
        (0.0, 0.78, 0.8, 0.81, 0.82, 0.83, 0.84),
        (0.4, 0.5, 0.6, 0.7, 0.8, 2.0),
        np.arange(-2.5, 1.01, 0.25),
        np.arange(-2.5, 1.01, 0.25),
        (-9.0, -2.5, -2.0, -1.5, -1.0, -0.5, 9.0),
    )
    for floor, lex, cut, cut_cjk, az in grid:
        c = np.where(col["latin"].astype(bool), cut, cut_cjk)
        ok = (col["cos"] >= floor) & (
            (col["cov"] >= lex) | (col["zn"] >= c) | ((col["rank"] <= 2) & (col["zn"] >= az))
        )
        f_on, f_off = float((~ok[on]).mean()), float((~ok[off]).mean())
        per = {
            n: (float((~ok[off & (sets == n)]).mean()), float((~ok[on & (sets == n)]).mean()))
            for n in sorted(set(sets))
        }
        res.append((f_on <= budget, f_off, -f_on, floor, lex, cut, cut_cjk, az, per))
    res.sort(key=lambda r: r[:3], reverse=True)
    for r in res[:20]:
        per = " ".join(f"{n}: {a:.2f}/{b:.2f}" for n, (a, b) in r[8].items())
        print(
            f"off {r[1]:.2f} on {-r[2]:.2f} floor {r[3]} lex {r[4]} cut {r[5]:.2f}"
            f" cjk {r[6]:.2f} az {r[7]} | {per}"
        )


def main() -> None:
    """Sweep on tune."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="seed,paperlists")
    parser.add_argument("--until", type=int, default=2017, help="paperlists years (see testkit)")
    parser.add_argument("--reload", action="store_true")
    parser.add_argument("--dump-rows", action="store_true")
    args = parser.parse_args()
    if DUMP.exists() and not args.reload:
        signals = pickle.loads(DUMP.read_bytes())
    else:
        embedder = load_default_embedder()
        assert embedder is not None
        signals = load_sets(args.sets.split(","), "tune", embedder, until=args.until)
        DUMP.write_bytes(pickle.dumps(signals))
    parser_weight = family(*WEIGHTS)
    sweep_fusion(signals)
    rows = [features(s, parser_weight(s)) for s in signals]
    if args.dump_rows:
        for r in sorted(rows, key=lambda r: (r["set"], r["on"], r["zn"])):
            print(
                " ".join(
                    f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()
                )
            )
    rule_grid(rows)


if __name__ == "__main__":
    main()
