"""OpenReview API v2: a venue's accepted notes through openreview-py (its retries replaced by
`fetch`'s), as a guest or logged in, saved as `{"notes": [...], "count": N}`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import HTTPError as Urllib3Error
from urllib3.exceptions import TimeoutError as Urllib3Timeout

from bot.fetch.client import Budget, decoded, timed_out
from bot.fetch.http import (
    MAX_EVENTS,
    USER_AGENT,
    Answer,
    Deadline,
    FetchError,
    Limits,
    RetryPolicy,
    Say,
    check,
    parse_json,
    transfer_failed,
)
from bot.fetch.sources import openreview_file_name, replace_together
from bot.logs import redact

if TYPE_CHECKING:
    from openreview.api import OpenReviewClient

PAGE_SIZE = 1000  # the API's largest page (it may answer with fewer)


@dataclass(frozen=True, slots=True)
class Credentials:
    """An OpenReview login (the password is left out of the repr)."""

    username: str
    password: str = field(repr=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Credentials | None:
        """OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD; None (a guest) when neither is set."""
        username = (environ.get("OPENREVIEW_USERNAME") or "").strip()
        password = environ.get("OPENREVIEW_PASSWORD") or ""
        if bool(username) != bool(password):
            raise ValueError("set both OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD, or neither")
        return cls(username, password) if username else None


@dataclass(frozen=True, slots=True)
class SavedNotes:
    path: Path
    notes: int
    left_out: int  # listed notes whose venueid is not the venue's


def fetch_openreview(
    venue: str,
    out: Path,
    *,
    api: str,
    credentials: Credentials | None,
    policy: RetryPolicy,
    say: Say,
    page_size: int = PAGE_SIZE,
    limits: Limits | None = None,
) -> SavedNotes:
    """Download `venue`'s accepted notes from `api` into `out`; FetchError (nothing written)
    when login or a page fails, the notes fall short of the API's count, or pass `limits`."""
    secrets = (credentials.username, credentials.password) if credentials else ()
    limits = limits or Limits()
    adapter = _BoundedAdapter(limits, Deadline(limits.timeout, limits.clock))
    try:
        client, last = _client(api, credentials, say, adapter)
        notes = _all_notes(client, last, venue, policy, say, page_size, adapter.deadline)
    except FetchError as exc:
        hint = ""
        if exc.status == 403 and credentials is None:
            hint = " (as a guest: set OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD to log in)"
        raise FetchError(redact(f"OpenReview: {exc}{hint}", secrets), status=exc.status) from None
    accepted = [note for note in notes if _venue_id(note) == venue]
    if not accepted:
        raise FetchError(
            f"OpenReview lists no accepted notes with venueid {venue} ({len(notes):,} others): "
            "check the venue id (e.g. ICML.cc/2026/Conference), or the decisions are not public"
        )
    left_out = len(notes) - len(accepted)
    if left_out:
        say(f"left out {left_out:,} notes whose venueid is not {venue}")
    data = orjson.dumps({"notes": accepted, "count": len(accepted)})
    where = f"{api.rstrip('/')}/notes?content.venueid={venue}"
    [path] = replace_together(out, {openreview_file_name(venue): data}, source=where)
    return SavedNotes(path, len(accepted), left_out)


class _LastAnswer:
    """A requests response hook keeping the last answer, to describe a failure."""

    def __init__(self) -> None:
        self.response: Any = None

    def __call__(self, response: Any, *args: object, **kwargs: object) -> Any:
        self.response = response
        return response

    def answer(self) -> Answer | None:
        response = self.response
        if response is None:
            return None
        return Answer(response.url, response.status_code, response.headers, response.content)


class _BoundedAdapter(HTTPAdapter):
    """requests' adapter without retries, within `limits`: each wait at most the idle limit and what
    was left of the deadline at the request's start (checked after each read); bodies are inflated
    a slice at a time and counted against one budget for all the notes."""

    def __init__(self, limits: Limits, deadline: Deadline) -> None:
        super().__init__()
        self.limits, self.deadline = limits, deadline
        self.budget = Budget(limits.max_bytes, ", the pages of notes together")

    def send(self, request: Any, stream: bool = False, timeout: Any = None, verify: Any = True,
             cert: Any = None, proxies: Any = None) -> Any:  # fmt: skip
        self.deadline.check("nothing more was asked")
        wait = self.deadline.bound(self.limits.idle)
        self.budget.start()
        try:
            response = super().send(request, stream=True, timeout=(min(15.0, wait), wait),
                                    verify=verify, cert=cert, proxies=proxies)  # fmt: skip
            raws = response.raw.stream(65_536, decode_content=False)
            encoding = response.headers.get("content-encoding", "")
            body = b"".join(decoded(raws, encoding, self.budget, self.deadline))
        except (requests.Timeout, Urllib3Timeout) as exc:
            raise timed_out(self.deadline, self.limits.idle, self.budget, exc) from None
        except Urllib3Error as exc:
            raise transfer_failed(exc) from None
        response._content, response._content_consumed = body, True  # as .content does
        return response


