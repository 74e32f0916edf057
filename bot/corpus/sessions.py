"""The one rule for which sessions a user's words name (`/session`, `session:`): a bare number
names "… Session N …"; else the first rule that finds any: the whole name, a name starting with
the value's words ("Oral 2B"), starting with the value, holding all its words. Case, accents,
width, quotes and spacing are ignored."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from bot.corpus.authors import fold_name

_SESSION_NUMBER = re.compile(r"\bsession\s*#?\s*(\d+)\b")


def session_number(value: str) -> int | None:
    """The poster session a bare number names (`3`, `#3`), else None."""
    text = unicodedata.normalize("NFKC", value).strip().lstrip("#").strip()
    return int(text) if text.isdigit() and text.isascii() else None


def fold_session(text: str) -> str:
    """A session name or value as compared: folded, quotes dropped, spaces collapsed."""
    folded = fold_name(unicodedata.normalize("NFKC", text))
    return " ".join(folded.replace('"', " ").replace("“", " ").replace("”", " ").split())


def named_number(folded_name: str) -> int | None:
    """The N of a folded "… session N …" name, else None."""
    match = _SESSION_NUMBER.search(folded_name)
    return int(match[1]) if match else None


def sessions_named(value: str, folded: Sequence[str]) -> list[int]:
    """Indexes of the names in `folded` (as `fold_session` folds them) that `value` names."""
    number = session_number(value)
    if number is not None:
        return [i for i, name in enumerate(folded) if named_number(name) == number]
    words = fold_session(value)
    if not words:
        return []
    tests: tuple[Callable[[str], bool], ...] = (
        lambda name: name == words,
        lambda name: name.startswith(words + " "),
        lambda name: name.startswith(words),
        lambda name: set(words.split()) <= set(name.split()),
    )
    for test in tests:
        chosen = [i for i, name in enumerate(folded) if name and test(name)]
        if chosen:
            return chosen
    return []
