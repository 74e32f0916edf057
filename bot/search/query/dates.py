"""What `year:` and `day:` values mean (English or Chinese dates, weekdays, today/tomorrow).

A presentation is on the day its start falls on in its own UTC offset; "today" is counted in
that offset from the query pipeline's clock, so a test sets the day, not the machine.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

_EN_WEEKDAYS = (
    ("mon", "monday"),
    ("tue", "tues", "tuesday"),
    ("wed", "weds", "wednesday"),
    ("thu", "thur", "thurs", "thursday"),
    ("fri", "friday"),
    ("sat", "saturday"),
    ("sun", "sunday"),
)
_ZH_NUMBERS = "一二三四五六日"
_ZH_PREFIXES = ("周", "週", "星期", "礼拜", "禮拜")
WEEKDAYS: dict[str, int] = {
    **{name: n for n, names in enumerate(_EN_WEEKDAYS) for name in names},
    **{p + d: n for n, d in enumerate(_ZH_NUMBERS) for p in _ZH_PREFIXES},
    **{p + "天": 6 for p in _ZH_PREFIXES},
}
"""Weekday names users type (case-insensitive) → 0 Monday … 6 Sunday."""
RELATIVE_DAYS: dict[str, int] = {
    "today": 0,
    "tomorrow": 1,
    "今天": 0,
    "今日": 0,
    "明天": 1,
    "明日": 1,
}
"""Words for a day counted from today → how many days after it."""

_DAY_END = "[日号號]"
_FULL = re.compile(
    rf"(\d{{4}})[-/.](\d{{1,2}})[-/.](\d{{1,2}})|(\d{{4}})年(\d{{1,2}})月(\d{{1,2}}){_DAY_END}?"
)
_SHORT = re.compile(rf"(\d{{1,2}})[-/.](\d{{1,2}})|(\d{{1,2}})月(\d{{1,2}}){_DAY_END}?")
_LEAP_YEAR = 2000  # a year-free date is checked against one that has 29 February
_YEAR = re.compile(
    r"(?P<op>[<>]=?)?(?P<one>[12][0-9]{3})|(?P<low>[12][0-9]{3})?(?:\.\.|-|–|—|~)(?P<high>[12][0-9]{3})?"
)


@dataclass(frozen=True, slots=True)
class YearFilter:
    """Years from `low` to `high`, inclusive; None leaves that end open."""

    low: int | None
    high: int | None


@dataclass(frozen=True, slots=True)
class DayFilter:
    """A presentation day: a date (`year` None: any year), a weekday, or a day from today."""

    year: int | None = None
    month: int | None = None
    day: int | None = None
    weekday: int | None = None
    """0 Monday … 6 Sunday."""
    from_today: int | None = None
    """0 today, 1 tomorrow, in each presentation's own offset."""
    now: datetime | None = None
    """The moment today is counted from (the query pipeline's clock); None: not known, and a
    day counted from today then matches nothing it could be sure of (the condition drops)."""

    @property
    def readable(self) -> bool:
        """False for a day from today without the moment it is counted from."""
        return self.from_today is None or self.now is not None

    def holds(self, local: date, offset: tzinfo) -> bool:
        """True if a presentation starting on `local` (at the venue's `offset`) is on this day."""
        if self.from_today is not None:
            if self.now is None:
                return False
            today = self.now.astimezone(offset).date()
            return local == today + timedelta(days=self.from_today)
        if self.weekday is not None:
            return local.weekday() == self.weekday
        return (
            local.month == self.month
            and local.day == self.day
            and (self.year is None or local.year == self.year)
        )


def read_day(value: str, now: datetime | None = None) -> DayFilter | None:
    """The day `value` names (`now` anchors today and tomorrow), or None when it names none."""
    text = unicodedata.normalize("NFKC", value).casefold().strip().rstrip(".")
    if text in RELATIVE_DAYS:
        return DayFilter(from_today=RELATIVE_DAYS[text], now=now)
    if text in WEEKDAYS:
        return DayFilter(weekday=WEEKDAYS[text])
    full = _FULL.fullmatch(text)
    if full is not None:
        year, month, day = (int(g) for g in full.groups() if g is not None)
        return _date(year, month, day)
    short = _SHORT.fullmatch(text)
    if short is not None:
        first, second = (int(g) for g in short.groups() if g is not None)
        if first > 12 >= second and "月" not in text:  # 15/7: day first
            first, second = second, first
        found = _date(_LEAP_YEAR, first, second)
        return None if found is None else DayFilter(month=found.month, day=found.day)
    return None


def _date(year: int, month: int, day: int) -> DayFilter | None:
    """The date as a filter, None if there is no such date."""
    try:
        date(year, month, day)
    except ValueError:
        return None
    return DayFilter(year=year, month=month, day=day)


def read_years(value: str) -> YearFilter | None:
    """The years `value` names (`2018`, `2015..2017`, `>=2015`, `2018年` …), or None."""
    text = unicodedata.normalize("NFKC", value).strip().removesuffix("年")
    match = _YEAR.fullmatch(text)
    if match is None:
        return None
    if match["one"]:
        year, op = int(match["one"]), match["op"] or ""
        bounds = {"": (year, year), ">": (year + 1, None), ">=": (year, None)}
        bounds |= {"<": (None, year - 1), "<=": (None, year)}
        return YearFilter(*bounds[op])
    low = int(match["low"]) if match["low"] else None
    high = int(match["high"]) if match["high"] else None
    if low is None and high is None:
        return None
    if low is not None and high is not None and low > high:
        low, high = high, low
    return YearFilter(low, high)