def _client(
    api: str, credentials: Credentials | None, say: Say, adapter: HTTPAdapter
) -> tuple[OpenReviewClient, _LastAnswer]:
    """An openreview-py client on `api` (logged in when `credentials`), its retries ours."""
    from openreview import OpenReviewException
    from openreview.api import OpenReviewClient

    login = {}
    if credentials is not None:
        login = {"username": credentials.username, "password": credentials.password}
    try:
        client = OpenReviewClient(baseurl=api.rstrip("/"), **login)
    except OpenReviewException as exc:
        doing = "login failed" if credentials else "the client did not start"
        raise FetchError(f"{doing}: {_message(exc)}") from None
    except requests.RequestException as exc:
        raise transfer_failed(exc) from None
    say(f"{api}: {'logged in' if credentials else 'as a guest'}")
    for prefix in ("https://", "http://"):  # no retries, no "Retrying request" on stdout
        client.session.mount(prefix, adapter)
    last = _LastAnswer()
    client.session.hooks["response"].append(last)
    client.headers["User-Agent"] = f"{USER_AGENT} {client.user_agent}"
    return client, last


def _all_notes(
    client: OpenReviewClient,
    last: _LastAnswer,
    venue: str,
    policy: RetryPolicy,
    say: Say,
    page_size: int,
    deadline: Deadline,
) -> list[dict[str, object]]:
    """Every note with `venue`'s venueid, checked against the API's count."""
    page: Callable[[int], tuple[list[Any], int | None]] = functools.partial(
        _page, client, last, venue, page_size
    )
    first, count = policy.run(functools.partial(page, 0), say, deadline)
    notes = [_note_json(note) for note in first]
    total = count if count is not None else len(notes)
    if total > MAX_EVENTS:
        raise FetchError(
            f"the API counts {total:,} notes, more than the {MAX_EVENTS:,} a conference has"
        )
    say(f"notes: {len(notes):,} of {total:,}")
    while len(notes) < total:
        more, _ = policy.run(functools.partial(page, len(notes)), say, deadline)
        if not more:
            raise FetchError(f"the notes stop short: {len(notes):,} of {total:,}")
        notes.extend(_note_json(note) for note in more)
        say(f"notes: {len(notes):,} of {total:,}")
    return notes


def _page(
    client: OpenReviewClient, last: _LastAnswer, venue: str, limit: int, offset: int
) -> tuple[list[Any], int | None]:
    """One page of notes (and the count, with the first); Retryable or FetchError."""
    from openreview import OpenReviewException

    query: dict[str, Any] = {"content": {"venueid": venue}, "limit": limit}
    try:
        if offset == 0:
            notes, count = client.get_notes(**query, with_count=True)
            return notes, count
        return client.get_notes(**query, offset=offset), None
    except OpenReviewException as exc:
        _refuse(last, f"the API answered: {_message(exc)}")
    except requests.JSONDecodeError:
        _refuse(last, "the answer is not JSON")
    except requests.RequestException as exc:
        raise transfer_failed(exc) from None
    except (KeyError, TypeError) as exc:
        _refuse(last, f"the answer is not a list of notes (no {exc})")
    raise AssertionError("unreachable: _refuse raises")


def _refuse(last: _LastAnswer, otherwise: str) -> None:
    """Raise what the last answer shows (Retryable, an HTML page, 403, cut JSON…)."""
    answer = last.answer()
    if answer is not None:
        check(answer)
        parse_json(answer)
        raise FetchError(f"{otherwise} ({answer.described()})", status=answer.status)
    raise FetchError(otherwise)


def _message(exc: Exception) -> str:
    """OpenReviewException carries the API's error object; its message, in short."""
    error = exc.args[0] if exc.args else exc
    message = error.get("message") if isinstance(error, dict) else None
    return " ".join(str(message or error).split())[:300]


def _note_json(note: Any) -> dict[str, object]:
    """A note as openreview-py writes it (`Note.to_json`), with its number and domain."""
    data: dict[str, object] = note.to_json()
    for key in ("number", "domain"):
        value = getattr(note, key, None)
        if value is not None:
            data[key] = value
    return data


def _venue_id(note: dict[str, object]) -> object:
    content = note.get("content")
    value = content.get("venueid") if isinstance(content, dict) else None
    return value.get("value") if isinstance(value, dict) else value
