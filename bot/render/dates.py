"""Dates in the user's language: "Wed 15 Jul" / "7月15日 周三", a weekday, a day of a month;
the names are the catalogues' (`date.*`), never the process's locale."""

from __future__ import annotations

from datetime import date

from bot.i18n import Translator


def weekday_name(weekday: int, t: Translator) -> str:
    """The short name of `weekday` (0 Monday … 6 Sunday): "Wed", "周三", "週三"."""
    return t.gettext(f"date.weekday_{weekday % 7}")


def day_month(month: int, day: int, t: Translator) -> str:
    """A day of a month without its year: "15 Jul", "7月15日"."""
    return t.gettext("date.day_month", day=day, month=t.gettext(f"date.month_{month}"))


def short_date(when: date, t: Translator) -> str:
    """A date with its weekday, without its year: "Wed 15 Jul", "7月15日 周三"."""
    return t.gettext(
        "date.weekday_day_month",
        weekday=weekday_name(when.weekday(), t),
        day=when.day,
        month=t.gettext(f"date.month_{when.month}"),
    )


def full_date(when: date, t: Translator) -> str:
    """A date with its year, without its weekday: "14 Jul 2026", "2026年7月14日"."""
    month = t.gettext(f"date.month_{when.month}")
    return t.gettext("date.day_month_year", day=when.day, month=month, year=when.year)
