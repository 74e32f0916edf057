"""Typo and spelling-variant correction of query words against the corpus's own words.

A real English word the corpus lacks is corrected only when the correction makes a phrase
the corpus uses with a neighbouring word ("Shapely values" -> "Shapley values").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import chain, islice
from typing import Any, Protocol

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA

from bot.corpus import Paper
from bot.search.query.analysis import STOPWORDS, EnglishAnalyzer

_WORD = re.compile(r"[^\W\d_]+")
_ASCII_WORD = re.compile(r"[a-z]+")

# British -> American endings (and back, for a corpus written in British English).
_VARIANTS = (
    ("isation", "ization"),
    ("isations", "izations"),
    ("ise", "ize"),
    ("ised", "ized"),
    ("ises", "izes"),
    ("ising", "izing"),
    ("iser", "izer"),
    ("isers", "izers"),
    ("yse", "yze"),
    ("ysed", "yzed"),
    ("ysing", "yzing"),
    ("our", "or"),
    ("ours", "ors"),
    ("oured", "ored"),
    ("ouring", "oring"),
    ("ence", "ense"),
    ("tre", "ter"),
    ("tres", "ters"),
    ("ogue", "og"),
    ("elled", "eled"),
    ("elling", "eling"),
)


def max_edits(word: str) -> int:
    """Edits allowed for a word of this length: 0 up to 4 letters, 1 up to 7, else 2."""
    return 0 if len(word) <= 4 else 1 if len(word) <= 7 else 2


@dataclass(frozen=True, slots=True)
class Correction:
    """A query with its unknown words replaced; `changes` lists (typed, used) pairs."""

    text: str
    changes: tuple[tuple[str, str], ...] = ()


class PairCounts:
    """How often each pair of adjacent words occurs: `counts[first, second]` (0 if never).

    One sorted int64 array of pair codes: far smaller than a `Counter` of string tuples.
    """

    def __init__(self, ids: Mapping[str, int], codes: np.ndarray, counts: np.ndarray) -> None:
        self._ids = ids
        self._codes = codes
        self._counts = counts

    def __getitem__(self, pair: tuple[str, str]) -> int:
        first, second = self._ids.get(pair[0]), self._ids.get(pair[1])
        if first is None or second is None:
            return 0
        code = first << 32 | second
        at = int(np.searchsorted(self._codes, code))
        found = at < len(self._codes) and int(self._codes[at]) == code
        return int(self._counts[at]) if found else 0


class _NearWords:
    """Words by length with their letters as bits, to skip words too far to be within k edits."""

    def __init__(self, words: Iterable[str]) -> None:
        ordered = sorted(words, key=len)
        lengths = np.fromiter(map(len, ordered), np.int64, len(ordered))
        self._words = np.array(ordered, dtype=object)
        self._lengths = lengths
        self._letters = _letter_bits(ordered, lengths)

    def within(self, word: str, edits: int) -> np.ndarray:
        """The words that may be within `edits` edits of the lower-case ASCII `word`."""
        lo, hi = np.searchsorted(self._lengths, (len(word) - edits, len(word) + edits + 1))
        differ = self._letters[lo:hi] ^ _letter_bits([word], np.array([len(word)]))[0]
        return self._words[lo:hi][_bit_counts(differ) <= 2 * edits]


def _letter_bits(words: Sequence[str], lengths: np.ndarray) -> np.ndarray:
    """Each lower-case ASCII word's letters as uint32 bits ("a": bit 0); `lengths`: theirs."""
    if not words:
        return np.zeros(0, dtype=np.uint32)
    chars = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8)
    bits = np.left_shift(np.uint32(1), (chars - ord("a")).astype(np.uint32))
    return np.bitwise_or.reduceat(bits, np.cumsum(lengths) - lengths)


