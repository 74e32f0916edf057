"""/help describes the query syntax in each language, programme fields included, and every
field example it shows is read as the condition it illustrates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot import render
from bot.i18n import LANGUAGES, translator
from bot.search.query.syntax import DayFilter, parse_query

NOW = datetime(2026, 7, 15, tzinfo=UTC)
PROGRAMME = {"session", "day", "room", "institution", "topic", "status"}


def examples(lang: str) -> list[str]:
    parts = translator(lang).parts("help.syntax")  # type: ignore[arg-type]
    return [part.text for part in parts if part.style == "code"]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_help_shows_every_programme_field(lang: str) -> None:
    shown = set()
    for example in examples(lang):
        for clause in parse_query(example, now=NOW).filters:
            shown.add("day" if isinstance(clause, DayFilter) else getattr(clause, "field", ""))
    assert shown >= PROGRAMME


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_field_example_is_read_as_a_condition(lang: str) -> None:
    fields = [e for e in examples(lang) if " " not in e and ":" in e.rstrip(":")]
    assert len(fields) >= 12
    for example in fields:  # `author:Bengio`, `day:wed`, `场次:"Oral 2B"` …; not `room:` alone
        parsed = parse_query(example, now=NOW)
        assert len(parsed.filters) == 1 and not parsed.text, example


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_help_is_one_message(lang: str) -> None:
    assert len(render.to_html(render.help_doc(t=translator(lang)))) == 1  # type: ignore[arg-type]
