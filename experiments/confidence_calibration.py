"""Issue 20, confidence round 3: "nothing matched well" calibrated per corpus.

Rounds 1-2 (experiments/NOTES.md) showed the best paper's cosine z-score grows with the
corpus: one cut cannot serve 57 papers and 3,017. Here each corpus gets a null distribution
of its own, computed from its papers alone: probe questions made from sampled papers (their
titles, embedded as questions), each scored against the corpus *without* its source paper.
A probe is a specific research question whose paper is absent, on a topic whose neighbours
are present: what a near-miss question looks like to this corpus. A question then counts as
standing out when its best paper's z-score beats that null's quantile.

    uv run python -m experiments.confidence_calibration [--split tune|heldout] [--until 0]
    uv run python -m experiments.confidence_calibration --standout   # round 4, the shipped family

Round 3 (the null of title probes, `--null title_null|paper_null`) did not separate: on tune,
with on-topic flagged <= 0.05 on both sets, at best 0.50 (seed) and 0.45 (paperlists) of the
off-topic and near-miss questions were flagged. Round 4 (`--standout`): the best cosine's gap
to the tenth best, in standard deviations (`fusion.standout`), does not grow with the corpus;
confident when cos >= floor and standout + beta x coverage >= cut (Latin script) or
standout >= cut_other (other scripts). Chosen on tune by: right-top flagged <= 0.05 on both
sets, then the most off-topic + near-miss flagged on the worse set, then the least on-topic
flagged over both sets. The held-out split is printed only for the chosen rule
(`--split heldout --standout --show-chosen`).
"""

from __future__ import annotations

import argparse
import itertools
import pickle
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.paperlists_eval import Signals, _top, collect, load_set
from bot.search.semantic import fusion
from bot.search.semantic.embedding import Embedder, load_default_embedder

CACHE = Path(".cache/confidence_calibration.pkl")
PROBES = 256


@dataclass(frozen=True)
class Null:
    """A corpus's null: best-other z-scores and cosines of its probe questions."""

    z: np.ndarray
    cosine: np.ndarray


def load_cache(path: Path) -> dict:
    """A cached `gather` result (pickled by this module run as __main__)."""
    import __main__

    __main__.Null = Null  # the pickle names the class as the script's
    return pickle.loads(path.read_bytes())


def null_of(vectors: np.ndarray, probes: np.ndarray, sources: np.ndarray) -> Null:
    """Best z and cosine of each probe vector over the corpus without its source paper."""
    zs, cs = [], []
    for vector, source in zip(probes, sources, strict=True):
        cosine = vectors @ vector
        cosine = np.delete(cosine, source)
        z = fusion.z_scores(cosine)
        best = int(np.argmax(cosine))
        zs.append(z[best])
        cs.append(cosine[best])
    return Null(np.array(zs), np.array(cs))


def probe_rows(n: int, count: int = PROBES) -> np.ndarray:
    """`count` rows spread evenly over `n` papers (all when fewer)."""
    return np.unique(np.linspace(0, n - 1, min(n, count)).round().astype(int))


def gather(split: str, until: int | None, embedder: Embedder) -> dict:
    """Per set: the questions' signals, the text-probe null and the paper-probe null."""
    out = {}
    for name in ("seed", "paperlists"):
        corpus, questions = load_set(name, split, embedder, until=until)
        papers = corpus.papers
        signals = collect(corpus, questions, embedder)
        rows = probe_rows(len(papers))
        titles = np.stack([embedder.embed_query(papers[r].title) for r in rows])
        out[name] = {
            "signals": signals,
            "title_null": null_of(corpus.vectors, titles, rows),
            "paper_null": null_of(corpus.vectors, corpus.vectors[rows], rows),
            "n": len(papers),
        }
    return out


@dataclass(frozen=True)
class Row:
    """One question's features for the rule."""

    set: str
    style: str
    on: bool
    cosine: float
    z: float
    coverage: float
    rank: int
    latin: bool


def features(signals: list[Signals], name: str) -> list[Row]:
    """The served top paper's signals for each question."""
    rows = []
    for s in signals:
        top = _top(s)
        z = fusion.z_scores(s.cosine)
        rank = fusion.rank_of(s.bm25, top) if s.coverage[top] > 0 else fusion.RANK_CAP
        rows.append(
            Row(
                name, s.style, s.expect is not None, float(s.cosine[top]), float(z[top]),
                float(s.coverage[top]), rank, s.latin,
            )
        )  # fmt: skip
    return rows


@dataclass(frozen=True)
class Table:
    """One set's questions as arrays, and its null's quantiles."""

    on: np.ndarray
    cosine: np.ndarray
    z: np.ndarray
    coverage: np.ndarray
    rank: np.ndarray
    latin: np.ndarray
    null: Null

    @classmethod
    def of(cls, rows: list[Row], null: Null) -> Table:
        """Columns of `rows`."""
        return cls(
            *(np.array([getattr(r, f) for r in rows]) for f in
              ("on", "cosine", "z", "coverage", "rank", "latin")),
            null=null,
        )  # fmt: skip

    def confident(
        self, *, q: float, floor_q: float, lexical: float, agree_q: float, q_other: float
    ) -> np.ndarray:
        """Above the null's cosine quantile `floor_q`, and the z-score beats the null's `q`
        quantile (`q_other` for a question not in Latin script), or the paper holds `lexical`
        of the words, or BM25 agrees (rank <= 2) and z beats the null's `agree_q` quantile."""
        floor = np.quantile(self.null.cosine, floor_q) if floor_q > 0 else -1.0
        cut = np.where(self.latin, np.quantile(self.null.z, q), np.quantile(self.null.z, q_other))
        agree = np.quantile(self.null.z, agree_q)
        return (self.cosine >= floor) & (
            (self.z >= cut) | (self.coverage >= lexical) | ((self.rank <= 2) & (self.z >= agree))
        )

    def rates(self, **params: float) -> tuple[float, float]:
        """(off-topic + near-miss flagged, on-topic flagged)."""
        flagged = ~self.confident(**params)
        return float(flagged[~self.on].mean()), float(flagged[self.on].mean())


