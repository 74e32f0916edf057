"""`python -m bot fetch`: a conference's paper list (the site's programme feed with its
abstracts, or OpenReview's accepted notes), saved atomically in the folder the bot loads."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from bot.fetch.http import IDLE, MAX_BYTES, MAX_EVENTS, TIMEOUT, FetchError, Limits, RetryPolicy
from bot.fetch.sources import (
    DEFAULT_OPENREVIEW_API,
    OFFICIAL_HOSTS,
    FeedSource,
    fsync,
    programme_dir,
    venue_id,
)

if TYPE_CHECKING:
    from bot.fetch.client import Http
    from bot.fetch.feed import fetch_feed
    from bot.fetch.openreview import Credentials, fetch_openreview

__all__ = [
    "DEFAULT_OPENREVIEW_API",
    "IDLE",
    "MAX_BYTES",
    "MAX_EVENTS",
    "OFFICIAL_HOSTS",
    "TIMEOUT",
    "Credentials",
    "FeedSource",
    "FetchError",
    "Http",
    "Limits",
    "RetryPolicy",
    "fetch_feed",
    "fetch_openreview",
    "fsync",
    "programme_dir",
    "venue_id",
]

# Imported on first use: httpx and requests load only for a fetch, not for every command.
_DOWNLOADERS = {
    "Http": "bot.fetch.client",
    "fetch_feed": "bot.fetch.feed",
    "Credentials": "bot.fetch.openreview",
    "fetch_openreview": "bot.fetch.openreview",
}


def __getattr__(name: str) -> object:
    if name in _DOWNLOADERS:
        return getattr(importlib.import_module(_DOWNLOADERS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
