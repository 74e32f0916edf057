"""A conference programme's events as papers, with their presentations, tier, institutions and
links. Posters and orals are papers; an oral joins its poster's paper by `related_events_ids`,
else by the same normalised title, else is a paper of its own."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.corpus.authors import parse_authors
from bot.corpus.links import Link, http_url
from bot.corpus.markup import clean_abstract, clean_title
from bot.corpus.merge import fold_title
from bot.corpus.model import TIERS, UNTIMED, Paper, Presentation, tier_of, time_problem
from bot.corpus.readers.html_text import html_to_text
from bot.textutil import clean

__all__ = ["PAPER_KINDS", "Event", "Site", "event_kind", "group_events", "paper_from_events"]

PAPER_KINDS = {"poster": "poster", "oral": "oral"}  # a paper's event type (folded) -> its kind
_FORUM = re.compile(r"^https?://(?:[\w-]+\.)*openreview\.net/forum\?(?:[^#]*&)?id=([^&#\s]+)")


@dataclass(frozen=True, slots=True)
class Site:
    """What a feed says about its conference: venue ("ICML 2026"), year, and the site's root
    ("https://icml.cc") for its relative URLs."""

    venue: str = ""
    year: int | None = None
    root: str = ""


@dataclass(frozen=True, slots=True)
class Event:
    """One paper event of a feed: its line, kind and fields."""

    line: int
    kind: str
    fields: Mapping[str, object]

    @property
    def id(self) -> str:
        return _text(self.fields.get("id"))


def _text(value: object) -> str:
    """A scalar field as one clean line; "" for null, lists and objects."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def event_kind(fields: Mapping[str, object]) -> tuple[str | None, str]:
    """(presentation kind, or None if the event is no paper; its type as written)."""
    written = _text(fields.get("eventtype")) or _text(fields.get("event_type"))
    return PAPER_KINDS.get(written.casefold()), written or "untyped"


def _related(event: Event) -> list[str]:
    related = event.fields.get("related_events_ids")
    return [_text(i) for i in related] if isinstance(related, list) else []


def _titles(events: Sequence[Event], groups: Mapping[int, list[Event]]) -> dict[str, int]:
    """Each poster's normalised title -> the first poster's number."""
    by_title: dict[str, int] = {}
    for number in groups:
        title = fold_title(_text(events[number].fields.get("name")))
        if title:
            by_title.setdefault(title, number)
    return by_title


def group_events(events: Sequence[Event]) -> list[list[Event]]:
    """Events grouped by paper, in feed order: a poster first with its orals, or a lone oral."""
    groups = {n: [event] for n, event in enumerate(events) if event.kind == "poster"}
    poster_of: dict[str, int] = {}  # an event id (the poster's, or an oral it names) -> poster
    for number, group in groups.items():
        for event_id in (group[0].id, *_related(group[0])):
            poster_of.setdefault(event_id, number)
    by_title: dict[str, int] | None = None  # made only if an oral names no poster
    for number, event in enumerate(events):
        if event.kind == "poster":
            continue
        named = (poster_of.get(i) for i in (*_related(event), event.id))
        home = next((i for i in named if i is not None), None)
        if home is None:
            by_title = _titles(events, groups) if by_title is None else by_title
            home = by_title.get(fold_title(_text(event.fields.get("name"))) or "\x00")
        if home is None:
            groups[number] = [event]
        else:
            groups[home].append(event)
    return [groups[number] for number in sorted(groups)]


def _presentation(event: Event) -> Presentation | str:
    """The event's time and place (an accepted poster the feed gives no time or session was
    not presented on site, and says so), or why its time cannot be read."""
    get = event.fields.get
    start, end = _text(get("starttime")), _text(get("endtime"))
    problem = time_problem(start, end)
    if problem:
        return f"event {event.id or '?'}: {problem}"
    return Presentation(
        kind=event.kind,
        session=_text(get("session")),
        start=start,
        end=end,
        room=_text(get("room_name")),
        position=_text(get("poster_position")),
        event=event.id,
    )


def _in_order(presentations: Iterable[Presentation]) -> tuple[Presentation, ...]:
    return tuple(sorted(presentations, key=lambda p: (p.starts_at or UNTIMED, p.kind)))


