"""The interface languages and how a Telegram `language_code` picks one."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, TypeGuard, get_args

Lang = Literal["en", "zh_Hans", "zh_Hant"]  # Traditional Chinese in Taiwan usage
DEFAULT_LANGUAGE: Lang = "en"  # also the fallback for a missing entry

# Every language with its name in itself, in the order of the /lang buttons.
LANGUAGES: Mapping[Lang, str] = MappingProxyType(
    {"en": "English", "zh_Hans": "简体中文", "zh_Hant": "繁體中文"}
)

# (`set_my_commands` language_code, catalogue); "" is everyone else. The Bot API takes only
# two-letter codes there, so one "zh" menu serves both scripts (Simplified, as most read).
COMMAND_MENUS: tuple[tuple[str, Lang], ...] = (("", "en"), ("zh", "zh_Hans"))

# IETF subtags (lowercase) that mean Traditional script when no script subtag says otherwise.
_TRADITIONAL_REGIONS = frozenset({"tw", "hk", "mo"})


def pick_language(language_code: str | None) -> Lang:
    """The catalogue for a Telegram `language_code` ("zh-hans", "zh-TW", "en", None…)."""
    if not language_code:
        return DEFAULT_LANGUAGE
    subtags = language_code.strip().lower().replace("_", "-").split("-")
    if subtags[0] != "zh":
        return DEFAULT_LANGUAGE
    # A script subtag wins over the region: zh-Hans-HK is Simplified.
    if "hant" in subtags:
        return "zh_Hant"
    if "hans" in subtags:
        return "zh_Hans"
    if _TRADITIONAL_REGIONS.intersection(subtags[1:]):
        return "zh_Hant"
    return "zh_Hans"


def is_language(name: object) -> TypeGuard[Lang]:
    """Whether `name` is one of the catalogue names in `LANGUAGES` (e.g. stored per user)."""
    return name in get_args(Lang)


def language_named(code: str) -> Lang | None:
    """The language a typed code names (`zh-TW`, `zh_cn`, `en`); None when it names none of
    ours (a typed choice deserves to be told, not silently answered in English)."""
    text = code.strip()
    exact = {lang.lower(): lang for lang in LANGUAGES}.get(text.lower())
    if exact is not None:
        return exact
    lang = pick_language(text)
    if lang != "en" or text.lower().replace("_", "-").split("-")[0] == "en":
        return lang
    return None
