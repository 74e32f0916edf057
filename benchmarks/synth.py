"""Deterministic synthetic ML-abstract corpora for the scale benchmarks.

Vocabulary and word frequencies come from the real seed abstracts in `corpus/*.txt`:
the seed words, ranked by their seed counts, head a Zipf–Mandelbrot rank-frequency
curve whose exponent is fitted to the seeds. The vocabulary grows with corpus size as
real text does (Heaps' law V = K·T^β, K fitted to the seeds, β = 0.55): the words past
the seed vocabulary are new but plausible, made by recombining seed word stems and
endings, hyphenated seed compounds and method-style names. Each abstract (~180 words)
repeats a few topic words and, like ~60% of the seeds, names its method.

`common.corpus_file(n)` writes one to benchmarks/results/ once; `distinct_queries` gives its
questions.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.corpus import Paper
from testkit.paths import SEED_CORPUS

SEED_DIR = SEED_CORPUS
HEAPS_BETA = 0.55  # typical for English text (Heaps 1978; 0.4-0.6 in the literature)
ZIPF_Q = 2.7  # Mandelbrot's offset: flattens the top ranks as in real text
MEAN_WORDS = 180  # words per abstract (the realistic corpus)
NAMED_METHOD_SHARE = 0.6  # share of seed abstracts that name their method
TOPIC_SHARE = 0.10  # share of an abstract's words that repeat its few topic words
REUSE_SHARE = 0.30  # share of words copied from earlier in the same abstract (burstiness);
# with it, distinct terms per abstract match the seeds (~0.57 per word, see README)
QUERY_MIN_RANK = 30  # queries skip the ~30 most frequent words (function words)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")
_VOWELS = frozenset("aeiouy")
_SUFFIXES = (
    "ation", "ization", "ity", "ness", "ive", "ing", "er", "ers", "former", "net", "ized",
    "able", "al", "ics", "ism", "ology", "ment", "ed", "ous", "ity", "ial", "ence",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class SynthCorpus:
    """Synthetic papers plus the distribution they were drawn from."""

    papers: tuple[Paper, ...]
    vocabulary: tuple[str, ...]
    """Surface forms by Zipf rank (most frequent first); seed words, then generated ones."""
    probabilities: np.ndarray
    """Probability of each vocabulary rank in running text (sums to 1)."""
    seed_words: int
    """How many leading vocabulary entries are real seed words."""
    tokens: int
    """Words generated in all abstracts."""


def seed_abstracts(seed_dir: Path = SEED_DIR) -> list[str]:
    """The seed abstracts: each `*.txt` file's blank-line-separated blocks after its header."""
    abstracts: list[str] = []
    for path in sorted(seed_dir.glob("*.txt")):
        text = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
        _header, _, body = text.partition("\n")
        abstracts += [block.strip() for block in re.split(r"\n\s*\n", body) if block.strip()]
    return abstracts


def _surface_forms(abstracts: Iterable[str]) -> tuple[Counter[str], dict[str, str]]:
    """Counts of case-folded seed words and each word's most common spelling."""
    counts: Counter[str] = Counter()
    spellings: dict[str, Counter[str]] = {}
    for abstract in abstracts:
        for word in _WORD.findall(abstract):
            key = word.lower()
            counts[key] += 1
            spellings.setdefault(key, Counter())[word] += 1
    return counts, {key: forms.most_common(1)[0][0] for key, forms in spellings.items()}


def _fit_zipf_exponent(counts: Sequence[int]) -> float:
    """Least-squares slope of log count against log(rank + q) over the seeds' ranks."""
    ranks = np.arange(1, len(counts) + 1, dtype=np.float64)
    x = np.log(ranks + ZIPF_Q)
    y = np.log(np.asarray(counts, dtype=np.float64))
    slope = np.polyfit(x, y, 1)[0]
    return float(-slope)


def _split_stem(word: str) -> tuple[str, str]:
    """A word cut after its first vowel-consonant boundary past 3 letters: (stem, ending)."""
    for i in range(3, len(word) - 2):
        if word[i - 1] in _VOWELS and word[i] not in _VOWELS:
            return word[: i + 1], word[i + 1 :]
    return word, ""


