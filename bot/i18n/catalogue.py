"""Catalogue entries by key, placeholders filled in, as plain text or styled parts. Entries may
mark phrases with `<b>`, `<i>` or `<code>` (never nested); values go in after the markup is
split off, so a user's text is never markup (the renderer escapes HTML)."""

from __future__ import annotations

import functools
import gettext
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple

from bot.i18n.languages import DEFAULT_LANGUAGE, LANGUAGES, Lang

LOCALES = Path(__file__).resolve().parent / "locales"  # <lang>/LC_MESSAGES/bot.po and .mo
DOMAIN = "bot"

Style = Literal["", "b", "i", "code"]
TAG = re.compile(r"<(/?)(b|i|code)>")

_FORMATTER = string.Formatter()


class Part(NamedTuple):
    """A run of a translated message in one style."""

    text: str
    style: Style = ""
    field: str = ""  # the placeholder `text` was substituted for; "" for the catalogue's words


class _Missing(gettext.NullTranslations):
    """The end of the fallback chain: an unknown key is a bug, not a text to show."""

    def gettext(self, message: str) -> str:
        raise KeyError(f"no catalogue entry {message!r}")

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        raise KeyError(f"no plural catalogue entry {msgid1!r}")


def split_markup(template: str) -> list[tuple[str, Style]]:
    """`template` as (text, style) runs; ValueError for nested or unbalanced tags."""
    runs: list[tuple[str, Style]] = []
    style: Style = ""
    pos = 0
    for match in TAG.finditer(template):
        closing, name = match.group(1) == "/", match.group(2)
        if closing != bool(style) or (closing and name != style):
            raise ValueError(f"unbalanced or nested <{name}> in {template!r}")
        if match.start() > pos:
            runs.append((template[pos : match.start()], style))
        style = "" if closing else name  # type: ignore[assignment]
        pos = match.end()
    if style:
        raise ValueError(f"unclosed <{style}> in {template!r}")
    if pos < len(template):
        runs.append((template[pos:], style))
    return runs


def format_parts(template: str, values: dict[str, object]) -> tuple[Part, ...]:
    """`template` split on its markup, each `{name}` replaced by `values[name]`."""
    parts: list[Part] = []
    for literal, field, spec, conversion, style in _parsed(template):
        if literal:
            parts.append(Part(literal, style))
        if field is None:
            continue
        if field not in values:
            raise KeyError(f"no value for {{{field}}} in {template!r}")
        value = _FORMATTER.convert_field(values[field], conversion)
        parts.append(Part(format(value, spec or ""), style, field))
    return tuple(parts)


_Parsed = tuple[tuple[str, str | None, str | None, str | None, Style], ...]


# A page of results formats the same few entries again and again (parsing costs more than
# filling); thread-safe, errors not kept.
@functools.lru_cache(maxsize=1024)
def _parsed(template: str) -> _Parsed:
    """`template`'s runs as (literal, field, spec, conversion, style); ValueError if invalid."""
    parsed = []
    for run, style in split_markup(template):
        for literal, field, spec, conversion in _FORMATTER.parse(run):
            if field is not None and not field.isidentifier():
                raise ValueError(f"placeholder {{{field}}} is not a name in {template!r}")
            parsed.append((literal, field, spec, conversion, style))
    return tuple(parsed)


@dataclass(frozen=True, slots=True, eq=False)
class Translator:
    """One language's catalogue; a missing entry falls back to English, then KeyError."""

    lang: Lang
    messages: gettext.NullTranslations  # the compiled catalogue with its fallback chain

    def template(self, key: str, n: int | None = None) -> str:
        """The raw entry for `key` (the plural form for `n` when given), markup included."""
        if n is None:
            return self.messages.gettext(key)
        return self.messages.ngettext(key, key, n)  # keys are the message ids, plural too

    def parts(self, key: str, n: int | None = None, /, **values: object) -> tuple[Part, ...]:
        """The entry as styled parts, for the renderer; `{count}` defaults to `n`."""
        if n is not None:
            values.setdefault("count", n)
        return format_parts(self.template(key, n), values)

    def gettext(self, key: str, /, **values: object) -> str:
        """The entry as plain text (markup dropped), placeholders filled from `values`."""
        return "".join(part.text for part in self.parts(key, **values))

    def ngettext(self, key: str, n: int, /, **values: object) -> str:
        """The plural form of the entry for `n` as plain text; `{count}` defaults to `n`."""
        return "".join(part.text for part in self.parts(key, n, **values))


def catalogue_path(lang: Lang, suffix: Literal[".po", ".mo"] = ".mo") -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


# Thread-safe: a race at worst loads the same read-only catalogue twice.
@functools.cache
def _messages(lang: Lang) -> gettext.NullTranslations:
    with catalogue_path(lang).open("rb") as mo:
        messages = gettext.GNUTranslations(mo)
    messages.add_fallback(_Missing() if lang == DEFAULT_LANGUAGE else _messages(DEFAULT_LANGUAGE))
    return messages


@functools.cache
def translator(lang: Lang) -> Translator:
    """The (cached, thread-safe) translator for `lang`; ValueError for an unknown language."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; valid: {', '.join(LANGUAGES)}")
    return Translator(lang, _messages(lang))
