"""What `fetch` downloads (feeds and their sidecar, OpenReview venues) and under which names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bot.config import PROGRAMME_FOLDER, Settings

__all__ = [
    "DEFAULT_OPENREVIEW_API",
    "OFFICIAL_HOSTS",
    "PROGRAMME_FOLDER",
    "FeedSource",
    "openreview_file_name",
    "programme_dir",
    "venue_id",
]

OFFICIAL_HOSTS = {"icml": "icml.cc", "neurips": "neurips.cc", "iclr": "iclr.cc"}

DEFAULT_OPENREVIEW_API = "https://api2.openreview.net"

_FEED_NAME = re.compile(r"(?P<stem>[a-z][a-z0-9]*-\d{4})-orals-posters\.json", re.IGNORECASE)
_FEED_PATH = "/static/virtual/data/"
_VENUE_ID = re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+")


def programme_dir(settings: Settings) -> Path:
    """`DATA_DIR/programme`: where `fetch` writes by default."""
    return settings.data_dir / PROGRAMME_FOLDER


@dataclass(frozen=True, slots=True)
class FeedSource:
    """A virtual site's `<conf>-<year>-orals-posters.json` and its sidecar beside it
    (`<conf>-<year>-abstracts.json`), saved under the site's names (the reader pairs them)."""

    url: str
    name: str
    sidecar_url: str
    sidecar_name: str

    @classmethod
    def parse(cls, url: str) -> FeedSource:
        """The feed at `url`; ValueError saying what a feed URL looks like."""
        parts = urlsplit(url.strip())
        segment = parts.path.rsplit("/", 1)[-1]
        match = _FEED_NAME.fullmatch(segment)
        if parts.scheme not in ("http", "https") or not parts.netloc or match is None:
            raise ValueError(
                f"not a programme feed URL: {url!r} (expected https://HOST{_FEED_PATH}"
                "CONF-YEAR-orals-posters.json)"
            )
        sidecar_name = f"{match['stem']}-abstracts.json"
        folder = parts.path[: len(parts.path) - len(segment)]
        sidecar = urlunsplit((parts.scheme, parts.netloc, folder + sidecar_name, "", ""))
        return cls(url.strip(), segment, sidecar, sidecar_name)

    @classmethod
    def official(cls, conference: str, year: str) -> FeedSource:
        """`fetch icml 2026`: the conference site's own feed; ValueError for others."""
        host = OFFICIAL_HOSTS.get(conference.lower())
        if host is None or not re.fullmatch(r"(19|20)\d\d", year):
            raise ValueError(
                f"unknown conference or year: {conference} {year} "
                f"(expected one of {', '.join(OFFICIAL_HOSTS)} and a year, e.g. icml 2026)"
            )
        stem = f"{conference.lower()}-{year}"
        return cls.parse(f"https://{host}{_FEED_PATH}{stem}-orals-posters.json")


def venue_id(text: str) -> str:
    """An OpenReview venue id such as `ICML.cc/2026/Conference`; ValueError otherwise."""
    text = text.strip().strip("/")
    if not _VENUE_ID.fullmatch(text):
        raise ValueError(f"not an OpenReview venue id: {text!r} (e.g. ICML.cc/2026/Conference)")
    return text


def openreview_file_name(venue: str) -> str:
    """`ICML.cc/2026/Conference` -> `openreview-icml-2026.json`; other tracks keep their
    words (`openreview-icml-2026-workshop-xyz.json`)."""
    first, *rest = venue.split("/")
    words = [first.split(".", 1)[0], *rest]
    if len(words) > 1 and words[-1].lower() == "conference":
        words.pop()
    slug = "-".join(re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-") for word in words)
    return f"openreview-{slug}.json"