def _bit_counts(x: np.ndarray) -> np.ndarray:
    """The 1 bits of each uint32, summed in parallel (numpy 1.x has no `bitwise_count`)."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    return ((x + (x >> 4)) & 0x0F0F0F0F) * 0x01010101 >> 24


@dataclass(frozen=True)
class Lexicon:
    """The corpus's lower-case ASCII words and adjacent word pairs, with counts."""

    words: Counter[str]
    pairs: PairCounts

    @cached_property
    def _near(self) -> _NearWords:
        return _NearWords(self.words)

    def closest(self, word: str) -> str | None:
        """The corpus word a lower-case `word` most likely means (ties: the commonest), or None."""
        for variant in spelling_variants(word):
            if variant in self.words:
                return variant
        limit = max_edits(word)
        if not limit or not word.isascii():
            return None
        near = self._near.within(word, limit).tolist()
        matches = process.extract(word, near, scorer=OSA.distance, score_cutoff=limit, limit=None)
        if not matches:
            return None
        best = min(distance for _, distance, _ in matches)
        return max(
            (candidate for candidate, distance, _ in matches if distance == best),
            key=lambda candidate: (self.words[candidate], candidate),
        )

    def to_state(self) -> dict[str, Any]:
        """Plain arrays for a cache, read back by `from_state` (far quicker than a rebuild)."""
        ids = self.pairs._ids  # every word, numbered in first-seen order, as `words` holds them
        return {
            "lexicon_words": list(ids),
            "lexicon_counts": np.fromiter(map(self.words.__getitem__, ids), np.int64, len(ids)),
            "lexicon_pairs": np.asarray(self.pairs._codes, dtype=np.int64),
            "lexicon_pair_counts": np.asarray(self.pairs._counts, dtype=np.int64),
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Lexicon:
        """The lexicon `to_state` stored; `KeyError`/`ValueError` if it is not there or broken."""
        words = list(state["lexicon_words"])
        counts = np.asarray(state["lexicon_counts"]).tolist()
        codes, pair_counts = state["lexicon_pairs"], state["lexicon_pair_counts"]
        if len(counts) != len(words) or len(codes) != len(pair_counts):
            raise ValueError("lexicon arrays do not fit")
        ids = dict(zip(words, range(len(words)), strict=True))
        return cls(
            Counter(dict(zip(words, counts, strict=True))), PairCounts(ids, codes, pair_counts)
        )


_LEXICON_CHUNK = 1024  # texts analysed at once: bounds the word lists held


def lexicon(texts: Iterable[str]) -> Lexicon:
    """The words (and adjacent word pairs) of `texts`: what a typo may mean."""
    words: Counter[str] = Counter()
    ids: dict[str, int] = {}
    codes: list[np.ndarray] = []
    iterator = iter(texts)
    while chunk := list(islice(iterator, _LEXICON_CHUNK)):
        found = [_ASCII_WORD.findall(text.lower()) for text in chunk]
        flat = list(chain.from_iterable(found))
        words.update(flat)
        for word in dict.fromkeys(flat):
            ids.setdefault(word, len(ids))
        row = np.fromiter(map(ids.__getitem__, flat), np.int64, len(flat))
        pairs = row[:-1] << 32 | row[1:]
        # A pair across two texts is no phrase: drop the one after each text's last word.
        ends = np.cumsum(np.fromiter(map(len, found), np.int64, len(found)))[:-1] - 1
        keep = np.ones(len(pairs), dtype=bool)
        keep[ends[(ends >= 0) & (ends < len(pairs))]] = False
        codes.append(pairs[keep])
    unique, counts = np.unique(np.concatenate(codes or [np.zeros(0, np.int64)]), return_counts=True)
    return Lexicon(words, PairCounts(ids, unique, counts))


def papers_lexicon(papers: Iterable[Paper]) -> Lexicon:
    """The lexicon of papers' titles and abstracts: what a `Speller` corrects against."""
    return lexicon(f"{p.title}\n{p.abstract}" for p in papers)


@cache  # one dictionary for every corpus: each index's speller shares it
def english_words() -> Callable[[str], bool]:
    """Whether a lower-case word is in pyspellchecker's English dictionary (loaded once)."""
    from spellchecker import SpellChecker

    frequency = SpellChecker(distance=1).word_frequency
    return lambda word: frequency[word] > 0


def spelling_variants(word: str) -> list[str]:
    """British/American spellings of a lower-case word (not the word itself)."""
    found = []
    for british, american in _VARIANTS:
        for old, new in ((british, american), (american, british)):
            if word.endswith(old) and len(word) > len(old) + 1:
                found.append(word[: -len(old)] + new)
    return list(dict.fromkeys(found))


def correct_query(
    query: str,
    lexicon: Lexicon,
    *,
    known: Callable[[str], bool] | None = None,
    is_word: Callable[[str], bool] | None = None,
    same: Callable[[str, str], bool] | None = None,
) -> Correction:
    """`query` with each word the corpus lacks replaced by `Lexicon.closest`, when trusted.

    An English or `known` word is replaced only where the result makes a corpus phrase with a
    neighbouring word; same-stem replacements are not corrections.
    """
    matches = list(_WORD.finditer(query))
    lowered = [m.group(0).lower() for m in matches]
    looked_up: dict[str, str | None] = {}
    pieces: list[str] = []
    changes: list[tuple[str, str]] = []
    end = 0
    for i, match in enumerate(matches):
        typed, word = match.group(0), lowered[i]
        pieces.append(query[end : match.start()])
        end = match.end()
        if word not in looked_up:
            looked_up[word] = None if word in lexicon.words else lexicon.closest(word)
        found = looked_up[word]
        if (
            found is not None
            and found not in spelling_variants(word)
            and ((is_word is not None and is_word(word)) or (known is not None and known(word)))
            and not _in_phrase(found, lowered[i - 1] if i else "", lowered[i + 1 : i + 2], lexicon)
        ):
            found = None  # a real word: only a corpus phrase says the user meant another
        if found is None or found == word or (same is not None and same(word, found)):
            pieces.append(typed)
        else:
            pieces.append(found)
            changes.append((typed, found))
    pieces.append(query[end:])
    return Correction("".join(pieces), tuple(changes))


def _in_phrase(word: str, before: str, after: list[str], lexicon: Lexicon) -> bool:
    """Whether `word` next to a neighbouring content word is a pair the corpus uses."""
    following = after[0] if after else ""
    return (before not in STOPWORDS and lexicon.pairs[before, word] > 0) or (
        following not in STOPWORDS and lexicon.pairs[word, following] > 0
    )


class SpellingCorpus(Protocol):
    """What a `Speller` reads of an index: its papers and whether it holds a term."""

    papers: Sequence[Paper]

    def knows(self, term: str) -> bool:
        """Whether any paper holds this analysed term."""
        ...


class Speller:
    """Corrects a question's words the corpus does not know, against the corpus's words."""

    def __init__(self, corpus: SpellingCorpus, known_words: Lexicon | None = None) -> None:
        """The corpus's words (or the quicker `known_words`); the dictionary loads on first need."""
        self._corpus = corpus
        self._lexicon = known_words if known_words is not None else papers_lexicon(corpus.papers)
        self._analyze = EnglishAnalyzer(max_cache=10_000).analyze

    def correct(self, query: str) -> Correction:
        """`query` with unknown words replaced by the corpus words they most likely mean."""
        analyze = self._analyze
        return correct_query(
            query,
            self._lexicon,
            known=lambda word: all(self._corpus.knows(t) for t in analyze(word)),
            is_word=lambda word: english_words()(word),
            same=lambda a, b: analyze(a) == analyze(b),
        )
