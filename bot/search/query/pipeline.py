"""One query pipeline for every engine, so a question means the same whichever answers it."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, Protocol, TypeVar

from bot.search.query.analysis import MAX_QUERY_TERMS, Analyzer, analyze_query
from bot.search.query.gloss import Glossary, default_glossary, gloss_terms
from bot.search.query.names import NameTable
from bot.search.query.spelling import Correction, Lexicon, Speller, SpellingCorpus
from bot.search.query.syntax import ParsedQuery, parse_query
from bot.search.storage.columns import field_values

logger = logging.getLogger(__name__)

_NON_SPACE = re.compile(r"\S+")

MAX_QUERY_CHARS = 512
"""Questions are cut to this many characters before anything else: the bound on the work of
phrasing, spelling and analysis."""


@dataclass(frozen=True, slots=True)
class PreparedQuery:
    """A question as the engines search it."""

    typed: str
    """The question as given (a non-string is ""): what answers quote back."""
    text: str
    """What is searched: the cut question without request words, its typos fixed."""
    terms: tuple[str, ...]
    """The analysed terms of `text`; empty when nothing is searchable."""
    corrected: str = ""
    """`typed` with its typos fixed, to show the user; "" when no word was corrected."""
    parsed: ParsedQuery | None = None
    """The conditions every result must meet (None: a plain query)."""
    gloss: tuple[str, ...] = ()
    """A Chinese question's English gloss as terms (`gloss.gloss_terms`); () if none."""

    @property
    def scored(self) -> tuple[str, ...]:
        """The terms BM25 scores, coverage weighs and snippets mark: the gloss, else `terms`."""
        return self.gloss or self.terms

    @property
    def filtered(self) -> bool:
        """True if the query sets conditions (phrases, exclusions, OR, fields)."""
        return self.parsed is not None and not self.parsed.is_plain


def prepare_query(
    query: object,
    *,
    analyzer: Analyzer,
    speller: Speller | None = None,
    gloss: Callable[[str, Sequence[str]], tuple[str, ...]] | None = None,
    now: datetime | None = None,
    names: Callable[[str], str] | None = None,
) -> PreparedQuery:
    """`query` cut, without request words, names written as titles do, corrected and analysed.

    A None `names`, `speller` or `gloss` skips that step; a None `now` drops `day:today`.
    """
    typed = query if isinstance(query, str) else ""
    parsed = parse_query(typed[:MAX_QUERY_CHARS], now=now)
    # Only the free text is cleaned and corrected: a field's value ("author:Schmidhber")
    # is matched by its own rule, and a quoted phrase means exactly what is quoted.
    topic = topic_text(parsed.text)
    if names is not None:  # before the speller: a name's halves are not typos
        topic = names(topic)
    # Only words whose terms are searched are spell-checked: the bound on the speller's work.
    cut = term_cut(topic, analyzer)
    checked = speller.correct(topic[:cut]) if speller is not None else Correction(topic[:cut])
    text = checked.text + topic[cut:]
    terms = tuple(analyze_query(text, analyzer))
    return PreparedQuery(
        typed=typed,
        text=text,
        terms=terms,
        corrected=_shown_correction(typed, checked),
        parsed=None if parsed.is_plain else parsed,
        gloss=gloss(text, terms) if gloss is not None and terms else (),
    )


def term_cut(text: str, analyzer: Analyzer, limit: int = MAX_QUERY_TERMS) -> int:
    """Where the word bringing `text`'s (`limit` + 1)-th distinct term starts (else its end)."""
    seen: set[str] = set()
    for word in _NON_SPACE.finditer(text):
        seen.update(analyzer.analyze(word[0]))
        if len(seen) > limit:
            return word.start()
    return len(text)


def _shown_correction(typed: str, correction: Correction) -> str:
    """What to tell the user was searched: the question with its typos fixed, or ""."""
    if not correction.changes:
        return ""
    text = typed
    for wrong, used in correction.changes:
        text = text.replace(wrong, used, 1)
    return text


class QueryCorpus(SpellingCorpus, Protocol):
    """What the pipeline reads of an index: a speller's corpus and its analyzer."""

    analyzer: Analyzer


T = TypeVar("T")


