"""`python -m bot fetch`: its options and its run. Exits 0 when saved, 1 when refused (nothing
written) and 2 on bad input; progress and refusals go to stderr."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from bot.config import PROGRAMME_FOLDER, ConfigError, load_settings
from bot.fetch import (
    DEFAULT_OPENREVIEW_API,
    IDLE,
    MAX_BYTES,
    MAX_EVENTS,
    OFFICIAL_HOSTS,
    TIMEOUT,
    FeedSource,
    FetchError,
    Limits,
    RetryPolicy,
    programme_dir,
    venue_id,
)
from bot.logs import redact

EXIT_REFUSED = 1
EXIT_USAGE = 2
PROG = "python -m bot fetch"

_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([kmg]?)b?", re.IGNORECASE)

_EXAMPLES = f"""\
forms:
  fetch URL                  a virtual site's feed, e.g.
                             https://icml.cc/static/virtual/data/icml-2026-orals-posters.json,
                             and its abstracts sidecar (…-abstracts.json) beside it
  fetch CONF YEAR            the official feed: CONF is {", ".join(OFFICIAL_HOSTS)}
  fetch openreview VENUE_ID  the accepted notes, e.g. ICML.cc/2026/Conference (as a guest, or
                             logged in with $OPENREVIEW_USERNAME and $OPENREVIEW_PASSWORD)

It retries 429 and 5xx answers (a few times, honouring Retry-After) and refuses an HTML page,
a 403, a feed shorter than its count and a cut transfer: then it exits 1 and leaves DIR as it
was. Files are replaced atomically (a feed and its sidecar together).

Limits no server can push it past: a download holds at most --max-bytes (counted as it
inflates), the whole fetch takes at most --timeout (retries and their waits included), a read
waits at most {IDLE:g} s for data, and a feed whose count is over {MAX_EVENTS:,} events, or that
pages on past what its count needs, is refused at once."""


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add `fetch` to `python -m bot`'s subparsers; its parser."""
    fetch: argparse.ArgumentParser = commands.add_parser(
        "fetch",
        help="download a conference's paper list (its programme feed, or OpenReview)",
        description="Download a conference's paper list into the folder the bot loads.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fetch.add_argument(
        "source", nargs="+", metavar="SOURCE", help="URL, CONF YEAR, or openreview VENUE_ID"
    )
    fetch.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help=f"where to save (default: DATA_DIR/{PROGRAMME_FOLDER}, which the bot loads)",
    )
    fetch.add_argument(
        "--api",
        metavar="URL",
        help="the OpenReview API (default: $OPENREVIEW_API_BASEURL_V2, else "
        f"{DEFAULT_OPENREVIEW_API})",
    )
    fetch.add_argument(
        "--without-abstracts",
        action="store_true",
        help="save a feed whose papers carry no abstracts even when its sidecar is missing",
    )
    fetch.add_argument(
        "--max-bytes",
        type=_size,
        default=MAX_BYTES,
        metavar="N",
        help=f"the most one download may hold, inflated: bytes, or e.g. 800MB, 2GB "
        f"(default: {MAX_BYTES // 1_000_000} MB)",
    )
    fetch.add_argument(
        "--timeout",
        type=_seconds,
        default=TIMEOUT,
        metavar="SECONDS",
        help=f"the most the whole fetch may take, retries and their waits included "
        f"(default: {TIMEOUT:g} s, {TIMEOUT / 60:g} minutes)",
    )
    return fetch


def _size(text: str) -> int:
    """`--max-bytes`: bytes, or k, MB, GB (powers of 1,000)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None or float(match[1]) < 1:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 600000000, 800MB, 2GB)")
    return int(float(match[1]) * 1000 ** " kmg".index(match[2].lower() or " "))


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r} (e.g. 600)")
    return seconds


class _Usage(Exception):
    """Bad input: exit 2."""


def run(args: argparse.Namespace) -> int:
    """Fetch what `args.source` names into `args.out`; the exit code."""
    out = args.out
    try:
        what = _source(args)
        out = out if out is not None else _default_out()
        limits = Limits(max_bytes=args.max_bytes, timeout=args.timeout)
        if isinstance(what, FeedSource):
            _feed(what, out, limits, without_abstracts=args.without_abstracts)
        else:
            _openreview(what, out, limits, api=args.api)
    except _Usage as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except FetchError as exc:
        print(f"{PROG}: refused: {exc}", file=sys.stderr)
        print(f"{PROG}: nothing was saved; {out} is as it was", file=sys.stderr)
        return EXIT_REFUSED
    except OSError as exc:
        print(f"{PROG}: cannot save in {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_REFUSED
    return 0


def _say(line: str) -> None:
    print(f"fetch: {line}", file=sys.stderr, flush=True)


def _source(args: argparse.Namespace) -> FeedSource | str:
    """A feed, or an OpenReview venue id, from the SOURCE words (and options that fit it)."""
    words: list[str] = args.source
    what: FeedSource | str | None = None
    try:
        if len(words) == 1 and "://" in words[0]:
            what = FeedSource.parse(words[0])
        elif len(words) == 2 and words[0].lower() == "openreview":
            what = venue_id(words[1])
        elif len(words) == 2:
            what = FeedSource.official(*words)
    except ValueError as exc:
        raise _Usage(str(exc)) from None
    if what is None:
        raise _Usage(
            f"expected URL, CONF YEAR ({', '.join(OFFICIAL_HOSTS)}) or openreview VENUE_ID; "
            f"got {' '.join(words)!r}"
        )
    if isinstance(what, FeedSource) and args.api is not None:
        raise _Usage("--api is for openreview VENUE_ID")
    if isinstance(what, str) and args.without_abstracts:
        raise _Usage("--without-abstracts is for a feed")
    return what


def _default_out() -> Path:
    try:
        return programme_dir(load_settings())
    except ConfigError as exc:
        raise _Usage(f"configuration error: {redact(str(exc))}") from None


def _feed(source: FeedSource, out: Path, limits: Limits, *, without_abstracts: bool) -> None:
    from bot.fetch import Http, fetch_feed

    _say(f"{source.url} -> {out}")
    with Http(RetryPolicy(), _say, limits) as http:
        saved = fetch_feed(source, out, http, without_abstracts=without_abstracts)
    abstracts = "" if saved.abstracts is None else f" and {saved.abstracts:,} abstracts"
    _say(f"saved {saved.events:,} events{abstracts}: {', '.join(map(str, saved.paths))}")


def _openreview(venue: str, out: Path, limits: Limits, *, api: str | None) -> None:
    from bot.fetch import Credentials, fetch_openreview

    try:
        credentials = Credentials.from_env(os.environ)
    except ValueError as exc:
        raise _Usage(str(exc)) from None
    base = api or os.environ.get("OPENREVIEW_API_BASEURL_V2") or DEFAULT_OPENREVIEW_API
    _say(f"OpenReview {venue} -> {out}")
    saved = fetch_openreview(
        venue, out, api=base, credentials=credentials, policy=RetryPolicy(), say=_say,
        limits=limits,
    )  # fmt: skip
    _say(f"saved {saved.notes:,} accepted notes: {saved.path}")
