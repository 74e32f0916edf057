"""A conference's programme feed (`icml-2026-orals-posters.json`) with its abstracts file beside it.
Posters and orals become papers, an oral joining its poster; other events are only counted, and a
feed without its abstracts file loads title-only."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.corpus.authors import parse_authors
from bot.corpus.links import Link, http_url
from bot.corpus.markup import clean_abstract, clean_title, html_to_text
from bot.corpus.merge import fold_title
from bot.corpus.model import (
    MERGED,
    TIERS,
    UNTIMED,
    CorpusError,
    Paper,
    Presentation,
    tier_of,
    time_problem,
)
from bot.corpus.readers.base import Record, Skipped, Source, decode
from bot.corpus.readers.json_records import read_array, read_json
from bot.textutil import clean

_PAPER_KINDS = {"poster": "poster", "oral": "oral"}  # a paper's event type (folded) -> its kind
_FEED_NAME = re.compile(r"^(?P<conf>[a-z]+)-(?P<year>(?:19|20)\d\d)-orals-posters\b", re.I)
_SIDECAR_NAME = re.compile(r"^(?P<conf>[a-z]+)-(?P<year>(?:19|20)\d\d)-abstracts\.json$", re.I)
_SOURCE_URL = re.compile(r"(?:^|[=/])(?P<conf>[A-Za-z]+)\.cc/(?P<year>(?:19|20)\d\d)\b")
_EVENT_TYPE = re.compile(rb'"event_?type"\s*:')
_RESULTS = re.compile(r'^\s*\{[^\[\]{}]*?"results"\s*:\s*(?=\[)')
_COUNT = re.compile(rb'^\s*\{[^\[\]{}]*?"count"\s*:\s*(\d+)')
_NEXT = re.compile(rb'^\s*\{[^\[\]{}]*?"next"\s*:\s*"([^"]+)"')
_SPELLING = {"icml": "ICML", "neurips": "NeurIPS", "nips": "NeurIPS", "iclr": "ICLR"}
_FORUM = re.compile(r"^https?://(?:[\w-]+\.)*openreview\.net/forum\?(?:[^#]*&)?id=([^&#\s]+)")


@dataclass(frozen=True, slots=True)
class Site:
    """The feed's conference: venue ("ICML 2026"), year, and site root for relative URLs."""

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

    def text(self, key: str) -> str:
        return _text(self.fields.get(key))

    def texts(self, key: str) -> list[str]:
        value = self.fields.get(key)
        return [_text(item) for item in value] if isinstance(value, list) else []


def _text(value: object) -> str:
    """A scalar field as one clean line; "" for null, lists and objects."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def looks_like_feed(head: bytes) -> bool:
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return (
        start == b"{"
        and b'"results"' in head
        and b'"name"' in head
        and bool(_EVENT_TYPE.search(head))
    )


def _site(conf: str, year: str) -> Site:
    domain = conf.casefold()
    name = _SPELLING.get(domain, conf if not conf.islower() else conf.upper())
    return Site(venue=f"{name} {year}", year=int(year), root=f"https://{domain}.cc")


def _site_of(name: str, events: list[Event]) -> Site:
    """The conference and year of a feed: from its file name, else its events' `sourceurl`."""
    match = _FEED_NAME.match(Path(name.rsplit(":", 1)[-1]).name)
    if match:
        return _site(match["conf"], match["year"])
    for event in events:
        url = event.fields.get("sourceurl")
        found = _SOURCE_URL.search(url) if isinstance(url, str) else None
        if found:
            return _site(found["conf"], found["year"])
    return Site()


def sidecar_of(source: Source) -> Path | None:
    """The feed beside `source` if `source` is that feed's abstracts file, else None."""
    match = _SIDECAR_NAME.match(source.path.name)
    if match is None or source.name != str(source.path):
        return None
    feed = source.path.with_name(f"{match['conf']}-{match['year']}-orals-posters.json")
    return feed if feed.is_file() else None


def sidecar_path(feed: Path) -> Path | None:
    """The abstracts file beside a feed file, if there is one."""
    match = _FEED_NAME.match(feed.name)
    if match is None:
        return None
    sidecar = feed.with_name(f"{match['conf']}-{match['year']}-abstracts.json")
    return sidecar if sidecar.is_file() else None