def _authors(value: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(names, institutions aligned with them; () when none is known) of `authors[]`."""
    items = value if isinstance(value, list) else []
    named = [
        (_text(i.get("fullname")), _text(i.get("institution")))
        if isinstance(i, Mapping)
        else (_text(i), "")
        for i in items
    ]
    named = [(name, place) for name, place in named if name]
    names = parse_authors([name for name, _ in named])
    if len(names) != len(named):  # a name split or repeated: align them one by one
        pairs = {}
        for name, place in named:
            for found in parse_authors([name])[:1]:
                pairs.setdefault(found, place)
        names, places = tuple(pairs), tuple(pairs.values())
    else:
        places = tuple(place for _, place in named)
    return names, (places if any(places) else ())


def _keywords(events: Sequence[Event]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for event in events:
        value = event.fields.get("keywords")
        for item in value if isinstance(value, list) else ():
            if _text(item):
                found.setdefault(_text(item), None)
    return tuple(found)


def _forum_id(url: str) -> str:
    """The OpenReview forum id in a `…openreview.net/forum?id=AbCdEf1234` URL, else ""."""
    match = _FORUM.match(url)
    return match[1] if match else ""


def _links(events: Sequence[Event], site: Site, abstract_links: Sequence[str]) -> list[Link]:
    """Page (the first event's site page), OpenReview, PDF, then URLs the abstract names."""
    links: dict[str, Link] = {}
    page = _text(events[0].fields.get("virtualsite_url"))
    if page.startswith("/") and not page.startswith("//") and site.root:
        page = site.root + page
    candidates = [("Page", page)]
    for event in events:
        candidates += [("OpenReview", _text(event.fields.get("paper_url"))),
                       ("PDF", _text(event.fields.get("paper_pdf_url")))]  # fmt: skip
    candidates += [("Page", url) for url in abstract_links]
    for label, value in candidates:
        url = http_url(value)
        if url and url not in links:
            links[url] = (label, url)
    return list(links.values())


def _abstract(events: Sequence[Event], sidecar: Mapping[str, str]) -> str:
    """The events' own abstract (older feeds), else the sidecar's."""
    for event in events:
        own = event.fields.get("abstract")
        if isinstance(own, str) and own.strip():
            return own
    return next((sidecar[e.id] for e in events if sidecar.get(e.id, "").strip()), "")


def _tier(events: Sequence[Event]) -> str:
    """ "oral" for a paper with an oral (its decision says spotlight: orals are chosen among
    the spotlights), else the most prominent tier the decisions name, else "poster"."""
    if any(event.kind == "oral" for event in events):
        return "oral"
    named = {tier_of(_text(event.fields.get("decision"))) for event in events}
    return next((t for t in TIERS if t in named), "poster")


def paper_from_events(
    events: Sequence[Event], sidecar: Mapping[str, str], site: Site
) -> tuple[Paper | str, tuple[str, ...]]:
    """One paper from its events (its poster first), or why it cannot be one; and the
    presentations left out, each with why (a time that cannot be read)."""
    lead = events[0].fields
    title = clean_title(html_to_text(_text(lead.get("name"))))
    raw_abstract = _abstract(events, sidecar)
    abstract, found = clean_abstract(html_to_text(raw_abstract)) if raw_abstract else ("", ())
    if not title and not abstract:
        return "no title and no abstract", ()
    authors, affiliations = _authors(lead.get("authors"))
    forum = next(filter(None, (_forum_id(_text(e.fields.get("paper_url"))) for e in events)), "")
    source_id = forum or events[0].id
    event_ids = (e.id for e in events)
    shown = [_presentation(e) for e in events]
    problems = tuple(p for p in shown if isinstance(p, str))
    paper = Paper(
        id="",
        title=title,
        abstract=abstract,
        links=tuple(_links(events, site, found)),
        authors=authors,
        keywords=_keywords(events),
        venue=site.venue,
        status=_tier(events),
        year=site.year,
        source_id=source_id,
        aliases=tuple(dict.fromkeys(i for i in event_ids if i and i != source_id)),
        presentations=_in_order(p for p in shown if isinstance(p, Presentation)),
        affiliations=affiliations,
        topic=next(filter(None, (_text(e.fields.get("topic")) for e in events)), ""),
    )
    return paper, problems
