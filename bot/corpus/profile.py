"""What a corpus is, from its papers: its name ("ICML 2026", or none) and its frequent topics."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.corpus.model import venue_tier

MAX_NAMED_VENUES = 3  # more conferences make no name
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


@dataclass(frozen=True, slots=True)
class VenueYears:
    """One conference and the years of it a corpus holds."""

    venue: str
    first: int | None = None
    last: int | None = None

    def __str__(self) -> str:
        if self.first is None or self.last is None:
            return self.venue
        years = str(self.first) if self.first == self.last else f"{self.first}–{self.last}"
        return f"{self.venue} {years}"


@dataclass(frozen=True, slots=True)
class CorpusName:
    """What the served corpus is called; falsy when its papers do not say."""

    venues: tuple[VenueYears, ...] = ()
    """In order of their first year (then name)."""
    given: str = ""
    """CORPUS_NAME, for papers that do not name themselves."""

    def __bool__(self) -> bool:
        return bool(self.venues or self.given)

    @property
    def single(self) -> str:
        """ "ICML 2026" when it is one conference's one year (or a given name), else ""."""
        if self.given:
            return self.given
        if len(self.venues) == 1 and self.venues[0].first == self.venues[0].last:
            return str(self.venues[0])
        return ""


def _venue_and_year(venue: str, year: int | None) -> tuple[str, int | None]:
    """("ICML", 2026) of "ICML 2026 oral"; the paper's own year when the venue names none."""
    name = venue_tier(" ".join(venue.split()))[0]
    found = _YEAR.search(name)
    if found is not None:
        year = int(found[1])
        name = " ".join(_YEAR.sub(" ", name).split())
    return name.strip(" ,;:-–"), year


def corpus_name(papers: Iterable[tuple[str, int | None]], *, given: str = "") -> CorpusName:
    """The name of papers with these (venue, year) pairs: their conferences when at least half
    name one and there are at most `MAX_NAMED_VENUES`; else `given`."""
    years: dict[str, set[int]] = {}
    total = named = 0
    for venue, year in papers:
        total += 1
        name, year = _venue_and_year(venue, year) if venue else ("", None)
        if not name:
            continue
        named += 1
        years.setdefault(name, set()).update([year] if year is not None else [])
        if len(years) > MAX_NAMED_VENUES:
            return CorpusName(given=given)
    if not years or named * 2 < total:
        return CorpusName(given=given)
    spans = [
        VenueYears(name, min(found), max(found)) if found else VenueYears(name)
        for name, found in years.items()
    ]
    spans.sort(key=lambda span: (span.first or 0, span.venue.casefold()))
    return CorpusName(tuple(spans), given="")


MAX_TOPIC_CHARS = 60  # a longer keyword is a phrase, not a topic to ask about
MIN_TOPIC_PAPERS = 2
_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def _says(phrase: str) -> Callable[[str], bool]:
    """Whether a folded text has every word of `phrase`: a substring test, then a word search."""
    words = sorted(_words(phrase))
    patterns = [re.compile(rf"(?<!\w){re.escape(word)}(?!\w)") for word in words]
    return lambda folded: (
        all(w in folded for w in words) and all(pattern.search(folded) for pattern in patterns)
    )


def frequent_topics(
    papers: Iterable[tuple[str, Sequence[str], str]], *, count: int = 3
) -> tuple[str, ...]:
    """The `count` topics most papers have: each keyword, and the programme topic's last part
    ("Theory") where the text has its words (so asking it finds the paper); case folded, shown as
    most papers write it."""
    papers_with: Counter[str] = Counter()
    spellings: dict[str, Counter[str]] = {}
    says: dict[str, Callable[[str], bool]] = {}  # a programme has few topics
    for topic, keywords, text in papers:
        leaf = topic.rsplit("->", 1)[-1] if topic else ""
        if leaf and leaf not in says:
            says[leaf] = _says(leaf)
        if leaf and not says[leaf](text.casefold()):
            leaf = ""  # a topic the paper's words do not say: asking it would not find it
        seen: dict[str, str] = {}
        for phrase in (leaf, *keywords):
            shown = " ".join(phrase.split())
            if shown and len(shown) <= MAX_TOPIC_CHARS:
                seen.setdefault(shown.casefold(), shown)
        for key, shown in seen.items():
            papers_with[key] += 1
            spellings.setdefault(key, Counter())[shown] += 1
    ranked = sorted(papers_with.items(), key=lambda item: (-item[1], item[0]))
    chosen = [key for key, papers in ranked if papers >= MIN_TOPIC_PAPERS][:count]
    return tuple(spellings[key].most_common(1)[0][0] for key in chosen)
