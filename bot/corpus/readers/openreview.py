"""OpenReview notes as saved (API v2 or v1): accepted notes become records, others a report line."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from bot.corpus.model import Paper, venue_tier
from bot.corpus.readers.base import Record, Skipped, Source
from bot.corpus.readers.json_records import read_json
from bot.textutil import clean

# The last part of a not-accepted note's `venueid` -> what the report calls it.
_NOT_ACCEPTED = {
    "rejected_submission": "rejected",
    "withdrawn_submission": "withdrawn",
    "desk_rejected_submission": "desk-rejected",
    "submission": "not accepted",
}
_VENUE_ID = re.compile(r"^(?P<conf>[A-Za-z]+)\.cc/(?P<year>(?:19|20)\d\d)/Conference$")
_NOTE_KEYS = re.compile(rb'"(?:venueid|forum|invitations?|replyto)"\s*:')


def looks_like_notes(head: bytes) -> bool:
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return start in (b"[", b"{") and b'"content"' in head and bool(_NOTE_KEYS.search(head))


def _value(content: Mapping[str, object], key: str) -> str:
    value = content.get(key)
    if isinstance(value, Mapping):  # v2: {"value": …}
        value = value.get("value")
    return clean(value) if isinstance(value, str) else ""


def review_outcome(venueid: str, venue: str) -> str:
    """Why a note is not an accepted paper ("rejected", "withdrawn"…), "" if it is one."""
    last = venueid.rsplit("/", 1)[-1].casefold() if "/" in venueid else ""
    if last in _NOT_ACCEPTED:
        return _NOT_ACCEPTED[last]
    if venue.casefold().startswith("submitted to"):
        return "not accepted"
    return ""


def _accepted(note: Mapping[str, object], content: Mapping[str, object]) -> Record:
    """The note with its venue and tier in the loader's fields."""
    venue, tier = venue_tier(_value(content, "venue"))
    if not venue:
        match = _VENUE_ID.match(_value(content, "venueid"))
        venue = f"{match['conf']} {match['year']}" if match else ""
    rest = {k: v for k, v in content.items() if k not in ("venue", "status")}
    named = {"venue": venue, "status": tier or _value(content, "status")}
    return {**note, "content": {**{k: v for k, v in named.items() if v}, **rest}}


def read_openreview(source: Source) -> Iterator[tuple[int, Record | Paper | str]]:
    """Accepted notes as records; each other submission as a report line naming why."""
    for line, note in read_json(source):
        content = note.get("content") if isinstance(note, Mapping) else None
        if not isinstance(note, Mapping) or not isinstance(content, Mapping):
            yield line, note
            continue
        outcome = review_outcome(_value(content, "venueid"), _value(content, "venue"))
        if outcome:
            title = _value(content, "title") or _value(note, "id")
            yield line, Skipped(f"{outcome} submission, not a paper: {title[:80]!r}")
            continue
        yield line, _accepted(note, content)
