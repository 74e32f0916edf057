"""The conference site's programme feed, `{"count", "next", "previous", "results"}`: every page,
checked against its `count`, saved as one file with its abstracts sidecar (both, or neither)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urljoin

import orjson

from bot.fetch.client import Budget, Http
from bot.fetch.http import MAX_EVENTS, FetchError, Missing, parse_json
from bot.fetch.sources import FeedSource, Staging

PAGE_SLACK = 2  # pages beyond what `count` needs, as pages shift while paging
MAX_PAGES = 1_000  # for a feed without a `count`

_PAPER_EVENTS = frozenset({"poster", "oral"})


@dataclass(frozen=True, slots=True)
class SavedFeed:
    """What one fetch wrote (`abstracts` None: no sidecar)."""

    paths: tuple[Path, ...]
    events: int
    abstracts: int | None


@dataclass(slots=True)
class _Tally:
    """What the pages held, counted as they are saved (their events are not kept)."""

    events: int = 0
    ids: set[int | str] = field(default_factory=set)
    keyless: int = 0
    papers: int = 0
    carried: int = 0  # posters and orals with an abstract of their own

    def add(self, events: list[object]) -> None:
        self.events += len(events)
        for event in events:
            key = event.get("id") if isinstance(event, dict) else None
            if isinstance(key, int | str):
                self.ids.add(key)
            else:
                self.keyless += 1
            if isinstance(event, dict) and _is_paper(event):
                self.papers += 1
                abstract = event.get("abstract")
                self.carried += isinstance(abstract, str) and bool(abstract.strip())

    @property
    def listed(self) -> int:
        """Events counted once (an event on two pages, as pages shift while paging)."""
        return len(self.ids) + self.keyless


def fetch_feed(
    source: FeedSource, out: Path, http: Http, *, without_abstracts: bool = False
) -> SavedFeed:
    """Download `source` and its sidecar into `out`, each streamed to a temporary file beside
    its target; FetchError (nothing replaced) unless the feed is whole and within `http`'s
    limits, and the sidecar there or not needed."""
    with Staging(out) as staging:
        tally = _all_pages(source, http, staging)
        abstracts = _sidecar(source, tally, http, staging, without_abstracts=without_abstracts)
        stale: tuple[str, ...] = ()
        if abstracts is None and (out / source.sidecar_name).exists():
            stale = (source.sidecar_name,)  # an old sidecar would not match the new feed
        order = [source.name] if abstracts is None else [source.sidecar_name, source.name]
        paths = staging.commit(order, source=source.url, remove=stale)  # the feed last commits
    if stale:
        http.say(f"removed the old {out / source.sidecar_name}: the site has no sidecar now")
    return SavedFeed(tuple(paths), tally.events, abstracts)


def _all_pages(source: FeedSource, http: Http, staging: Staging) -> _Tally:
    """Every page, written as one (see `_FeedWriter`) as it comes; what they held."""
    budget = Budget(http.limits.max_bytes, ", the feed's pages together")
    url = source.url
    first = _page(url, http, budget, staging, number=1, so_far="")
    count, size = _count(first), len(first["results"])
    most = MAX_PAGES if count is None else math.ceil(count / max(1, size)) + PAGE_SLACK
    writer = _FeedWriter(staging.file(source.name), first, count)
    tally = _Tally()
    tally.add(first["results"])
    writer.add(first["results"])
    http.say(f"page 1: {_of(tally.events, count)} events")
    seen, link, page = {url}, first.get("next"), 1
    del first  # its events are saved
    while link:
        if not isinstance(link, str):
            raise FetchError(f"page {page}'s next link is not a URL: {link!r}")
        url = urljoin(url, link)
        page += 1
        if url in seen:
            raise FetchError(f"the feed's next links go round in circles (page {page}: {url})")
        if page > most:
            raise FetchError(_too_many_pages(most, count, size))
        seen.add(url)
        so_far = f" after {_of(tally.events, count)} events"
        data = _page(url, http, budget, staging, number=page, so_far=so_far)
        tally.add(data["results"])
        writer.add(data["results"])
        http.say(f"page {page}: {_of(tally.events, count)} events")
        link = data.get("next")
    _check_whole(tally, count, pages=page)
    writer.close(tally.events)
    return tally


def _count(first: dict[str, object]) -> int | None:
    """The first page's `count`, or None; FetchError when no conference's feed could hold it."""
    count = first.get("count")
    if not isinstance(count, int) or isinstance(count, bool):
        return None
    if count > MAX_EVENTS:
        raise FetchError(
            f"the feed's count is {count:,} events, more than the {MAX_EVENTS:,} a "
            "conference's feed holds: not a programme to save"
        )
    return count


def _too_many_pages(most: int, count: int | None, size: int) -> str:
    if count is None:
        return f"the feed goes on past {most:,} pages and gives no count of its events"
    return (
        f"the feed goes on past {most:,} pages: its count of {count:,} events in pages of "
        f"{size:,} (the first page's) needs {most - PAGE_SLACK:,}, and {PAGE_SLACK} more are "
        "allowed for pages that shift"
    )


def _page(
    url: str, http: Http, budget: Budget, staging: Staging, *, number: int, so_far: str
) -> dict[str, object]:
    """One page, through a temporary file, checked: JSON with a results list."""
    try:
        with staging.scratch() as sink:
            answer = http.download(url, sink, budget)
            sink.seek(0)
            data = parse_json(answer, sink.read())
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise FetchError(f"not a programme feed: no results list ({answer.described()})")
    except FetchError as exc:
        where = "the feed" if number == 1 else f"page {number} of the feed{so_far}"
        raise FetchError(f"{where}: {exc}", status=exc.status) from exc
    return data


class _FeedWriter:
    """The feed saved as one page, written as its pages come: the first page's fields (its
    `count`; no `next` or `previous` link), then every page's events."""

    def __init__(self, stream: BinaryIO, first: dict[str, object], count: int | None) -> None:
        fields = {**first, "next": None, "previous": None}
        del fields["results"]
        if count is None:
            fields.pop("count", None)  # written after the events, once they are counted
        else:
            fields["count"] = count
        self._stream, self._count, self._empty = stream, count, True
        stream.write(orjson.dumps(fields)[:-1] + (b"," if fields else b"") + b'"results":[')

    def add(self, events: list[object]) -> None:
        listed = orjson.dumps(events)[1:-1]
        if listed:
            self._stream.write(listed if self._empty else b"," + listed)
            self._empty = False

    def close(self, events: int) -> None:
        end = b"]}" if self._count is not None else b'],"count":%d}' % events
        self._stream.write(end)


