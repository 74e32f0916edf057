"""Dates in the user's language: "Wed 15 Jul" / "7月15日 周三", a weekday, a day of a month.

Pure: the names come from the catalogues (`date.*`), never from the process's locale, so two
users in two languages are answered at once without either's setting leaking into the other.
"""

from __future__ import annotations

from datetime import date

from bot.i18n import Translator

__all__ = ["day_month", "short_date", "weekday_name"]


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