GRID = {
    "q": [0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95],
    "floor_q": [0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5],
    "lexical": [0.5, 0.6, 0.7, 0.8, 0.9, 1.01],
    "agree_q": [0.0, 0.1, 0.25, 0.5, 1.0],
    "q_other": [0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
}


def standout_table(data: dict) -> dict[str, dict[str, np.ndarray]]:
    """Per set, the columns the standout family reads (the served top paper's signals)."""
    tables = {}
    for name, d in data.items():
        cols: dict[str, list] = {k: [] for k in ("on", "right", "gap", "c", "cov", "latin")}
        for s in d["signals"]:
            top = _top(s)
            cols["on"].append(s.expect is not None)
            cols["right"].append(top == s.expect)
            cols["gap"].append(fusion.standout(s.cosine))
            cols["c"].append(s.cosine[top])
            cols["cov"].append(s.coverage[top])
            cols["latin"].append(s.latin)
        tables[name] = {k: np.array(v) for k, v in cols.items()}
    return tables


def standout_rates(t: dict[str, np.ndarray], beta, cut, cut_other, floor) -> tuple:
    """(off-topic + near-miss flagged, on-topic flagged, right-top flagged) for one rule."""
    confident = (t["c"] >= floor) & np.where(
        t["latin"], t["gap"] + beta * t["cov"] >= cut, t["gap"] >= cut_other
    )
    flagged = ~confident
    on, right = t["on"], t["on"] & t["right"]
    return flagged[~on].mean(), flagged[on].mean(), flagged[right].mean()


CHOSEN = (1.0, 1.75, 0.625, 0.81)
"""(beta, cut, cut_other, floor) as shipped in bot.search.semantic.fusion."""


def sweep_standout(data: dict, *, chosen_only: bool) -> None:
    """Round 4's grid on one split (or only the chosen rule)."""
    tables = standout_table(data)
    grid = itertools.product(
        np.arange(0, 4.01, 0.25),
        np.arange(-2, 6.01, 0.125),
        np.arange(-2, 3.01, 0.125),
        (0.0, 0.8, 0.81, 0.82),
    )
    results = []
    for params in [CHOSEN] if chosen_only else grid:
        per = {n: standout_rates(t, *params) for n, t in tables.items()}
        results.append(
            (
                max(v[2] for v in per.values()) <= 0.05,
                min(v[0] for v in per.values()),
                -sum(v[1] for v in per.values()),
                params,
                per,
            )
        )
    results.sort(key=lambda r: r[:3], reverse=True)
    for *_, params, per in results[:12]:
        cells = "  ".join(
            f"{n} {off:.2f}/{on:.2f}/{right:.2f}" for n, (off, on, right) in per.items()
        )
        print("beta, cut, cut_other, floor", np.round(params, 3), "off/on/right flagged", cells)


def main() -> None:
    """Sweep on one split (or report one rule)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="tune")
    parser.add_argument("--until", type=int, default=0)
    parser.add_argument("--null", default="title_null", choices=("title_null", "paper_null"))
    parser.add_argument("--reload", action="store_true")
    parser.add_argument("--standout", action="store_true", help="round 4's family")
    parser.add_argument("--show-chosen", action="store_true", help="only the shipped rule")
    parser.add_argument("--show", nargs=5, type=float, help="q floor_q lexical agree_q q_other")
    args = parser.parse_args()
    cache = CACHE.with_suffix(f".{args.split}.{args.until}.pkl")
    if cache.exists() and not args.reload:
        data = load_cache(cache)
    else:
        embedder = load_default_embedder()
        assert embedder is not None
        data = gather(args.split, args.until or None, embedder)
        cache.parent.mkdir(exist_ok=True)
        cache.write_bytes(pickle.dumps(data))
    if args.standout:
        if args.split != "tune" and not args.show_chosen:
            raise SystemExit("choose on tune; held-out is read with --show-chosen only")
        sweep_standout(data, chosen_only=args.show_chosen)
        return
    sets = {n: Table.of(features(d["signals"], n), d[args.null]) for n, d in data.items()}
    for name, table in sets.items():
        qs = np.quantile(table.null.z, [0.5, 0.8, 0.9, 0.95])
        cq = np.quantile(table.null.cosine, [0.05, 0.5, 0.95])
        print(f"{name} N={data[name]['n']} null z q50/80/90/95 {qs.round(2)} cos {cq.round(3)}")
    if args.show:
        params = dict(zip(GRID, args.show, strict=True))
        for name, table in sets.items():
            off, on = table.rates(**params)
            print(f"{name} off+near flagged {off:.2f}, on-topic flagged {on:.2f}")
        return
    results = []
    for values in itertools.product(*GRID.values()):
        params = dict(zip(GRID, values, strict=True))
        per = {name: table.rates(**params) for name, table in sets.items()}
        worst_on = max(on for _, on in per.values())
        worst_off = min(off for off, _ in per.values())
        results.append((worst_on <= 0.05, worst_off, -worst_on, params, per))
    results.sort(key=lambda r: (r[0], r[1], r[2]), reverse=True)
    for ok, _, _, params, per in results[:15]:
        cells = "  ".join(f"{n} {off:.2f}/{on:.2f}" for n, (off, on) in per.items())
        print(ok, params, cells)


if __name__ == "__main__":
    main()
