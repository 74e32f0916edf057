"""Author names: parse the shapes sources use, show them compactly, match them loosely."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

MAX_SHOWN = 2  # "A. Smith, B. Jones et al.": two names say who without filling the answer
_AND = re.compile(r"\s+(?:and|&)\s+|\s*;\s*", re.IGNORECASE)
_COMMA = re.compile(r"\s*,\s*")
_OTHERS = frozenset({"others", "et al.", "et al", "and others"})
_NAME_KEYS = ("name", "fullname", "full_name", "display_name", "literal")
_GIVEN_KEYS = ("given", "given_name", "first", "first_name", "firstname", "forename")
_FAMILY_KEYS = ("family", "family_name", "last", "last_name", "lastname", "surname")
# Name suffixes stay with the surname before them, they are no given name ("Jones, Jr.").
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
# Lower-case family-name particles: part of the surname, not given names.
PARTICLES = frozenset({
    "van", "von", "de", "der", "den", "da", "di", "du", "le", "la", "del", "della", "dos",
    "das", "ter", "ten", "bin", "al", "el", "zu",
})  # fmt: skip
# Letters NFKD does not decompose, spelled as people without them type them.
_LETTERS = str.maketrans({"ø": "o", "ß": "ss", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe",
                          "ł": "l", "đ": "d", "ı": "i", "ħ": "h", "ŧ": "t", "ĸ": "k"})  # fmt: skip
# German and Nordic transliterations (ü→ue, ø→oe, æ→ae): folded back to the bare vowel.
_DIGRAPHS = re.compile(r"(?<=[a-z])[aou]e")
# Equal-contribution marks, footnote symbols and superscript affiliations in author lists.
_MARKS = re.compile(r"[*∗†‡§¶‖⁎★☆✝#]+|[\u00b9\u00b2\u00b3\u2070-\u2079]+|\^(?:\{[^}]*\}|[\w*]+)")
_MAX_NAME_CHARS = 60  # longer questions are about something, not someone
MAX_AUTHOR_CHARS = 128  # the longest name /author looks up (real ones are under 80)
_QUERY_NAME = re.compile(r"[^\W\d_][\w.'’-]*(?:\s*,?\s+[^\W\d_][\w.'’-]*){0,3}\.?")


@lru_cache(maxsize=1)
def _latex() -> LatexNodes2Text:
    return LatexNodes2Text()


def _tidy(name: str) -> str:
    """One line, single spaces, LaTeX accents decoded, no braces, no footnote marks."""
    if "\\" in name:
        name = _latex().latex_to_text(name)
    name = _MARKS.sub("", name).replace("{", "").replace("}", "")
    return " ".join(name.split()).strip(" ,;")


def _flip(name: str) -> str:
    """`Smith, John` → `John Smith` (BibTeX and library order); other names unchanged."""
    parts = [part for part in _COMMA.split(name) if part]
    if len(parts) == 2 and parts[1].lower() not in _SUFFIXES:
        return f"{parts[1]} {parts[0]}"
    if len(parts) == 3 and parts[1].lower() in _SUFFIXES:  # "Jones, Jr., Bob"
        return f"{parts[2]} {parts[0]} {parts[1]}"
    return " ".join(parts)


def _split_string(text: str) -> list[str]:
    """Split one author string: BibTeX `Last, First and …` or `A. Smith, B. Jones and C. Lee`."""
    text = _tidy(text)
    if not text:
        return []
    by_and = [part for part in _AND.split(text) if part and part.lower() not in _OTHERS]
    if len(by_and) > 1 and all(part.count(",") == 1 for part in by_and):
        return [_flip(part) for part in by_and]  # every part is "Last, First": BibTeX order
    if len(by_and) == 1 and text.count(",") == 1:
        last, first = _COMMA.split(text)
        if len(last.split()) == 1 and len(first.split()) <= 2 and first.lower() not in _SUFFIXES:
            return [f"{first} {last}"]  # a lone "Smith, John" is one person, not two
    names: list[str] = []
    for part in by_and:
        names.extend(piece for piece in _COMMA.split(part) if piece)
    merged: list[str] = []
    for name in names:  # "Bob Jones, Jr." is one name
        if merged and name.lower() in _SUFFIXES:
            merged[-1] = f"{merged[-1]}, {name}"
        else:
            merged.append(name)
    return merged


def _from_object(item: Mapping[str, object]) -> str:
    """A name from `{name}`, `{given, family}` and similar author objects."""
    lowered = {str(key).lower(): value for key, value in item.items()}
    for key in _NAME_KEYS:
        value = lowered.get(key)
        if isinstance(value, str) and value.strip():
            return _flip(_tidy(value))
    given = next((lowered[k] for k in _GIVEN_KEYS if isinstance(lowered.get(k), str)), "")
    family = next((lowered[k] for k in _FAMILY_KEYS if isinstance(lowered.get(k), str)), "")
    return _tidy(f"{given} {family}")


def parse_authors(value: object) -> tuple[str, ...]:
    """Author names (given name first) from a string, a list of strings, or name objects."""
    if value is None:
        return ()
    names: list[str] = []
    if isinstance(value, str):
        names = _split_string(value)
    elif isinstance(value, Mapping):
        names = [_from_object(value)]
    elif isinstance(value, Sequence):
        for item in value:
            if isinstance(item, str):
                names.append(_flip(_tidy(item)))
            elif isinstance(item, Mapping):
                names.append(_from_object(item))
    unique: dict[str, None] = {}
    for name in names:
        if name and name.lower() not in _OTHERS:
            unique.setdefault(name, None)
    return tuple(unique)


def compact_authors(authors: Sequence[str]) -> str:
    """`A. Smith, B. Jones et al.` for long lists; every name when there are at most three."""
    if len(authors) <= MAX_SHOWN + 1:
        return ", ".join(authors)
    return ", ".join(authors[:MAX_SHOWN]) + " et al."


def fold_name(text: str) -> str:
    """A name as people type it: accents, case and common transliterations folded, so
    `Müller`, `Mueller` and `Muller` are all `muller`."""
    text = text.casefold().translate(_LETTERS)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return _DIGRAPHS.sub(lambda m: m.group(0)[0], text)


@dataclass(frozen=True, slots=True)
class AuthorKey:
    """A name reduced for matching: folded surname and the given names (full or initials)."""

    surname: str
    given: tuple[str, ...]


def author_key(name: str) -> AuthorKey | None:
    """The matching key of a name in any order the sources use ("Schmidhuber, J." too)."""
    name = _flip(_tidy(name)) if "," in name else _tidy(name)
    words = [w for w in re.split(r"[\s.]+", fold_name(name)) if w and w not in _SUFFIXES]
    words = [w.strip("'’") for w in words if w.strip("'’-")]
    if not words:
        return None
    given: list[str] = []
    for word in words[:-1]:  # "jean-luc" has two initials
        if word not in PARTICLES:  # "van Beethoven" names the family, not a given name
            given.extend(part for part in word.split("-") if part)
    return AuthorKey(surname=words[-1], given=tuple(given))


def _given_compatible(query: tuple[str, ...], author: tuple[str, ...]) -> bool:
    """Whether each given name of the query agrees with the author's (initial or prefix)."""
    for asked, known in zip(query, author, strict=False):
        if not (known.startswith(asked) or asked.startswith(known)):
            return False
    return True