class _WordMaker:
    """Makes new, plausible, never-repeated ML-ish words from seed words."""

    def __init__(self, seed_words: Sequence[str], taken: set[str], rng: np.random.Generator):
        content = [w for w in seed_words if len(w) >= 6 and w.isalpha() and w.islower()]
        parts = [_split_stem(w) for w in content]
        self._stems = [s for s, _ in parts]
        self._endings = [e for _, e in parts if len(e) >= 2] + list(_SUFFIXES)
        self._content = content
        self._taken = taken
        self._rng = rng

    def _candidate(self) -> str:
        rng = self._rng
        kind = rng.random()
        if kind < 0.75:
            stem = self._stems[rng.integers(len(self._stems))]
            ending = self._endings[rng.integers(len(self._endings))]
            return stem + ending
        if kind < 0.95:
            a, b = rng.integers(len(self._content), size=2)
            return f"{self._content[a]}-{self._content[b]}"
        return self.name()

    def word(self) -> str:
        """A word not made or seen before."""
        while True:
            word = self._candidate()
            if word.lower() not in self._taken:
                self._taken.add(word.lower())
                return word

    def name(self) -> str:
        """A method-style name such as `GraFormer`, `SpaRL-3` or `ArbNN` (may repeat)."""
        rng = self._rng
        a = self._stems[rng.integers(len(self._stems))][:4].capitalize()
        b = self._stems[rng.integers(len(self._stems))][:3].capitalize()
        tail = ("", "Net", "Former", "NN", "RL", "GPT", "Bench", "-2", "-3", "++", "X")
        name = a + b + tail[rng.integers(len(tail))]
        return name.replace("++", "Plus")

    def unique_name(self) -> str:
        """A method name no other paper uses."""
        while True:
            name = self.name()
            if name.lower() not in self._taken:
                self._taken.add(name.lower())
                return name


@dataclass(frozen=True, slots=True)
class _Distribution:
    """Everything about a corpus of a given size that comes before its words are drawn."""

    vocabulary: list[str]
    probabilities: np.ndarray
    cdf: np.ndarray
    seed_words: int
    lengths: np.ndarray
    maker: _WordMaker


def _distribution(n_docs: int, rng: np.random.Generator, seed_dir: Path) -> _Distribution:
    """Abstract lengths, the vocabulary (Heaps-sized) and its Zipf–Mandelbrot probabilities."""
    counts, spelling = _surface_forms(seed_abstracts(seed_dir))
    seed_tokens = sum(counts.values())
    # Ties in the seed counts are broken by a seeded shuffle, then ranked by count.
    keys = sorted(counts)
    order = rng.permutation(len(keys))
    keys = sorted((keys[i] for i in order), key=lambda k: -counts[k])
    zipf_s = _fit_zipf_exponent([counts[k] for k in keys])
    heaps_k = len(keys) / seed_tokens**HEAPS_BETA

    lengths = np.clip(rng.normal(MEAN_WORDS, 40, size=n_docs), 60, 350).astype(np.int64)
    total = int(lengths.sum())
    vocab_size = max(len(keys), math.ceil(heaps_k * total**HEAPS_BETA))
    maker = _WordMaker(keys, set(keys), rng)
    vocabulary = [spelling[k] for k in keys] + [maker.word() for _ in range(vocab_size - len(keys))]
    # Seed words keep their seed frequencies; the generated words, Zipf-distributed past
    # the seed ranks, share the Good–Turing mass of unseen words (seed hapaxes / tokens).
    weights = (np.arange(1, vocab_size + 1, dtype=np.float64) + ZIPF_Q) ** -zipf_s
    tail_mass = sum(1 for k in keys if counts[k] == 1) / seed_tokens
    seed_share = np.array([counts[k] for k in keys], dtype=np.float64) / seed_tokens
    tail = weights[len(keys) :] / max(weights[len(keys) :].sum(), 1e-300)
    probabilities = np.concatenate([seed_share * (1 - tail_mass), tail * tail_mass])
    cdf = np.cumsum(probabilities)
    cdf[-1] = 1.0
    return _Distribution(vocabulary, probabilities, cdf, len(keys), lengths, maker)


