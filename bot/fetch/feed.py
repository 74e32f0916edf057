"""The conference site's programme feed, `{"count", "next", "previous", "results"}`: every page,
checked against its `count`, saved as one file with its abstracts sidecar (both, or neither)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import orjson

from bot.fetch.files import replace_together
from bot.fetch.http import FetchError, Http, Missing, parse_json
from bot.fetch.sources import FeedSource

__all__ = ["MAX_PAGES", "SavedFeed", "fetch_feed"]

MAX_PAGES = 10_000  # more is taken for a loop of `next` links

_PAPER_EVENTS = frozenset({"poster", "oral"})


@dataclass(frozen=True, slots=True)
class SavedFeed:
    """What one fetch wrote (`abstracts` None: no sidecar)."""

    paths: tuple[Path, ...]
    events: int
    abstracts: int | None


def fetch_feed(
    source: FeedSource, out: Path, http: Http, *, without_abstracts: bool = False
) -> SavedFeed:
    """Download `source` and its sidecar into `out`; FetchError (nothing written) unless the
    feed is whole and the sidecar there or not needed."""
    feed = _all_pages(source.url, http)
    sidecar = _sidecar(source, feed["results"], http, without_abstracts=without_abstracts)
    files = {source.sidecar_name: sidecar[0]} if sidecar else {}
    files[source.name] = orjson.dumps(feed)  # last: the feed's rename commits the pair
    stale: tuple[str, ...] = ()
    if sidecar is None and (out / source.sidecar_name).exists():
        stale = (source.sidecar_name,)  # an old sidecar would not match the new feed
    paths = replace_together(out, files, source=source.url, remove=stale)
    if stale:
        http.say(f"removed the old {out / source.sidecar_name}: the site has no sidecar now")
    return SavedFeed(tuple(paths), len(feed["results"]), sidecar[1] if sidecar else None)


def _all_pages(url: str, http: Http) -> dict[str, object]:
    """The first page's fields with every page's results."""
    first = _page(url, http, number=1, so_far="")
    count = first.get("count")
    count = count if isinstance(count, int) and not isinstance(count, bool) else None
    results: list[object] = list(first["results"])
    http.say(f"page 1: {_of(len(results), count)} events")
    seen, link, page = {url}, first.get("next"), 1
    while link:
        if not isinstance(link, str):
            raise FetchError(f"page {page}'s next link is not a URL: {link!r}")
        url = urljoin(url, link)
        page += 1
        if url in seen or page > MAX_PAGES:
            raise FetchError(f"the feed's next links go round in circles (page {page}: {url})")
        seen.add(url)
        data = _page(url, http, number=page, so_far=f" after {_of(len(results), count)} events")
        results.extend(data["results"])
        http.say(f"page {page}: {_of(len(results), count)} events")
        link = data.get("next")
    _check_whole(results, count, pages=page)
    total = count if count is not None else len(results)
    return {**first, "count": total, "next": None, "previous": None, "results": results}


def _page(url: str, http: Http, *, number: int, so_far: str) -> dict[str, object]:
    """One page, checked: JSON with a results list."""
    try:
        answer = http.get(url)
        data = parse_json(answer)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise FetchError(f"not a programme feed: no results list ({answer.described()})")
    except FetchError as exc:
        where = "the feed" if number == 1 else f"page {number} of the feed{so_far}"
        raise FetchError(f"{where}: {exc}", status=exc.status) from exc
    return data


def _check_whole(results: list[object], count: int | None, *, pages: int) -> None:
    """Refuse a feed that lists no events, or fewer than its `count` (an event on two pages,
    as pages shift while paging, counts once)."""
    if not results:
        raise FetchError("the feed lists no events")
    keys = [event.get("id") if isinstance(event, dict) else None for event in results]
    ids = {key for key in keys if isinstance(key, int | str)}
    listed = len(ids) + sum(1 for key in keys if not isinstance(key, int | str))
    if count is not None and listed < count:
        raise FetchError(
            f"the feed stops short: {listed:,} of its {count:,} events "
            f"in {pages} page{'s' if pages > 1 else ''}, and no next link"
        )


def _sidecar(
    source: FeedSource, events: list[object], http: Http, *, without_abstracts: bool
) -> tuple[bytes, int] | None:
    """The abstracts sidecar's bytes and size; None when it is missing and not needed."""
    try:
        answer = http.get(source.sidecar_url)
        data = parse_json(answer)
    except Missing as exc:
        return _no_sidecar(source, events, http, str(exc), without_abstracts=without_abstracts)
    except FetchError as exc:
        raise FetchError(f"the abstracts sidecar: {exc}", status=exc.status) from exc
    if not isinstance(data, dict | list):
        raise FetchError(f"the abstracts sidecar is not an object or a list ({answer.described()})")
    http.say(f"abstracts: {len(data):,} ({source.sidecar_name})")
    return answer.body, len(data)


def _no_sidecar(
    source: FeedSource, events: list[object], http: Http, got: str, *, without_abstracts: bool
) -> None:
    papers = [e for e in events if isinstance(e, dict) and _is_paper(e)]
    carried = sum(1 for e in papers if isinstance(e.get("abstract"), str) and e["abstract"].strip())
    if carried:
        http.say(
            f"no abstracts sidecar ({source.sidecar_name}: {got}); the feed carries its own "
            f"abstracts ({carried:,} of {len(papers):,} posters and orals), so none is needed"
        )
        return None
    if without_abstracts:
        http.say(f"no abstracts sidecar ({source.sidecar_name}: {got}); saving papers without")
        return None
    raise FetchError(
        f"no abstracts sidecar ({source.sidecar_name}: {got}), and the feed's "
        f"{len(papers):,} posters and orals carry none; --without-abstracts saves them anyway"
    )


def _is_paper(event: dict[str, object]) -> bool:
    kind = event.get("eventtype") or event.get("event_type")
    return isinstance(kind, str) and kind.strip().lower() in _PAPER_EVENTS


def _of(done: int, count: int | None) -> str:
    return f"{done:,} of {count:,}" if count is not None else f"{done:,}"
