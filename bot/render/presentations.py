"""How a paper's place in the conference programme reads: its tier, each presentation (the
card), and the compact badge of a listed paper. Times are the venue's, as the feed gives them
(never converted); weekday and month names are the reader's language's."""

from __future__ import annotations

from datetime import datetime

from bot.corpus import Paper, Presentation
from bot.i18n import Translator, translator
from bot.render import limits
from bot.render.dates import short_date, weekday_name
from bot.textutil import clean, clip_words

_EN = translator("en")
_BADGES = {"oral": "🎤", "spotlight": "✨"}
_LABELS = {"oral": "tier.oral", "spotlight": "tier.spotlight", "poster": "tier.poster"}


def kind_label(kind: str, t: Translator = _EN) -> str:
    """ "Oral", "Spotlight", "Poster" in the reader's language (another kind as the feed says)."""
    key = _LABELS.get(kind.casefold())
    return t.gettext(key) if key else clean(kind).capitalize()


def tier_label(tier: str, t: Translator = _EN) -> str:
    """A tier with its badge: "🎤 Oral", "✨ Spotlight", "Poster"."""
    badge = _BADGES.get(tier)
    return f"{badge} {kind_label(tier, t)}" if badge else kind_label(tier, t)


def clock(start: datetime, end: datetime | None = None) -> str:
    """ "11:00–13:30" on the venue's clock, or "11:00" without a later end."""
    return f"{start:%H:%M}–{end:%H:%M}" if end is not None and end > start else f"{start:%H:%M}"


def when_text(start: datetime, end: datetime | None, t: Translator) -> str:
    """ "Wed 15 Jul 11:00–13:30"."""
    return f"{short_date(start.date(), t)} {clock(start, end)}"


def presentation_line(shown: Presentation, t: Translator = _EN) -> str:
    """ "Poster · Wed 15 Jul 11:00–13:30 · East Exhibition Hall A-B · #E-2308": what the feed
    gives of it."""
    start = shown.starts_at
    when = when_text(start, shown.ends_at, t) if start else ""
    position = clean(shown.position)
    parts = (kind_label(shown.kind, t), when, clean(shown.room), f"#{position}" if position else "")
    return clip_words(" · ".join(part for part in parts if part), limits.VENUE_CHARS)


def _featured(paper: Paper) -> tuple[Presentation, datetime] | None:
    """The presentation a listed paper is known by: its tier's (an oral's talk), else its
    first timed one."""
    timed = [(shown, start) for shown in paper.presentations if (start := shown.starts_at)]
    return next((pair for pair in timed if pair[0].kind == paper.tier), timed[0] if timed else None)


def hit_badge(paper: Paper, t: Translator = _EN) -> str:
    """A listed paper's tier and time: "🎤 Oral · Wed 10:00", "Poster · Wed 11:00", "✨
    Spotlight"; "" for a paper with neither a time nor a tier above poster."""
    featured = _featured(paper)
    tier = paper.tier or (featured[0].kind if featured else "")
    if featured is None and tier not in _BADGES:
        return ""
    label = tier_label(tier, t)
    if featured is None:
        return label
    start = featured[1]
    return f"{label} · {weekday_name(start.weekday(), t)} {start:%H:%M}"
