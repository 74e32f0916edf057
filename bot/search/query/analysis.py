"""Analyzers turn text into index and query terms; each has a `version` caches key on.

Nothing here raises on any string: emoji and control characters are separators, lone
surrogates are dropped.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import chain, compress, repeat
from operator import is_
from typing import Protocol

import Stemmer

ANALYZER_VERSION = "3"
"""`EnglishAnalyzer.version`. Bump when `analyze` changes what it returns: caches key on it."""

MAX_QUERY_TERMS = 32
"""A query keeps its first this-many distinct terms (repeats of them kept): scoring, coverage
and snippets cost per distinct term. First-seen, as the character cut: what is typed first
counts."""

MAX_TERM_CHARS = 64
"""Longer terms (hashes, base64, runaway compounds) are dropped."""

_SPANS_CACHED_CHARS = 100
"""`analyze_spans` remembers the spans of texts up to this long (words, not sentences)."""

# NLTK's English stopword list (nltk_data corpora/stopwords/english, 179 words),
# apostrophes removed the way the tokenizer removes them ("don't" -> "dont").
_NLTK_ENGLISH_STOPWORDS = """
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
yourselves he him his himself she she's her hers herself it it's its itself they them their
theirs themselves what which who whom this that that'll these those am is are was were be
been being have has had having do does did doing a an the and but if or because as until
while of at by for with about against between into through during before after above below
to from up down in out on off over under again further then once here there when where why
how all any both each few more most other some such no nor not only own same so than too
very s t can will just don don't should should've now d ll m o re ve y ain aren aren't
couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't
ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't
weren weren't won won't wouldn wouldn't
"""
STOPWORDS: frozenset[str] = frozenset(
    w.replace("'", "") for w in _NLTK_ENGLISH_STOPWORDS.split()
) | frozenset(w.split("'")[0] for w in _NLTK_ENGLISH_STOPWORDS.split())
"""Surface forms (before stemming) that are never indexed."""

# URLs and LaTeX commands carry no searchable words of their own; each becomes a separator.
_MARKUP = re.compile(r"""(?:https?://|www\.)[^\s<>"'(){}\[\]]+|\\[A-Za-z]+|\\.""")

# One character in, one character out, so spans stay valid.
_FOLD: dict[int, int | None] = {
    **dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2212\ufe63\uff0d"), ord("-")),
    **dict.fromkeys(map(ord, "\u2014\u2015"), ord(" ")),  # em dash: punctuation, not a join
    **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032"), ord("'")),
    **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u2033"), ord('"')),
    ord("\u0130"): ord("I"),  # "İ".casefold() adds a combining dot that would split the word
    **dict.fromkeys(range(0xD800, 0xE000), ord(" ")),  # lone surrogates cannot be encoded
}

_W = r"[^\W_]"  # a letter or digit (Unicode), not the underscore
# Inside a word: math glue (R$^3$), a decimal point, a thousands comma, an apostrophe.
_GLUE = rf"(?:[$^{{}}]+|(?<=\d)\.(?=\d)|(?<=\d),(?=\d{{3}}(?!\d))|(?<={_W})'(?={_W}))"
_PART = re.compile(rf"{_W}+(?:{_GLUE}{_W}+)*")
# A compound: parts joined by a hyphen or a slash (glue may surround the joiner).
_COMPOUND = re.compile(rf"{_PART.pattern}(?:[$^{{}}]*[-/][$^{{}}]*{_PART.pattern})*")
# One word wrapped in punctuation that can never glue to it ("(ArbNN),", "models.").
_SIMPLE_WORD = re.compile(r"""[(\["']*({_W}+)[)\]"'.,;:!?]*""".replace("{_W}", _W))
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_DROP_GLUE = str.maketrans("", "", "$^{},")


_ACRONYM_PLURAL = re.compile(r"[A-Z][A-Z0-9]*[A-Z]s")


def _word(part: str) -> str:
    """One word as matched, casefolded; an acronym's plural "s" ("LLMs", "CEs") dropped."""
    if part[-1] == "s" and _ACRONYM_PLURAL.fullmatch(part):
        part = part[:-1]
    return part.casefold()


def _fold(text: str) -> str:
    """Markup to separators and the dash/quote folds; keeps every character position."""
    if "\\" in text or (":" in text and "://" in text) or "www." in text:  # ":": one memchr
        text = _MARKUP.sub(lambda m: " " * len(m.group()), text)
    return text if text.isascii() else text.translate(_FOLD)


class Analyzer(Protocol):
    """Text to terms for one language; the same analyzer must index and query."""

    language: str
    """ISO 639-1 code of the language it analyses ("en")."""
    version: str
    """Changes whenever `analyze` may return other terms (index caches key on it)."""

    def analyze(self, text: str) -> list[str]:
        """Index/query terms of `text`, in order."""
        ...

    def analyze_spans(self, text: str) -> list[tuple[str, int, int]]:
        """Terms of `text` with their `[start, end)` character spans in `text`."""
        ...


class EnglishAnalyzer:
    """The English pipeline with a bounded cache of each whitespace-separated chunk's terms.

    Thread-safe: a thread emptying a full cache costs another a recomputation, never an error.
    """

    __slots__ = ("_cache", "_max_cache", "_spans", "_stemmer", "_stems")

    language = "en"
    version = ANALYZER_VERSION

    def __init__(self, *, max_cache: int = 300_000) -> None:
        self._stemmer = Stemmer.Stemmer("english")
        self._stemmer.maxCacheSize = 0  # ours below; PyStemmer's own purges slowly when full
        self._stems: dict[str, str] = {}
        self._cache: dict[str, tuple[str, ...]] = {}
        self._spans: dict[str, tuple[tuple[str, int, int], ...]] = {}
        self._max_cache = max_cache

    def analyze(self, text: str) -> list[str]:
        """Index/query terms of `text`, in order (compound parts, then the joined form)."""
        return list(chain.from_iterable(self.terms_of_chunks(_fold(text).split())))

    def fold(self, text: str) -> str:
        """`text` with markup and dashes/quotes folded as analysis sees it (same positions)."""
        return _fold(text)

    def chunk_terms(self, text: str) -> tuple[str, list[str], list[tuple[str, ...]]]:
        """`text` folded (same positions), its chunks and their terms, in one cached pass."""
        folded = _fold(text)
        chunks = folded.split()
        return folded, chunks, self.terms_of_chunks(chunks)

    def terms_of_chunks(self, chunks: list[str]) -> list[tuple[str, ...]]:
        """Each chunk's terms, through the cache: chunks of folded text (`chunk_terms`'s)."""
        cache = self._cache
        found = list(map(cache.get, chunks))
        if None in found:
            unknown = set(compress(chunks, map(is_, found, repeat(None))))
            missing = {chunk: self._chunk_terms(chunk) for chunk in unknown}
            if len(cache) + len(missing) > self._max_cache:
                cache.clear()
                self._stems.clear()
            cache.update(missing)
            # From `missing`, not `cache`: another thread may have emptied the cache meanwhile.
            found = list(map(missing.get, chunks, found))  # a chunk's terms, else as found
        return found  # type: ignore[return-value]

    def _chunk_terms(self, chunk: str) -> tuple[str, ...]:
        """Terms of one whitespace-free chunk of folded text."""
        if not chunk.isascii() and not unicodedata.is_normalized("NFKC", chunk):
            chunk = unicodedata.normalize("NFKC", chunk)
        simple = _SIMPLE_WORD.fullmatch(chunk)
        if simple:  # the common case, same result as below: one word in punctuation
            word = _word(simple[1])
            stem = "" if word in STOPWORDS else self._stem(word)
            return (stem,) if stem and len(stem) <= MAX_TERM_CHARS else ()
        terms: list[str] = []
        for compound in _COMPOUND.findall(chunk):
            terms.extend(self._compound_terms([_word(p) for p in _PART.findall(compound)]))
        return tuple(terms)

    def analyze_spans(self, text: str) -> list[tuple[str, int, int]]:
        """Terms of `text` with their `[start, end)` spans in it (short texts cached)."""
        if len(text) > _SPANS_CACHED_CHARS:
            return self._analyze_spans(text)
        spans = self._spans.get(text)
        if spans is None:
            spans = tuple(self._analyze_spans(text))
            if len(self._spans) >= self._max_cache:
                self._spans.clear()
            self._spans[text] = spans
        return list(spans)

    def _analyze_spans(self, text: str) -> list[tuple[str, int, int]]:
        """`analyze_spans`, uncached."""
        folded = _fold(text)
        if folded.isascii():
            simple = _SIMPLE_WORD.fullmatch(folded)
            if simple:  # one word in punctuation (a snippet's marks): its terms are cached
                start, end = simple.span(1)
                return [(term, start, end) for term in self.terms_of_chunks([folded])[0]]
        if folded.isascii() or unicodedata.is_normalized("NFKC", folded):
            normal, starts, ends = folded, None, None
        else:
            normal, starts, ends = _normalize_with_offsets(folded)
        spans: list[tuple[str, int, int]] = []
        for match in _COMPOUND.finditer(normal):
            parts = [(_word(p.group()), p.start(), p.end()) for p in _PART.finditer(match[0])]
            base = match.start()
            produced = 0
            for word, start, end in parts:
                for term in self._compound_terms([word]):
                    spans.append((term, base + start, base + end))
                    produced += 1
            if len(parts) > 1:
                whole = self._compound_terms([word for word, _, _ in parts])
                if len(whole) > produced:  # the joined form ("firstorder") spans the compound
                    spans.append((whole[-1], match.start(), match.end()))
        if starts is None or ends is None:
            return spans
        return [(term, starts[s], ends[e - 1]) for term, s, e in spans]

    def _compound_terms(self, parts: list[str]) -> tuple[str, ...]:
        """Stems of a compound's (casefolded) parts, then of the joined form if it is one."""
        words = [_clean_part(p) for p in parts]
        terms = [self._stem(w) for w in words if w and w not in STOPWORDS]
        if len(words) > 1 and not all(w.isdigit() for w in words):
            joined = "".join(words)
            if joined not in STOPWORDS:
                terms.append(self._stem(joined))
        return tuple(t for t in terms if len(t) <= MAX_TERM_CHARS)

    def _stem(self, word: str) -> str:
        """Snowball English stem; numbers and words with digits are kept as they are."""
        stem = self._stems.get(word)
        if stem is None:
            stem = word if word.isdigit() or "." in word else self._stemmer.stemWord(word)
            self._stems[word] = stem
        return stem


def _clean_part(part: str) -> str:
    """Drop math glue and apostrophes from one word (a possessive 's goes entirely)."""
    if "'" in part:
        if part.endswith("'s"):
            part = part[:-2]
        part = part.replace("'", "")
    return part.translate(_DROP_GLUE)


def _normalize_with_offsets(text: str) -> tuple[str, list[int], list[int]]:
    """NFKC per base character + its combining marks, mapping each output char to its source."""
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    done = 0
    for run in _NON_ASCII.finditer(text):
        i, n = run.start(), run.end()
        if i > done and unicodedata.combining(text[i]):
            i -= 1  # a combining mark composes with the character before it
        pieces.append(text[done:i])
        starts.extend(range(done, i))
        ends.extend(range(done + 1, i + 1))
        while i < n:
            j = i + 1
            while j < len(text) and unicodedata.combining(text[j]):
                j += 1
            piece = unicodedata.normalize("NFKC", text[i:j])
            pieces.append(piece)
            starts.extend([i] * len(piece))
            ends.extend([j] * len(piece))
            i = j
        done = i
    pieces.append(text[done:])
    starts.extend(range(done, len(text)))
    ends.extend(range(done + 1, len(text) + 1))
    return "".join(pieces), starts, ends


def analyze_query(query: str, analyzer: Analyzer) -> list[str]:
    """Terms of a query, cut to its first `MAX_QUERY_TERMS` distinct."""
    return first_distinct(analyzer.analyze(query))


def first_distinct(terms: list[str], limit: int = MAX_QUERY_TERMS) -> list[str]:
    """`terms` cut to their first `limit` distinct ones (in order, repeats of them kept)."""
    distinct = dict.fromkeys(terms)
    if len(distinct) <= limit:
        return terms
    kept = set(list(distinct)[:limit])
    return [term for term in terms if term in kept]