def key_matches(wanted: AuthorKey, known: AuthorKey, *, family_first: bool) -> bool:
    """Whether the asked name names the known one ("J. Schmidhuber", "schmidhuber",
    "Schmidhuber, J."); `family_first`: it may be "Surname Given" (it had no comma)."""
    if wanted.surname == known.surname and _given_compatible(wanted.given, known.given):
        return True
    # "Schmidhuber Jürgen": family name first without a comma
    if family_first and len(wanted.given) == 1 and known.given:
        return wanted.given[0] == known.surname and _given_compatible(
            (wanted.surname,), known.given
        )
    return False


def filed_under(key: AuthorKey) -> tuple[str, ...]:
    """The surnames a name's papers may be filed under: its own, and its first given name."""
    return (key.surname, *key.given[:1])


@dataclass(frozen=True, slots=True)
class AuthorIndex:
    """Which papers each surname wrote, to find a person's papers without scanning them all."""

    by_surname: Mapping[str, tuple[tuple[int, str], ...]]
    """Folded surname → (paper index, author name as written)."""

    @classmethod
    def build(cls, papers_authors: Iterable[Sequence[str]]) -> AuthorIndex:
        by_surname: dict[str, list[tuple[int, str]]] = {}
        keys: dict[str, AuthorKey | None] = {}  # a name recurs across papers: key it once
        for number, authors in enumerate(papers_authors):
            for name in authors:
                key = keys[name] if name in keys else keys.setdefault(name, author_key(name))
                if key is not None:
                    by_surname.setdefault(key.surname, []).append((number, name))
        return cls(by_surname={k: tuple(v) for k, v in by_surname.items()})

    def papers(self, query: str) -> tuple[int, ...]:
        """Indexes of the papers with an author `query` names, in paper order."""
        key = author_key(query)
        if key is None:
            return ()
        surnames = filed_under(key)
        family_first = "," not in query
        # A name recurs across a common surname's papers: match each distinct name once.
        matched: dict[str, bool] = {}
        found = set()
        for surname in surnames:
            for number, name in self.by_surname.get(surname, ()):
                hit = matched.get(name)
                if hit is None:
                    known = author_key(name)
                    hit = known is not None and key_matches(key, known, family_first=family_first)
                    matched[name] = hit
                if hit:
                    found.add(number)
        return tuple(sorted(found))

    def name_query(self, question: str) -> tuple[int, ...]:
        """The papers of the person the question only names; () when it names no known author."""
        question = question.strip()
        if len(question) > _MAX_NAME_CHARS or not _QUERY_NAME.fullmatch(question):
            return ()
        words = question.replace(",", " ").split()
        if author_key(question) is None:
            return ()
        if len(words) == 1 and not question[:1].isupper() and len(question) < 4:
            return ()  # "lee" or "wu" in lower case is likelier a typo than a person
        return self.papers(question)
