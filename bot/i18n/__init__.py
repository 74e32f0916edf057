"""The message catalogue: every user-visible text, per language (README.md: adding one)."""

from bot.i18n.catalogue import Part, Translator, translator
from bot.i18n.cities import city_name, zone_of_city
from bot.i18n.languages import (
    COMMAND_MENUS,
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Lang,
    is_language,
    language_named,
    pick_language,
)

__all__ = [
    "COMMAND_MENUS",
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "Lang",
    "Part",
    "Translator",
    "city_name",
    "is_language",
    "language_named",
    "pick_language",
    "translator",
    "zone_of_city",
]