def generate(n_docs: int, *, seed: int = 0, seed_dir: Path = SEED_DIR) -> SynthCorpus:
    """`n_docs` synthetic papers; the same arguments always give the same corpus."""
    rng = np.random.default_rng(seed)
    dist = _distribution(n_docs, rng, seed_dir)
    vocabulary, cdf, lengths, maker = dist.vocabulary, dist.cdf, dist.lengths, dist.maker
    total = int(lengths.sum())
    ranks = np.searchsorted(cdf, rng.random(total), side="right").astype(np.int32)
    # Topic words: content words (past the top 150 ranks) each abstract keeps returning to.
    content_cdf = cdf[150:] - cdf[149]
    content_cdf /= content_cdf[-1]
    words = np.array(vocabulary, dtype=object)
    papers: list[Paper] = []
    start = 0
    for i, length in enumerate(lengths.tolist()):
        doc = ranks[start : start + length]
        start += length
        topics = 150 + np.searchsorted(content_cdf, rng.random(3), side="right")
        repeat = rng.random(length) < TOPIC_SHARE
        doc = np.where(repeat, topics[rng.integers(3, size=length)], doc)
        positions = np.arange(length)
        source = (rng.random(length) * positions).astype(np.int64)
        doc = np.where((rng.random(length) < REUSE_SHARE) & (positions > 0), doc[source], doc)
        tokens = words[doc].tolist()
        name = maker.unique_name() if rng.random() < NAMED_METHOD_SHARE else ""
        if name:
            for at in rng.integers(length, size=int(rng.integers(2, 5))).tolist():
                tokens[at] = name
        papers.append(
            Paper(
                id=f"s{i}",
                title=_title(name, words[doc[doc >= 150]], rng),
                abstract=_sentences(tokens, rng),
            )
        )
    return SynthCorpus(
        papers=tuple(papers),
        vocabulary=tuple(vocabulary),
        probabilities=dist.probabilities,
        seed_words=dist.seed_words,
        tokens=total,
    )


def _title(name: str, content: np.ndarray, rng: np.random.Generator) -> str:
    """A title of 5-9 of the abstract's content words, led by its method name if it has one."""
    picks = rng.choice(content, size=min(len(content), int(rng.integers(5, 10))), replace=False)
    body = " ".join(w[:1].upper() + w[1:] for w in picks.tolist())
    return f"{name}: {body}" if name else body


def _sentences(tokens: list[str], rng: np.random.Generator) -> str:
    """Words cut into capitalised sentences of 12-30 words."""
    out: list[str] = []
    i = 0
    cuts = rng.integers(12, 31, size=len(tokens) // 12 + 1).tolist()
    for cut in cuts:
        if i >= len(tokens):
            break
        sentence = tokens[i : i + cut]
        i += cut
        first = sentence[0]
        sentence[0] = first[:1].upper() + first[1:]
        out.append(" ".join(sentence) + ".")
    return " ".join(out)


def queries_for(n_docs: int, n: int = 200, *, seed: int = 0, query_seed: int = 1) -> list[str]:
    """The queries `queries` gives for `generate(n_docs, seed=seed)`, without generating it."""
    dist = _distribution(n_docs, np.random.default_rng(seed), SEED_DIR)
    return _queries(dist.vocabulary, dist.probabilities, n, query_seed)


def distinct_queries(n_docs: int, n: int) -> list[str]:
    """`n` different queries for `generate(n_docs)`, drawn as `queries_for` draws them (a
    user rarely asks the same question twice, so no analysis is cached for a later one)."""
    drawn = queries_for(n_docs, 3 * n)
    out = list(dict.fromkeys(drawn))[:n]
    if len(out) < n:
        raise ValueError(f"only {len(out)} distinct queries among {len(drawn)}")
    return out


def queries(corpus: SynthCorpus, n: int = 200, *, seed: int = 1) -> list[str]:
    """`n` queries of 1-5 words, each drawn by frequency from the non-function-word vocabulary."""
    return _queries(corpus.vocabulary, corpus.probabilities, n, seed)


def _queries(vocabulary: Sequence[str], probabilities: np.ndarray, n: int, seed: int) -> list[str]:
    """`n` queries of 1-5 words drawn by frequency from ranks past `QUERY_MIN_RANK`."""
    rng = np.random.default_rng(seed)
    probs = probabilities[QUERY_MIN_RANK:]
    cdf = np.cumsum(probs / probs.sum())
    cdf[-1] = 1.0
    out = []
    for _ in range(n):
        picks = QUERY_MIN_RANK + np.searchsorted(
            cdf, rng.random(int(rng.integers(1, 6))), side="right"
        )
        out.append(" ".join(vocabulary[int(r)].lower() for r in picks))
    return out


def write_jsonl(papers: Iterable[Paper], path: Path) -> None:
    """Write papers as a JSON Lines corpus (`id`, `title`, `abstract`) that the loader reads."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for paper in papers:
            record = {"id": paper.id, "title": paper.title, "abstract": paper.abstract}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    tmp.replace(path)