def _check_whole(tally: _Tally, count: int | None, *, pages: int) -> None:
    """Refuse a feed that lists no events, or fewer than its `count` (an event on two pages,
    as pages shift while paging, counts once)."""
    if not tally.events:
        raise FetchError("the feed lists no events")
    if count is not None and tally.listed < count:
        raise FetchError(
            f"the feed stops short: {tally.listed:,} of its {count:,} events "
            f"in {pages} page{'s' if pages > 1 else ''}, and no next link"
        )


def _sidecar(
    source: FeedSource, tally: _Tally, http: Http, staging: Staging, *, without_abstracts: bool
) -> int | None:
    """The abstracts sidecar, staged beside the feed: its size; None when missing and not needed."""
    sink = staging.file(source.sidecar_name)
    try:
        answer = http.download(source.sidecar_url, sink, Budget(http.limits.max_bytes))
        sink.seek(0)
        data = parse_json(answer, sink.read())
    except Missing as exc:
        staging.discard(source.sidecar_name)
        return _no_sidecar(source, tally, http, str(exc), without_abstracts=without_abstracts)
    except FetchError as exc:
        raise FetchError(f"the abstracts sidecar: {exc}", status=exc.status) from exc
    if not isinstance(data, dict | list):
        raise FetchError(f"the abstracts sidecar is not an object or a list ({answer.described()})")
    http.say(f"abstracts: {len(data):,} ({source.sidecar_name})")
    return len(data)


def _no_sidecar(
    source: FeedSource, tally: _Tally, http: Http, got: str, *, without_abstracts: bool
) -> None:
    if tally.carried:
        http.say(
            f"no abstracts sidecar ({source.sidecar_name}: {got}); the feed carries its own "
            f"abstracts ({tally.carried:,} of {tally.papers:,} posters and orals), so none is "
            "needed"
        )
        return None
    if without_abstracts:
        http.say(f"no abstracts sidecar ({source.sidecar_name}: {got}); saving papers without")
        return None
    raise FetchError(
        f"no abstracts sidecar ({source.sidecar_name}: {got}), and the feed's "
        f"{tally.papers:,} posters and orals carry none; --without-abstracts saves them anyway"
    )


def _is_paper(event: dict[str, object]) -> bool:
    kind = event.get("eventtype") or event.get("event_type")
    return isinstance(kind, str) and kind.strip().lower() in _PAPER_EVENTS


def _of(done: int, count: int | None) -> str:
    return f"{done:,} of {count:,}" if count is not None else f"{done:,}"
