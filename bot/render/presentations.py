"""How a paper's place in the programme reads: tiers, dates and times, card lines, list badges."""

from __future__ import annotations

from datetime import date, datetime, tzinfo
from zoneinfo import ZoneInfo

from bot.corpus import Paper, Presentation, offset_name, zone_info, zone_label
from bot.i18n import Translator, city_name, translator
from bot.render import limits
from bot.textutil import clean, clip_words

_EN = translator("en")
_BADGES = {"oral": "🎤", "spotlight": "✨"}
_LABELS = {"oral": "tier.oral", "spotlight": "tier.spotlight", "poster": "tier.poster"}


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


def kind_label(kind: str, t: Translator = _EN) -> str:
    """ "Oral", "Spotlight", "Poster" in the reader's language (another kind as the feed says)."""
    key = _LABELS.get(kind.casefold())
    return t.gettext(key) if key else clean(kind).capitalize()


def tier_label(tier: str, t: Translator = _EN) -> str:
    """A tier with its badge: "🎤 Oral", "✨ Spotlight", "Poster"."""
    badge = _BADGES.get(tier)
    return f"{badge} {kind_label(tier, t)}" if badge else kind_label(tier, t)


def zone_of(moment: datetime) -> str:
    """The stored name of the zone `moment` is on: "Asia/Seoul", "-07:00"."""
    zone: tzinfo | None = moment.tzinfo
    if isinstance(zone, ZoneInfo):
        return zone.key
    offset = moment.utcoffset()
    return offset_name(offset) if offset is not None else ""


def zone_name(zone: str, t: Translator = _EN) -> str:
    """How a stored zone reads: "Seoul time", "首尔时间", "UTC-07:00"."""
    place = city_name(zone, t.lang)
    return t.gettext("time.zone", place=place) if place else zone_label(zone)


def zone_words(moment: datetime, t: Translator = _EN) -> str:
    """What clock `moment` is on, to write beside it: "Seoul time", "首尔时间", "UTC-07:00"."""
    return zone_name(zone_of(moment), t)


def clock(start: datetime, end: datetime | None = None) -> str:
    """ "11:00–13:30" on `start`'s clock, or "11:00" without a later end."""
    return f"{start:%H:%M}–{end:%H:%M}" if end is not None and end > start else f"{start:%H:%M}"


def when_text(start: datetime, end: datetime | None, t: Translator) -> str:
    """ "Wed 15 Jul 11:00–13:30"."""
    return f"{short_date(start.date(), t)} {clock(start, end)}"


def zoned_when(
    start: datetime, end: datetime | None, t: Translator, mine: str = "", *, dated: bool = True
) -> str:
    """A time on the venue's clock, or on the reader's zone `mine` with the venue's beside it."""
    shown = when_text if dated else (lambda a, b, _t: clock(a, b))
    venue = zone_of(start)
    if not mine or mine == venue:
        return f"{shown(start, end, t)} {zone_words(start, t)}"
    theirs = zone_info(mine)
    local = shown(start.astimezone(theirs), end.astimezone(theirs) if end else None, t)
    return t.gettext("time.yours", when=local, venue=f"{start:%H:%M} {zone_words(start, t)}")


def presentation_line(shown: Presentation, t: Translator = _EN, mine: str = "") -> str:
    """ "Poster · Tue 7 Jul 10:30–12:15 Seoul time · HALL A · #1713", or "not presented on site"."""
    start = shown.starts_at
    if not shown.on_site:
        return f"{kind_label(shown.kind, t)} · {t.gettext('presentation.not_on_site')}"
    when = zoned_when(start, shown.ends_at, t, mine) if start else ""
    parts = (kind_label(shown.kind, t), when, clean(shown.room), shown.board)
    return clip_words(" · ".join(part for part in parts if part), limits.VENUE_CHARS)


def _featured(paper: Paper) -> tuple[Presentation, datetime] | None:
    """The presentation a listed paper is known by: its tier's, else its first timed one."""
    timed = [(shown, start) for shown in paper.presentations if (start := shown.starts_at)]
    return next((pair for pair in timed if pair[0].kind == paper.tier), timed[0] if timed else None)


def hit_badge(paper: Paper, t: Translator = _EN) -> str:
    """A listed paper's tier and time ("🎤 Oral · Tue 10:30 Seoul time"); "" if it has neither."""
    featured = _featured(paper)
    tier = paper.tier or (featured[0].kind if featured else "")
    if featured is None and tier not in _BADGES:
        return ""
    label = tier_label(tier, t)
    if featured is None:
        return label
    start = featured[1]
    return f"{label} · {weekday_name(start.weekday(), t)} {start:%H:%M} {zone_words(start, t)}"
