"""The clock a conference's times are shown on. A feed writes its times with the offset of the
platform that serves it, not the venue's (ICML 2026 in Seoul, +09:00, wrote -07:00), so the
zone comes from the VENUE_TIMEZONE setting, else the table of conferences below, else the
feed's own most common offset (and the times are then said to be at that offset)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

if TYPE_CHECKING:
    from bot.corpus.model import Paper

__all__ = [
    "KNOWN_VENUES",
    "ZoneError",
    "offset_name",
    "parse_zone",
    "with_venue_zones",
    "zone_info",
    "zone_label",
]

KNOWN_VENUES: dict[str, str] = {
    # venue -> IANA zone of the city it was held in, and where the conference's site says so
    "ICML 2026": "Asia/Seoul",  # Seoul, 6-11 July (icml.cc/Conferences/2026)
    "ICML 2025": "America/Vancouver",  # Vancouver Convention Center (icml.cc/Conferences/2025)
    "ICML 2024": "Europe/Vienna",  # Messe Wien, Vienna (icml.cc/Conferences/2024)
    "ICLR 2026": "America/Sao_Paulo",  # Rio de Janeiro, Brasilia time (iclr.cc/Conferences/2026)
    "ICLR 2025": "Asia/Singapore",  # Singapore EXPO (iclr.cc/Conferences/2025)
    "ICLR 2024": "Europe/Vienna",  # Messe Wien, Vienna (iclr.cc/Conferences/2024)
    "NeurIPS 2025": "America/Los_Angeles",  # San Diego (neurips.cc/Conferences/2025)
    "NeurIPS 2024": "America/Vancouver",  # Vancouver (neurips.cc/Conferences/2024)
}
_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*([+\-−])(\d{1,2})(?::?(\d\d))?$", re.IGNORECASE)
MAX_OFFSET = timedelta(hours=14)  # the widest offset any zone has used


class ZoneError(ValueError):
    """A name that is neither an IANA zone nor a UTC offset."""


def offset_name(offset: timedelta) -> str:
    """ "+09:00", "-07:00": how a fixed offset is stored as a zone."""
    sign = "-" if offset < timedelta() else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


@lru_cache(maxsize=64)
def parse_zone(name: str) -> str:
    """The stored form of a zone: an IANA name as the database spells it, or "+09:00"; raises
    ZoneError for anything else."""
    text = name.strip()
    match = _OFFSET.match(text)
    if match:
        sign = -1 if match[1] in "-−" else 1
        offset = sign * timedelta(hours=int(match[2]), minutes=int(match[3] or 0))
        if abs(offset) > MAX_OFFSET:
            raise ZoneError(f"{name!r}: an offset beyond ±14 hours")
        return offset_name(offset)
    if text.casefold() in {"utc", "gmt", "z"}:
        return "UTC"
    spelled = _iana_names().get(text.casefold())
    if spelled is None:
        raise ZoneError(f"{name!r} is not a time zone (an IANA name such as Asia/Seoul)")
    return spelled


@lru_cache(maxsize=1)
def _iana_names() -> dict[str, str]:
    """Every IANA zone name by its folded form, so "asia/seoul" is "Asia/Seoul"."""
    return {name.casefold(): name for name in available_timezones()}


@lru_cache(maxsize=64)
def zone_info(name: str) -> tzinfo:
    """The tzinfo of a stored zone name (`parse_zone`'s form); UTC for ""."""
    if not name or name == "UTC":
        return UTC
    if name[0] in "+-":
        hours, minutes = int(name[1:3]), int(name[4:6])
        offset = timedelta(hours=hours, minutes=minutes)
        return timezone(-offset if name[0] == "-" else offset)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ZoneError(f"{name!r} is not a time zone") from error


def zone_label(name: str) -> str:
    """How a zone that names no city is written beside a time: "UTC-07:00", "UTC" (a city's
    name is `bot.i18n.city_name`'s, in the reader's language)."""
    return f"UTC{name}" if name[:1] in ("+", "-") else name or "UTC"


def _feed_offset(papers: Sequence[Paper]) -> str:
    """The offset most of `papers`' presentation times carry, else ""."""
    counts: Counter[timedelta] = Counter()
    for paper in papers:
        for shown in paper.presentations:
            offset = _offset(shown.start)
            if offset is not None:
                counts[offset] += 1
    if not counts:
        return ""
    best = min(counts, key=lambda o: (-counts[o], o))
    return offset_name(best)


def _offset(text: str) -> timedelta | None:
    try:
        return datetime.fromisoformat(text).utcoffset() if text else None
    except ValueError:
        return None


def _venue_zone(venue: str, papers: Sequence[Paper], setting: str) -> str:
    return setting or KNOWN_VENUES.get(venue, "") or _feed_offset(papers)


def with_venue_zones(papers: Iterable[Paper], setting: str = "") -> list[Paper]:
    """`papers` with each presentation's `zone` set: `setting` (VENUE_TIMEZONE, already
    parsed) for all, else per venue the table's zone, else that venue's most common offset."""
    papers = list(papers)
    by_venue: dict[str, list[int]] = {}
    for row, paper in enumerate(papers):
        if paper.presentations:
            by_venue.setdefault(paper.venue, []).append(row)
    for venue, rows in by_venue.items():
        zone = _venue_zone(venue, [papers[row] for row in rows], setting)
        for row in rows:
            paper = papers[row]
            shown = tuple(replace(p, zone=zone) for p in paper.presentations)
            papers[row] = replace(paper, presentations=shown)
    return papers
