"""The confidence cut calibrated on the corpus in front of it, once its vectors are built.

How far an answer's best paper stands out varies with the corpus and the kind of question, so
one constant cannot say "this matched well" everywhere: the corpus is asked its own questions
(`probes`) and the cut is fitted on them, stored under a key of model, texts and probes.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bot.corpus import Paper
from bot.search.cache import read_json, write_json
from bot.search.rank.index import Index
from bot.search.semantic import fusion
from bot.search.semantic.embedding import Embedder, paper_text
from bot.search.semantic.probes import OFF_TOPIC_FILE, off_topic_questions, paper_probes
from bot.textutil import is_latin_text

logger = logging.getLogger(__name__)

CALIBRATIONS_FILE = "confidence-calibrations.json"
KEPT = 16
"""Calibrations kept: the newest, so corpora served in turn from one directory keep theirs."""
CALIBRATION_VERSION = 1
"""Bump when the probes or the fit change: stored calibrations are then made again."""
PROBED_PAPERS = 100
"""Papers probed (evenly spread over the corpus): one embedding of each paper's held-out text
and four questions, a small share of embedding the corpus."""
IN_TOPIC_FLAGGED = 0.05
"""The share of in-topic probes a cut may flag."""
COSINE_WEIGHTS = (0.0, 5.0, 10.0, 15.0, 20.0, 30.0)
"""The cosine's weights tried: the margin's scale, 0.01 of cosine against 0.05-0.3 of standout."""
SHORT_WORDS = 5
"""A question of at most this many words is short (a title, keywords): its own cut."""
MIN_PROBES = 40
"""Fewer in-topic probes than this: no calibration (the shipped rule answers); a class with
fewer gets the cut of all probes."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """One corpus's confidence rule for Latin-script questions."""

    weight: float
    """The first paper's cosine's weight in the margin."""
    short_cut: float
    """The cut for questions of at most `SHORT_WORDS` words."""
    long_cut: float
    probes: int
    """In-topic probes it was fitted on."""

    def margin(self, gap: float, coverage: float, cosine: float) -> float:
        """An answer's margin: standout + coverage + weight x cosine."""
        return gap + fusion.COVERAGE_WEIGHT * coverage + self.weight * cosine

    def cut(self, words: int) -> float:
        """The cut of a question of `words` words."""
        return self.short_cut if words <= SHORT_WORDS else self.long_cut


def verdict(
    cosine: np.ndarray,
    top: int,
    coverage: float,
    *,
    latin: bool,
    glossed: bool,
    words: int,
    calibration: Calibration | None,
) -> fusion.Verdict:
    """The margin of paper `top` and its cut: the calibrated one, else `fusion.verdict`'s."""
    if calibration is None or not latin or not len(cosine):
        return fusion.verdict(cosine, top, coverage, latin=latin, glossed=glossed)
    gap = fusion.standout(cosine)
    margin = calibration.margin(gap, coverage, float(cosine[top]))
    return fusion.Verdict(margin, calibration.cut(words))


def calibration_key(model: str, papers: Sequence[Paper]) -> str:
    """What a calibration depends on: the model, every paper's embedded text, the probes."""
    digest = hashlib.sha256(f"{CALIBRATION_VERSION};{model}".encode())
    with contextlib.suppress(OSError):  # no file: no off-topic probes (`off_topic_questions`)
        digest.update(OFF_TOPIC_FILE.read_bytes())
    for paper in papers:
        digest.update(hashlib.sha256(paper_text(paper).encode("utf-8", "surrogatepass")).digest())
    return digest.hexdigest()


def calibrated(
    index: Index,
    vectors: np.ndarray,
    embedder: Embedder,
    *,
    cache_dir: str | Path | None,
    stop: threading.Event | None = None,
) -> Calibration | None:
    """The stored calibration of this corpus and model, else a new one (then stored)."""
    key = calibration_key(embedder.name, index.papers)
    if cache_dir is not None:
        stored = read_calibration(Path(cache_dir), key)
        if stored is not None:
            return stored
    started = time.perf_counter()
    result = calibrate(index, vectors, embedder, stop=stop)
    if result is not None:
        logger.info(
            "Confidence calibrated on %d probes in %.1f s: %s",
            result.probes,
            time.perf_counter() - started,
            result,
        )
        if cache_dir is not None:
            write_calibration(Path(cache_dir), key, result)
    return result


def read_calibration(cache_dir: Path, key: str) -> Calibration | None:
    """The calibration stored under `key`; None when there is none or it is not one."""
    try:
        fields = read_json(cache_dir / CALIBRATIONS_FILE)[key]["fields"]
        numbers = [float(fields[name]) for name in ("weight", "short_cut", "long_cut")]
        probes = int(fields["probes"])
    except (KeyError, TypeError, ValueError):
        return None
    return Calibration(*numbers, probes) if np.isfinite(numbers).all() else None


def write_calibration(cache_dir: Path, key: str, calibration: Calibration) -> None:
    """Store `calibration` under `key`, keeping the `KEPT` newest; a failure is logged."""
    path = cache_dir / CALIBRATIONS_FILE
    stored = read_json(path)
    stored[key] = {"fields": asdict(calibration), "when": time.time()}
    newest = sorted(stored, key=lambda k: _when(stored[k]), reverse=True)[:KEPT]
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        write_json(path, {k: stored[k] for k in newest})
    except OSError as error:  # a read-only volume: the next start calibrates again
        logger.warning("confidence calibration not stored in %s: %s", path, error)