def _abstracts(value: object) -> dict[str, str]:
    """Event id -> abstract, from an object keyed by id or a list of `{id, abstract}`."""
    found: dict[str, str] = {}
    if isinstance(value, Mapping):
        items = [(k, v.get("abstract") if isinstance(v, Mapping) else v) for k, v in value.items()]
    elif isinstance(value, list):
        items = [(i.get("id", i.get("event_id")), i.get("abstract"))
                 for i in value if isinstance(i, Mapping)]  # fmt: skip
    else:
        raise ValueError("neither an object keyed by event id nor a list of {id, abstract}")
    for key, abstract in items:
        if isinstance(key, str | int) and isinstance(abstract, str) and abstract.strip():
            found[str(key).strip()] = abstract
    return found


def _read_sidecar(source: Source) -> tuple[dict[str, str], str]:
    """(event id -> abstract, a report line if the abstracts file is missing or unusable)."""
    path = sidecar_path(source.path) if source.name == str(source.path) else None
    if path is None:
        return {}, ""
    try:
        return _abstracts(json.loads(decode(path))), ""
    except (CorpusError, ValueError, OSError) as error:
        return {}, f"abstracts sidecar {path.name} not read ({error}); papers without abstracts"


def _short_feed(head: bytes, events: int) -> str:
    """A report line when the file is one page of a longer feed, else ""."""
    count, following = _COUNT.match(head), _NEXT.match(head)
    if following:
        return f"one page of a longer feed (next: {following[1].decode(errors='replace')})"
    if count and int(count[1]) > events:
        return f"the feed counts {int(count[1]):,} events but holds {events:,}"
    return ""


def _items(source: Source) -> Iterator[tuple[int, Record | str]]:
    """The feed's `results`, parsed once when they follow the feed's header."""
    text = decode(source)
    header = _RESULTS.match(text)
    if header is None:
        return read_json(source)  # another key order: found the general way
    return read_array(source.name, text, header.end())


def read_programme_feed(source: Source) -> Iterator[tuple[int, Record | Paper | str]]:
    """The feed's papers, then lines for the report: merged orals, other events, problems."""
    events: list[Event] = []
    others: Counter[str] = Counter()
    for line, item in _items(source):
        if isinstance(item, str):
            yield line, item
            continue
        kind, written = _event_kind(item)
        if kind is None:
            others[written] += 1
        else:
            events.append(Event(line, kind, item))
    sidecar, problem = _read_sidecar(source)
    site = _site_of(source.name, events)
    for group in _group_events(events):
        paper, dropped = _paper_from_events(group, sidecar, site)
        yield group[0].line, paper
        for why in dropped:
            yield group[0].line, Skipped(f"loaded without one presentation ({why})")
        for oral in group[1:]:
            yield oral.line, Skipped(f"the oral of the poster at line {group[0].line}{MERGED}")
    if others:
        kinds = ", ".join(f"{n:,} {kind}" for kind, n in others.most_common())
        total = others.total()
        what = "event that is not a paper" if total == 1 else "events that are not papers"
        yield 0, Skipped(f"{total:,} {what} ({kinds}), not read")
    for note in (problem, _short_feed(source.head(4096), len(events) + others.total())):
        if note:
            yield 0, Skipped(note)


def _event_kind(fields: Mapping[str, object]) -> tuple[str | None, str]:
    """(presentation kind, or None if the event is no paper; its type as written)."""
    written = _text(fields.get("eventtype")) or _text(fields.get("event_type"))
    return _PAPER_KINDS.get(written.casefold()), written or "untyped"


