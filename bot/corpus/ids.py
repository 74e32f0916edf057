"""Stable, tappable paper ids: the source's own id where it has one, else a content hash."""

from __future__ import annotations

import hashlib
import itertools
import re
import unicodedata
from base64 import b32encode
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from bot.corpus.model import MAX_TAPPABLE_ID_CHARS, is_tappable_id

CONTENT_ID_CHARS = 8  # 40 bits: ~0.5% chance of any collision among 100k papers (then lengthened)
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_COMMAND = re.compile(r"^/?paper(?:_|\s+)", re.IGNORECASE)
_BOT_SUFFIX = re.compile(r"@\w+$")
_ARXIV_VERSION = re.compile(r"^(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})v\d+$", re.IGNORECASE)


def _digest(text: str, chars: int) -> str:
    """`chars` lower-case base32 characters (a–z, 2–7) of a hash of `text`."""
    raw = hashlib.blake2b(text.encode(), digest_size=20).digest()
    return b32encode(raw).decode().lower()[:chars]


def _normalise(text: str) -> str:
    """Case, Unicode form and spacing folded, so re-exported or re-wrapped text keeps its id."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def tappable_id(source_id: str) -> str:
    """The source's id in command form (`2402.05678` → `2402_05678`); one that would be empty
    or longer than 26 keeps its first 17 characters plus `_` and a hash of the whole."""
    source_id = source_id.strip()
    if is_tappable_id(source_id):
        return source_id
    mapped = _NOT_ALNUM.sub("_", source_id).strip("_")
    if mapped and len(mapped) <= MAX_TAPPABLE_ID_CHARS:
        return mapped
    return (mapped[:17] + "_" if mapped else "h") + _digest(source_id, 8)


def _candidates(source_id: str | None, title: str, abstract: str) -> Iterator[str]:
    """A paper's id, then the longer forms it takes when an earlier paper already has it."""
    if source_id and source_id.strip():
        yield tappable_id(source_id)
        stem = _NOT_ALNUM.sub("_", source_id).strip("_")[:15] or "h"
        salt = source_id
    else:
        salt = _normalise(title) + "\n" + _normalise(abstract)
        stem = ""
        for chars in range(CONTENT_ID_CHARS, MAX_TAPPABLE_ID_CHARS + 1, 2):
            yield _digest(salt, chars)
    for n in itertools.count():  # identical content or source id forms: number the repeats
        yield f"{stem}_{_digest(f'{salt}#{n}', 10)}" if stem else _digest(f"{salt}#{n}", 10)


def assign_ids(papers: Iterable[tuple[str | None, str, str]]) -> list[str]:
    """Ids for (source id or None, title, abstract) in load order: on a collision the first
    paper keeps the id and the later one takes a longer form, so ids users saw never move."""
    ids: list[str] = []
    taken: set[str] = set()
    for source_id, title, abstract in papers:
        paper_id = next(c for c in _candidates(source_id, title, abstract) if c not in taken)
        taken.add(paper_id)
        ids.append(paper_id)
    return ids


@dataclass(frozen=True, slots=True)
class PaperIds:
    """Lookup from what a user types (`/paper_2402_05678`, `2402.05678`, `arXiv:…`) to an id."""

    by_key: Mapping[str, str]  # folded typed form → paper id

    @classmethod
    def build(
        cls, pairs: Iterable[tuple[str, str | None] | tuple[str, str | None, Iterable[str]]]
    ) -> PaperIds:
        """From (paper id, source id or None[, aliases]); an ambiguous folded form is left out,
        and an alias never takes another paper's id or source id."""
        keys: dict[str, str | None] = {}

        def add(key: str, paper_id: str) -> None:
            if key in keys and keys[key] != paper_id:
                keys[key] = None  # two papers fold alike: only exact ids find them
            else:
                keys[key] = paper_id

        exact: dict[str, str] = {}
        aliases: list[tuple[str, str]] = []
        for paper_id, source_id, *more in pairs:
            exact[paper_id] = paper_id
            if source_id:
                exact.setdefault(source_id.strip(), paper_id)
                add(fold_id(source_id), paper_id)
            add(fold_id(paper_id), paper_id)
            aliases.extend((alias, paper_id) for alias in (more[0] if more else ()))
        own = set(keys)
        for alias, paper_id in aliases:  # after every own id: an alias never shadows one
            exact.setdefault(alias.strip(), paper_id)
            if fold_id(alias) not in own:
                add(fold_id(alias), paper_id)
        folded = {key: value for key, value in keys.items() if value is not None}
        return cls(by_key={**folded, **{"=" + k: v for k, v in exact.items()}})

    def find(self, typed: str) -> str | None:
        text = _BOT_SUFFIX.sub("", _COMMAND.sub("", typed.strip())).strip()
        if not text:
            return None
        exact = self.by_key.get("=" + text)
        if exact is not None:
            return exact
        text = re.sub(r"^arxiv:\s*", "", text, flags=re.IGNORECASE)
        found = self.by_key.get("=" + text) or self.by_key.get(fold_id(text))
        version = _ARXIV_VERSION.match(text) if found is None else None
        if version is not None:  # `2506.33333v2`: the paper, whichever version was loaded
            return self.find(version.group(1))
        return found


def fold_id(paper_id: str) -> str:
    """Case and separators folded: `2402.05678`, `2402_05678` and `2402-05678` are one key."""
    return _NOT_ALNUM.sub("_", paper_id.strip().replace("_", " ")).strip("_").casefold()
