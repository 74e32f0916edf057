"""One query pipeline for every engine: what a question becomes before anything searches it.

`QueryPipeline.prepare` takes what the user typed through, in order:

1. the cut to `MAX_QUERY_CHARS` (the only one: front ends pass questions whole);
2. the query syntax parsed (`syntax.parse_query`: phrases, `-word`, OR, `author:` …): its
   conditions are kept aside, its free text goes on;
3. chat phrasing removed from the free text (`phrasing.topic_text`: "can you recommend …");
4. typos corrected against the corpus (`spelling.Speller`), once the speller is ready;
5. the analysed terms of what is left.

The result, a `PreparedQuery`, is what `Index.search` (BM25 alone) and `HybridRetriever.search`
both search, so a question means the same thing whichever engine answers it: both rank only
the papers meeting its conditions (`filters.candidates`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.search.phrasing import topic_text
from bot.search.spelling import Correction, Lexicon, Speller, SpellingCorpus
from bot.search.syntax import ParsedQuery, parse_query

__all__ = ["MAX_QUERY_CHARS", "PreparedQuery", "QueryPipeline", "prepare_query"]

logger = logging.getLogger(__name__)

MAX_QUERY_CHARS = 512
"""Questions are cut to this many characters before anything else: the bound on the work of
phrasing, spelling and analysis, and the one cut every front end's question gets."""


@dataclass(frozen=True, slots=True)
class PreparedQuery:
    """A question as the engines search it."""

    typed: str
    """The question as given (a non-string is ""): what answers quote back."""
    text: str
    """What is searched: the cut question without request words, its typos fixed."""
    terms: tuple[str, ...]
    """The analysed terms of `text` (BM25's query); empty when nothing is searchable."""
    corrected: str = ""
    """`typed` with its typos fixed, to show the user; "" when no word was corrected."""
    parsed: ParsedQuery | None = None
    """The query's syntax: the conditions every result must meet (None: a plain query)."""

    @property
    def filtered(self) -> bool:
        """True if the query sets conditions (phrases, exclusions, OR, fields)."""
        return self.parsed is not None and not self.parsed.is_plain


def prepare_query(
    query: object, *, terms_of: Callable[[str], Sequence[str]], speller: Speller | None = None
) -> PreparedQuery:
    """`query` cut, without request words, corrected by `speller` (None: as typed), analysed."""
    typed = query if isinstance(query, str) else ""
    parsed = parse_query(typed[:MAX_QUERY_CHARS])
    # Only the free text is cleaned and corrected: a field's value ("author:Schmidhber")
    # is matched by its own rule, and a quoted phrase means exactly what is quoted.
    topic = topic_text(parsed.text)
    correction = speller.correct(topic) if speller is not None else Correction(topic)
    return PreparedQuery(
        typed=typed,
        text=correction.text,
        terms=tuple(terms_of(correction.text)),
        corrected=_shown_correction(typed, correction),
        parsed=None if parsed.is_plain else parsed,
    )


def _shown_correction(typed: str, correction: Correction) -> str:
    """What to tell the user was searched: the question with its typos fixed, or ""."""
    if not correction.changes:
        return ""
    text = typed
    for wrong, used in correction.changes:
        text = text.replace(wrong, used, 1)
    return text


class QueryPipeline:
    """`prepare_query` for one corpus, with its speller built off the event loop.

    One per index, shared by every retriever over it. The speller (the corpus's words and the
    English dictionary: ~0.3 s on the seeds) is built in a daemon thread once `start_speller`
    or `load_speller` asks for it; until it is ready questions are searched uncorrected, so
    nothing waits for it (an index nobody starts it for, as in most tests, never corrects).
    """

    def __init__(self, corpus: SpellingCorpus, terms_of: Callable[[str], Sequence[str]]) -> None:
        """Prepare questions for `corpus`, analysed by `terms_of`."""
        self._corpus = corpus
        self._terms_of = terms_of
        self._speller: Speller | None = None  # replaced in one assignment; read once a query
        self._lock = threading.Lock()
        self._started = False
        self._ready = threading.Event()
        self._known_words: Callable[[], Lexicon] | None = None

    @property
    def speller_ready(self) -> bool:
        """Whether typos are corrected yet."""
        return self._speller is not None

    def prepare(self, query: object) -> PreparedQuery:
        """`query` as every engine searches it; never raises on any input."""
        return prepare_query(query, terms_of=self._terms_of, speller=self._speller)

    def start_speller(self) -> None:
        """Build the speller in a daemon thread, once; returns at once."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._build, name="speller", daemon=True).start()

    def load_speller(self, timeout: float | None = None) -> Speller | None:
        """The speller, built (or its build waited for) now; None if it failed or timed out.

        For a worker thread or a one-shot command, never the event loop.
        """
        self.start_speller()
        self._ready.wait(timeout)
        return self._speller

    def use_known_words(self, known_words: Callable[[], Lexicon]) -> None:
        """Build the speller from the lexicon `known_words` returns (the index cache's), not
        from the papers: call before the speller starts."""
        self._known_words = known_words

    def attach_speller(self, speller: Speller) -> None:
        """Correct typos with `speller` from now on (a benchmark shares one)."""
        with self._lock:
            self._started = True
        self._speller = speller
        self._ready.set()

    def _build(self) -> None:
        """Build and attach the speller; a failure is logged, and questions stay uncorrected."""
        try:
            speller = Speller(self._corpus, self._stored_lexicon())
        except Exception:  # a missing dictionary must not take search down
            logger.exception("Building the speller failed; questions are searched as typed")
        else:
            if self._speller is None:  # an attached speller wins
                self._speller = speller
        finally:
            self._ready.set()

    def _stored_lexicon(self) -> Lexicon | None:
        """The lexicon given by `use_known_words`; None (build it) when none or it is broken."""
        if self._known_words is None:
            return None
        try:
            return self._known_words()
        except (KeyError, ValueError, TypeError) as error:
            logger.warning("stored spelling lexicon not used (%r); building it", error)
            return None