class _Background(Generic[T]):
    """A value built once in a daemon thread, on request; None until it is ready."""

    def __init__(self, name: str, build: Callable[[], T | None]) -> None:
        self._name = name
        self._build = build
        self.value: T | None = None  # replaced in one assignment; a query reads it once
        self._lock = threading.Lock()
        self._started = False
        self._ready = threading.Event()

    def start(self) -> None:
        """Build it in a daemon thread, once; returns at once."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run, name=self._name, daemon=True).start()

    def load(self, timeout: float | None = None) -> T | None:
        """The value, built (or its build waited for) now; None if it failed or timed out."""
        self.start()
        self._ready.wait(timeout)
        return self.value

    def settle(self) -> T | None:
        """The value once a started build ends (None at once if none was started)."""
        with self._lock:
            started = self._started
        if started:
            self._ready.wait()
        return self.value

    def _run(self) -> None:
        try:
            self.value = self._build()
        finally:
            self._ready.set()


class QueryPipeline:
    """`prepare_query` for one corpus (one per index, shared by its retrievers).

    The speller and glossary are built in daemon threads on request; until then questions are
    searched as typed, so nothing waits for them.
    """

    def __init__(
        self,
        corpus: QueryCorpus,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        """Prepare questions for `corpus`; `clock` (aware) says when "today" is."""
        self._corpus = corpus
        self._clock = clock
        self._known_words: Callable[[], Lexicon] | None = None
        self._speller = _Background("speller", self._build_speller)
        self._names = _Background("names", self._build_names)
        self._glossary = _Background("glossary", default_glossary)

    def prepare(self, query: object) -> PreparedQuery:
        """`query` as every engine searches it; never raises on any input."""
        glossary = self._glossary.value
        return prepare_query(
            query,
            analyzer=self._corpus.analyzer,
            speller=self._speller.value,
            gloss=None if glossary is None else self._gloss_with(glossary),
            now=self._clock(),
            names=self._with_names,
        )

    def _build_names(self) -> NameTable:
        """The leading names of the corpus's titles (~40 ms a 6,628-paper programme)."""
        return NameTable(field_values(self._corpus.papers, "title"))

    def _with_names(self, text: str) -> str:
        """`text` with the names it spells written as titles write them (as typed until ready)."""
        table = self._names.value
        if table is None:
            return text
        corpus = self._corpus

        def known(word: str) -> bool:
            terms = corpus.analyzer.analyze(word)
            return bool(terms) and all(map(corpus.knows, terms))

        return table.with_names(text, known)

    def _gloss_with(self, glossary: Glossary) -> Callable[[str, Sequence[str]], tuple[str, ...]]:
        corpus = self._corpus
        return lambda text, terms: gloss_terms(glossary, text, terms, corpus.analyzer, corpus.knows)

    def start_speller(self) -> None:
        """Build the speller and the titles' names in daemon threads, once; returns at once."""
        self._names.start()
        self._speller.start()

    def load_speller(self, timeout: float | None = None) -> Speller | None:
        """The speller, built (or waited for) now; None if failed or timed out. Not on the loop."""
        self._names.load(timeout)
        return self._speller.load(timeout)

    def start_glossary(self) -> None:
        """Load the Chinese glossary in a daemon thread, once; returns at once."""
        self._glossary.start()

    def load_glossary(self, timeout: float | None = None) -> Glossary | None:
        """The glossary, loaded (or awaited) now; None if missing or timed out. Not on the loop."""
        return self._glossary.load(timeout)

    def settle_glossary(self) -> Glossary | None:
        """The glossary once its started load ends; None at once if nothing started it."""
        return self._glossary.settle()

    def use_known_words(self, known_words: Callable[[], Lexicon]) -> None:
        """Build the speller from `known_words` (the cache's lexicon); call before it starts."""
        self._known_words = known_words

    def _build_speller(self) -> Speller | None:
        """The speller; None, logged, on a failure: questions stay uncorrected."""
        try:
            return Speller(self._corpus, self._stored_lexicon())
        except Exception:  # a missing dictionary must not take search down
            logger.exception("Building the speller failed; questions are searched as typed")
            return None

    def _stored_lexicon(self) -> Lexicon | None:
        """The lexicon `use_known_words` gave; None (build one) when none or it is broken."""
        if self._known_words is None:
            return None
        try:
            return self._known_words()
        except (KeyError, ValueError, TypeError) as error:
            logger.warning("stored spelling lexicon not used (%r); building it", error)
            return None


FRAMING_PHRASES = (
    "can you",
    "could you",
    "would you",
    "will you",
    "please",
    "i'm looking for",
    "i am looking for",
    "im looking for",
    "looking for",
    "search for",
    "i want",
    "i'd like",
    "i would like",
    "i need",
    "show me",
    "find me",
    "give me",
    "tell me",
    "help me find",
    "recommend",
    "suggest",
    "latest",
    "recent",
    "newest",
    "any",
    "some",
    "papers",
    "paper",
    "articles",
    "article",
    "publications",
    "research on",
    "research about",
    "work on",
    "works on",
    "studies on",
    "what are",
    "are there",
    "is there",
    "find",
    "list",
)
"""Request words, matched as whole words (case-insensitive); longer phrases first."""

# "e.g." and "i.e." before the phrases: their letters must not survive as terms.
_ABBREVIATIONS = r"\b(?:e\.\s?g|i\.\s?e|etc|cf|viz)\.?(?=\W|$)"
_PHRASES = (r"\s+".join(map(re.escape, p.split())) for p in FRAMING_PHRASES)
_FRAMING = re.compile(
    _ABBREVIATIONS + "|" + "|".join(rf"\b{p}\b" for p in sorted(_PHRASES, key=len, reverse=True)),
    re.IGNORECASE,
)
_TOPIC_WORD = re.compile(r"[^\W_]{2,}")


def topic_text(query: str) -> str:
    """`query` without request words and Latin abbreviations; unchanged if no topic word is left."""
    stripped = _FRAMING.sub(" ", query)
    return stripped if _TOPIC_WORD.search(stripped) else query
