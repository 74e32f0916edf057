"""A title's leading name, however it is typed: `step code reasoner` is *StepCodeReasoner*.

The analyzer keeps a CamelCase name one term, so a split spelling shares no term with it;
`with_names` rewrites the spelling into the title's name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

MAX_NAME_WORDS = 4
"""A name is looked for in up to this many consecutive words of a question."""

MIN_KEY_CHARS = 4
"""Shorter keys (`d2`, `L³`) are too easily typed by chance to be read as names."""

_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
    "ξ": "xi", "ο": "omicron", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau",
    "υ": "upsilon", "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
}  # fmt: skip
_NOT_KEY = re.compile(r"[\W_]+")
_LEAD = re.compile(r"\s*([^\s:]{2,40})\s*:\s")
_WORD = re.compile(r"\S+")


def name_key(text: str) -> str:
    """The key a name's spellings share: `Step-Code-Reasoner` -> "stepcodereasoner"."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if not folded.isascii():
        folded = "".join(_GREEK.get(c, c) for c in folded)
    return _NOT_KEY.sub("", folded)


def leading_name(title: str) -> str | None:
    """The one-word name a title leads with before its colon, as written; None if none."""
    match = _LEAD.match(title)
    if match is None or len(name_key(match[1])) < MIN_KEY_CHARS:
        return None
    return match[1]


class NameTable:
    """The leading names of a corpus's titles, by key (the first title's writing wins)."""

    def __init__(self, titles: Iterable[str]) -> None:
        self._names: dict[str, str] = {}
        for title in titles:
            name = leading_name(title)
            if name is not None:
                self._names.setdefault(name_key(name), name)

    def __len__(self) -> int:
        return len(self._names)

    def get(self, words: str) -> str | None:
        """The name `words` spell (any case, hyphens, splits), or None."""
        key = name_key(words)
        return self._names.get(key) if len(key) >= MIN_KEY_CHARS else None

    def with_names(self, text: str, known: Callable[[str], bool]) -> str:
        """`text` with words spelling a name replaced by it; words `known` accepts are kept."""
        words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        keys = [name_key(text[start:end]) for start, end in words]  # a run's key: theirs joined
        out: list[str] = []
        done = i = 0
        while i < len(words):
            for n in range(min(MAX_NAME_WORDS, len(words) - i), 0, -1):
                key = "".join(keys[i : i + n])
                name = self._names.get(key) if len(key) >= MIN_KEY_CHARS else None
                start, end = words[i][0], words[i + n - 1][1]
                if name is not None and name != text[start:end]:
                    kept = [w for w in text[start:end].split() if n > 1 and known(w)]
                    out += [text[done:start], " ".join([*kept, name])]
                    done, i = end, i + n
                    break
            else:
                i += 1
        return "".join(out) + text[done:]
