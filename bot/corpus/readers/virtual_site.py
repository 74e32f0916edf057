"""A conference site's programme feed (`icml-2026-orals-posters.json`, `{"count", "next",
"previous", "results": [event]}`) and its abstracts sidecar beside it (`icml-2026-abstracts.json`:
from 2026 the feed holds none). Posters and orals become papers (`feed_events`), other events
are counted in the report; a feed without its sidecar loads title-only.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

from bot.corpus.model import MERGED, CorpusError, Paper
from bot.corpus.readers.base import Record, Skipped, Source, decode
from bot.corpus.readers.feed_events import Event, Site, event_kind, group_events, paper_from_events
from bot.corpus.readers.json_records import read_array, read_json

__all__ = ["looks_like_feed", "read_virtual_site", "sidecar_of", "sidecar_path", "site_of"]

_FEED_NAME = re.compile(r"^(?P<conf>[a-z]+)-(?P<year>(?:19|20)\d\d)-orals-posters\b", re.I)
_SIDECAR_NAME = re.compile(r"^(?P<conf>[a-z]+)-(?P<year>(?:19|20)\d\d)-abstracts\.json$", re.I)
_SOURCE_URL = re.compile(r"(?:^|[=/])(?P<conf>[A-Za-z]+)\.cc/(?P<year>(?:19|20)\d\d)\b")
_EVENT_TYPE = re.compile(rb'"event_?type"\s*:')
_RESULTS = re.compile(r'^\s*\{[^\[\]{}]*?"results"\s*:\s*(?=\[)')
_COUNT = re.compile(rb'^\s*\{[^\[\]{}]*?"count"\s*:\s*(\d+)')
_NEXT = re.compile(rb'^\s*\{[^\[\]{}]*?"next"\s*:\s*"([^"]+)"')
_SPELLING = {"icml": "ICML", "neurips": "NeurIPS", "nips": "NeurIPS", "iclr": "ICLR"}


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


def site_of(name: str, events: list[Event]) -> Site:
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
    """The feed beside `source` if `source` is that feed's abstracts sidecar, else None."""
    match = _SIDECAR_NAME.match(source.path.name)
    if match is None or source.name != str(source.path):
        return None
    feed = source.path.with_name(f"{match['conf']}-{match['year']}-orals-posters.json")
    return feed if feed.is_file() else None


def sidecar_path(feed: Path) -> Path | None:
    """The abstracts sidecar beside a feed file, if there is one: the feed is read with it."""
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
    """(event id -> abstract, a report line if the sidecar is missing or unusable)."""
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


def read_virtual_site(source: Source) -> Iterator[tuple[int, Record | Paper | str]]:
    """The feed's papers (a poster with its orals), then report lines: orals merged, other
    events, a sidecar that could not be read, a feed cut short."""
    events: list[Event] = []
    others: Counter[str] = Counter()
    for line, item in _items(source):
        if isinstance(item, str):
            yield line, item
            continue
        kind, written = event_kind(item)
        if kind is None:
            others[written] += 1
        else:
            events.append(Event(line, kind, item))
    sidecar, problem = _read_sidecar(source)
    site = site_of(source.name, events)
    for group in group_events(events):
        paper, dropped = paper_from_events(group, sidecar, site)
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