def _when(entry: object) -> float:
    try:
        return float(entry["when"])  # type: ignore[index]
    except (KeyError, TypeError, ValueError):
        return 0.0


def calibrate(
    index: Index, vectors: np.ndarray, embedder: Embedder, *, stop: threading.Event | None = None
) -> Calibration | None:
    """Fit the corpus's rule on its probes; None when it has too few or `stop` was set."""
    signals = _Signals(index, vectors, embedder)
    n = len(index.papers)
    for row in np.unique(np.linspace(0, n - 1, min(n, PROBED_PAPERS)).astype(np.int64)):
        if stop is not None and stop.is_set():
            return None
        signals.probe_paper(int(row))
    for question in off_topic_questions():
        signals.off_topic(question)
    if len(signals.on) < MIN_PROBES:
        return None
    return _fit(signals)


Features = tuple[float, float, float, int]
"""One probe's standout, first paper's coverage and cosine, and its number of words."""


class _Signals:
    """The probes' features, computed as `HybridRetriever.search` scores a question."""

    def __init__(self, index: Index, vectors: np.ndarray, embedder: Embedder) -> None:
        self.index, self.vectors, self.embedder = index, vectors, embedder
        self.on: list[Features] = []
        self.near: list[Features] = []
        self.off: list[Features] = []

    def probe_paper(self, row: int) -> None:
        """In-topic probes of paper `row` on its held-out text, and near-miss ones without it."""
        paper = self.index.papers[row]
        probes, evidence = paper_probes(
            paper, paper_text(paper), self._papers_with, len(self.index.papers)
        )
        if not probes or not evidence:
            return
        held = self.embedder.embed_query(evidence)
        held_terms = set(self.index.analyzer.analyze(evidence))
        keep = np.arange(len(self.vectors)) != row
        for probe in probes:
            scored = self._scored(probe.text)
            if scored is None:
                continue
            terms, query, cosine, coverage, bm25 = scored
            weights = self.index.term_weights(terms)
            total = sum(weights.values())
            cosine[row] = float(held @ query)
            coverage[row] = sum(w for t, w in weights.items() if t in held_terms) / total
            words = len(probe.text.split())
            self.on.append(_features(cosine, coverage, bm25, words))
            self.near.append(_features(cosine[keep], coverage[keep], bm25[keep], words))

    def off_topic(self, question: str) -> None:
        """The features of one shipped off-topic question."""
        scored = self._scored(question)
        if scored is not None:
            _terms, _query, cosine, coverage, bm25 = scored
            self.off.append(_features(cosine, coverage, bm25, len(question.split())))

    def _scored(self, text: str) -> tuple | None:
        """A Latin-script question's terms, vector, cosines, coverage and BM25 scores."""
        prepared = self.index.queries.prepare(text)
        terms = prepared.scored
        if not terms or not all(is_latin_text(t) for t in prepared.terms):
            return None
        query = self.embedder.embed_query(prepared.text)
        rows = np.arange(len(self.vectors))
        cosine = (self.vectors @ query).astype(np.float64)
        return terms, query, cosine, self.index.coverage(terms, rows), self.index.scores(terms)

    def _papers_with(self, word: str) -> int:
        """How many papers hold the word (its rarest term); 0 when it has no term or none."""
        terms = self.index.query_terms(word)
        return min((self.index.bm25.df(t) for t in terms), default=0)


def _features(cosine: np.ndarray, coverage: np.ndarray, bm25: np.ndarray, words: int) -> Features:
    top = int(np.argmax(fusion.fused_scores(bm25, cosine, coverage, latin=True)))
    return fusion.standout(cosine), float(coverage[top]), float(cosine[top]), words


def _fit(signals: _Signals) -> Calibration:
    """The weight whose per-class cuts flag most near-miss and off-topic probes."""
    on, near, off = (
        np.asarray(f, dtype=np.float64) for f in (signals.on, signals.near, signals.off)
    )
    best: tuple[float, Calibration] | None = None
    for weight in COSINE_WEIGHTS:
        candidate = _cuts(on, weight)
        flagged = [_flagged(f, candidate) for f in (near, off) if len(f)]
        score = float(np.mean(flagged)) if flagged else 0.0
        if best is None or score > best[0] + 1e-9:
            best = (score, candidate)
    assert best is not None
    return best[1]


def _cuts(on: np.ndarray, weight: float) -> Calibration:
    """Per class, the cut flagging `IN_TOPIC_FLAGGED` of the in-topic probes."""
    margins = on[:, 0] + fusion.COVERAGE_WEIGHT * on[:, 1] + weight * on[:, 2]
    short = on[:, 3] <= SHORT_WORDS
    every = float(np.quantile(margins, IN_TOPIC_FLAGGED))

    def cut(mine: np.ndarray) -> float:
        return float(np.quantile(mine, IN_TOPIC_FLAGGED)) if len(mine) >= MIN_PROBES else every

    return Calibration(weight, cut(margins[short]), cut(margins[~short]), len(on))


def _flagged(features: np.ndarray, calibration: Calibration) -> float:
    """The share of `features` the calibration flags."""
    margins = [calibration.margin(g, c, cos) for g, c, cos, _ in features]
    cuts = [calibration.cut(int(words)) for *_, words in features]
    return float(np.mean(np.asarray(margins) < np.asarray(cuts)))
