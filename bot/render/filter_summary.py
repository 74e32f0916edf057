"""The header line naming a query's conditions: "3 filters: author Bengio · year 2015–2017 · …"."""

from __future__ import annotations

from datetime import date

from bot.corpus import TIERS, session_number
from bot.i18n import Translator
from bot.render.presentations import day_month, kind_label, short_date, weekday_name
from bot.search import Clause, DayFilter, FieldFilter, ParsedQuery, Phrase, YearFilter
from bot.textutil import clip_words

MAX_VALUE_CHARS = 40  # a typed value in the header (a pasted sentence as a phrase)

SEPARATOR = " · "


def _year_label(clause: YearFilter, t: Translator) -> str:
    """`year 2018`, `year 2015–2017`, `year 2015 or later`, `year 2017 or earlier`."""
    low, high = clause.low, clause.high
    if low is not None and high is not None:
        if low == high:
            return t.gettext("filters.year", year=low)
        return t.gettext("filters.years", low=low, high=high)
    if low is not None:
        return t.gettext("filters.year_from", low=low)
    return t.gettext("filters.year_until", high=high)


def _day_label(clause: DayFilter, t: Translator) -> str:
    """`day today`, `day Wed`, `day Wed 15 Jul`, `day 15 Jul` (a date of any year)."""
    if clause.from_today is not None:
        day = t.gettext("date.today" if clause.from_today == 0 else "date.tomorrow")
    elif clause.weekday is not None:
        day = weekday_name(clause.weekday, t)
    elif clause.year is not None and clause.month is not None and clause.day is not None:
        day = short_date(date(clause.year, clause.month, clause.day), t)
    else:
        day = day_month(clause.month or 1, clause.day or 1, t)
    return t.gettext("filters.day", day=day)


def _label(clause: Clause, t: Translator, *, negated: bool = False) -> str:
    if isinstance(clause, YearFilter):
        label = _year_label(clause, t)
    elif isinstance(clause, DayFilter):
        label = _day_label(clause, t)
    elif isinstance(clause, Phrase):
        text = clip_words(" ".join(clause.text.split()), MAX_VALUE_CHARS)
        return t.gettext("filters.without" if negated else "filters.with", text=text)
    else:
        label = _field_label(clause, t)
    return t.gettext("filters.not", filter=label) if negated else label


def _field_label(clause: FieldFilter, t: Translator) -> str:
    """`author Bengio`, `title with 'x'`, `venue ICML`, `session Poster Session 3` …"""
    value = clip_words(clause.value, MAX_VALUE_CHARS)
    if clause.field == "title":
        return t.gettext("filters.title", text=value)
    number = session_number(clause.value) if clause.field == "session" else None
    if number is not None:
        return t.gettext("filters.poster_session", number=number)
    if clause.field == "status" and clause.value.casefold() in TIERS:
        value = kind_label(clause.value.casefold(), t)  # "状态 口头报告", not "状态 oral"
    return t.gettext(f"filters.{clause.field}", name=value)


def _either(clauses: tuple[Clause, ...], t: Translator) -> str:
    """An OR group: `with 'gan' or with 'vae'`."""
    labels = [_label(clause, t) for clause in clauses]
    joined = labels[0]
    for label in labels[1:]:
        joined = t.gettext("filters.or", left=joined, right=label)
    return joined


def filter_labels(parsed: ParsedQuery, t: Translator) -> tuple[str, ...]:
    """Each condition of `parsed` in words, in the order: phrases, fields, OR groups, exclusions."""
    return (
        *(_label(clause, t) for clause in parsed.phrases),
        *(_label(clause, t) for clause in parsed.filters),
        *(_either(group, t) for group in parsed.any_of),
        *(_label(clause, t, negated=True) for clause in parsed.excluded),
    )


def filter_summary(parsed: ParsedQuery, t: Translator) -> str | None:
    """`3 filters: author Bengio · …` as plain text; None for a plain query."""
    labels = filter_labels(parsed, t)
    if not labels:
        return None
    return t.ngettext("filters.header", len(labels), filters=SEPARATOR.join(labels))