def _group_events(events: Sequence[Event]) -> list[list[Event]]:
    """Events grouped by paper, in feed order: a poster first with its orals, or a lone oral."""
    groups = {n: [event] for n, event in enumerate(events) if event.kind == "poster"}
    poster_of: dict[str, int] = {}  # an event id (the poster's, or an oral it names) -> poster
    for number, group in groups.items():
        for event_id in (group[0].id, *group[0].texts("related_events_ids")):
            poster_of.setdefault(event_id, number)
    by_title: dict[str, int] | None = None  # made only if an oral names no poster
    for number, event in enumerate(events):
        if event.kind == "poster":
            continue
        named = (poster_of.get(i) for i in (*event.texts("related_events_ids"), event.id))
        home = next((i for i in named if i is not None), None)
        if home is None:
            if by_title is None:  # each poster's folded title -> the first such poster
                by_title = {}
                for poster in groups:
                    by_title.setdefault(fold_title(events[poster].text("name")), poster)
                by_title.pop("", None)
            home = by_title.get(fold_title(event.text("name")) or "\x00")
        if home is None:
            groups[number] = [event]
        else:
            groups[home].append(event)
    return [groups[number] for number in sorted(groups)]


def _presentation(event: Event) -> Presentation | str:
    """The event's time and place, or why its time cannot be read."""
    start, end = event.text("starttime"), event.text("endtime")
    problem = time_problem(start, end)
    if problem:
        return f"event {event.id or '?'}: {problem}"
    return Presentation(
        kind=event.kind,
        session=event.text("session"),
        start=start,
        end=end,
        room=event.text("room_name"),
        position=event.text("poster_position"),
        event=event.id,
    )


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


def _links(events: Sequence[Event], site: Site, abstract_links: Sequence[str]) -> list[Link]:
    """Page (the first event's site page), OpenReview, PDF, then URLs the abstract names."""
    links: dict[str, Link] = {}
    page = events[0].text("virtualsite_url")
    if page.startswith("/") and not page.startswith("//") and site.root:
        page = site.root + page
    candidates = [("Page", page)]
    for event in events:
        candidates += [("OpenReview", event.text("paper_url")),
                       ("PDF", event.text("paper_pdf_url"))]  # fmt: skip
    candidates += [("Page", url) for url in abstract_links]
    for label, value in candidates:
        url = http_url(value)
        if url and url not in links:
            links[url] = (label, url)
    return list(links.values())


def _abstract(events: Sequence[Event], sidecar: Mapping[str, str]) -> str:
    """The events' own abstract (older feeds), else the abstracts file's."""
    for event in events:
        own = event.fields.get("abstract")
        if isinstance(own, str) and own.strip():
            return own
    return next((sidecar[e.id] for e in events if sidecar.get(e.id, "").strip()), "")


def _tier(events: Sequence[Event]) -> str:
    """ "oral" for a paper with an oral (orals are chosen among the spotlights), else the most
    prominent tier the decisions name, else "poster"."""
    if any(event.kind == "oral" for event in events):
        return "oral"
    named = {tier_of(event.text("decision")) for event in events}
    return next((t for t in TIERS if t in named), "poster")


def _paper_from_events(
    events: Sequence[Event], sidecar: Mapping[str, str], site: Site
) -> tuple[Paper | str, tuple[str, ...]]:
    """One paper from its events (poster first) or why not, and why presentations were dropped."""
    lead = events[0]
    title = clean_title(html_to_text(lead.text("name")))
    raw_abstract = _abstract(events, sidecar)
    abstract, found = clean_abstract(html_to_text(raw_abstract)) if raw_abstract else ("", ())
    if not title and not abstract:
        return "no title and no abstract", ()
    authors, affiliations = _authors(lead.fields.get("authors"))
    forums = (_FORUM.match(e.text("paper_url")) for e in events)  # OpenReview forum ids
    source_id = next((forum[1] for forum in forums if forum), lead.id)
    shown = [_presentation(e) for e in events]
    timed = [p for p in shown if isinstance(p, Presentation)]
    paper = Paper(
        id="",
        title=title,
        abstract=abstract,
        links=tuple(_links(events, site, found)),
        authors=authors,
        keywords=tuple(dict.fromkeys(w for e in events for w in e.texts("keywords") if w)),
        venue=site.venue,
        status=_tier(events),
        year=site.year,
        source_id=source_id,
        aliases=tuple(dict.fromkeys(e.id for e in events if e.id and e.id != source_id)),
        presentations=tuple(sorted(timed, key=lambda p: (p.starts_at or UNTIMED, p.kind))),
        affiliations=affiliations,
        topic=next(filter(None, (e.text("topic") for e in events)), ""),
    )
    return paper, tuple(p for p in shown if isinstance(p, str))
