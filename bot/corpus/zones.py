"""Time zone names: an IANA name or a fixed UTC offset, checked, stored and shown."""

from __future__ import annotations

import re
from datetime import UTC, timedelta, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

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
    """The stored form of a zone (an IANA name as spelled there, or "+09:00"); else ZoneError."""
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
    """How a zone that names no city is written beside a time: "UTC-07:00", "UTC"."""
    return f"UTC{name}" if name[:1] in ("+", "-") else name or "UTC"
