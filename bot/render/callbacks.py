"""The callback-data codec: what a button carries (at most 64 bytes) and what it means.

One table (`CODES`) maps each action to its prefix letter and its fields; `encode` and
`parse_callback` both read it, so a new button is one dataclass and one row. The formats
are stable (`p:<ref>`, `r:<offset>:<ref>`, …): buttons sent before a restart keep working.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.i18n import Lang, is_language
from bot.planner import CALENDAR_FORMAT, Session
from bot.render.limits import MAX_CALLBACK_DATA_BYTES, encodable, utf8_len
from bot.store.export import FORMATS

EXPORT_FORMATS = (*FORMATS, CALENDAR_FORMAT)
"""What /export sends: the reading list (bib, md, csv) and the calendar of its presentations."""


@dataclass(frozen=True, slots=True)
class OpenPaper:
    """Button: open the paper behind `ref` (see `paper_ref`).

    No view sends one today (a result opens by its `/paper_<id>`); it is still read, so the
    buttons of messages sent before keep working.
    """

    ref: str


@dataclass(frozen=True, slots=True)
class ShowSimilar:
    """Button: papers similar to `ref`."""

    ref: str


@dataclass(frozen=True, slots=True)
class TurnPage:
    """Button: show the results page at `offset` of a query kept inline or under `key`."""

    offset: int
    query: str | None = None
    key: str | None = None


@dataclass(frozen=True, slots=True)
class SetLanguage:
    """Button: answer in `lang` from now on (/lang)."""

    lang: Lang


@dataclass(frozen=True, slots=True)
class ToggleSave:
    """Button: save (`save=True`) or remove the paper behind `ref` for whoever taps it."""

    ref: str
    save: bool


@dataclass(frozen=True, slots=True)
class SavedPage:
    """Button: show the tapper's reading list from `offset`."""

    offset: int


@dataclass(frozen=True, slots=True)
class RemoveSaved:
    """Button in /saved: remove `ref` from the tapper's list, then show the page at `offset`."""

    offset: int
    ref: str


@dataclass(frozen=True, slots=True)
class ExportAs:
    """Button: send the tapper's reading list as a file in `fmt` (one of EXPORT_FORMATS)."""

    fmt: str


@dataclass(frozen=True, slots=True)
class SchedulePage:
    """Button: show the tapper's schedule (/schedule) from `offset`."""

    offset: int


@dataclass(frozen=True, slots=True)
class SessionPage:
    """Button: the page at `offset` of the programme's session at `position` (its place in
    time order), if `check` (`session_ref`) says it is still that session."""

    offset: int
    position: int
    check: str


@dataclass(frozen=True, slots=True)
class Unfollow:
    """Button: stop following the tapper's topic whose `topic_ref` is `ref`."""

    ref: str


@dataclass(frozen=True, slots=True)
class Forget:
    """Button: /forget confirmed (`confirm=True`) or cancelled."""

    confirm: bool


@dataclass(frozen=True, slots=True)
class Recommend:
    """Button: the tapper's recommendations from `offset` (/recommend, and on /saved)."""

    offset: int


@dataclass(frozen=True, slots=True)
class Dismiss:
    """Button: "not interested" in `ref` for the tapper; then their recommendations at `offset`."""

    offset: int
    ref: str


MAX_OFFSET = 10_000  # ours: deeper pages are refused as garbage

CallbackAction = (
    OpenPaper
    | ShowSimilar
    | TurnPage
    | ToggleSave
    | SavedPage
    | RemoveSaved
    | ExportAs
    | SchedulePage
    | SessionPage
    | Unfollow
    | Forget
    | SetLanguage
    | Recommend
    | Dismiss
)
CALLBACK_ACTIONS: tuple[type, ...] = CallbackAction.__args__  # type: ignore[attr-defined]
"""Every kind of button, for the handler table's check that each has a handler."""


class CallbackDataError(ValueError):
    """Callback data Telegram would refuse: empty or over MAX_CALLBACK_DATA_BYTES."""


@dataclass(frozen=True, slots=True)
class Field:
    """How one field of an action travels: its text form and the check that reads it back."""

    parse: Callable[[str], object | None]
    """The value behind the text, or None when the text is not one (stale or forged)."""
    text: Callable[[object], str] = str


def _ref(text: str) -> str | None:
    return text if text and text == text.strip() else None


def _offset(text: str) -> int | None:
    if not text.isascii() or not text.isdigit() or int(text) > MAX_OFFSET:
        return None
    return int(text)


REF = Field(_ref)
OFFSET = Field(_offset)
ANY_TEXT = Field(lambda text: text or None)
FORMAT = Field(lambda text: text if text in EXPORT_FORMATS else None)
SESSION_REF = Field(lambda text: text if re.fullmatch(r"[0-9a-f]{8}", text) else None)
TOPIC_REF = Field(lambda text: text if re.fullmatch(r"[0-9a-f]{16}", text) else None)
LANGUAGE = Field(lambda text: text if is_language(text) else None)
YES_NO = Field(
    lambda text: {"yes": True, "no": False}.get(text), lambda value: "yes" if value else "no"
)


@dataclass(frozen=True, slots=True)
class Code:
    """One row of the codec: `prefix:field1:field2…` means `action(field1, field2…, **fixed)`.

    The last field takes the rest of the data, colons included.
    """

    prefix: str
    action: type
    fields: tuple[tuple[str, Field], ...]
    fixed: tuple[tuple[str, object], ...] = ()
    """Values the prefix itself stands for (`v:` is a save, `u:` a removal)."""


CODES: tuple[Code, ...] = (
    Code("p", OpenPaper, (("ref", REF),)),
    Code("s", ShowSimilar, (("ref", REF),)),
    Code("q", TurnPage, (("offset", OFFSET), ("query", ANY_TEXT))),
    Code("k", TurnPage, (("offset", OFFSET), ("key", ANY_TEXT))),
    Code("v", ToggleSave, (("ref", REF),), (("save", True),)),
    Code("u", ToggleSave, (("ref", REF),), (("save", False),)),
    Code("b", SavedPage, (("offset", OFFSET),)),
    Code("r", RemoveSaved, (("offset", OFFSET), ("ref", REF))),
    Code("x", ExportAs, (("fmt", FORMAT),)),
    Code("f", Unfollow, (("ref", TOPIC_REF),)),
    Code("g", Forget, (("confirm", YES_NO),)),
    Code("l", SetLanguage, (("lang", LANGUAGE),)),
    Code("c", Recommend, (("offset", OFFSET),)),
    Code("d", Dismiss, (("offset", OFFSET), ("ref", REF))),
    Code("w", SchedulePage, (("offset", OFFSET),)),
    Code("n", SessionPage, (("offset", OFFSET), ("position", OFFSET), ("check", SESSION_REF))),
)
"""Prefix letter -> action and fields: the one description of every button's data."""

_BY_PREFIX = {code.prefix: code for code in CODES}
_PREFIX_BYTES = 2  # "p:": every prefix is one ASCII letter and a colon


def _code_for(action: CallbackAction) -> Code:
    """The row that encodes `action`: its type, its fixed values, and its fields all set."""
    for code in CODES:
        if type(action) is not code.action:
            continue
        fixed_match = all(getattr(action, name) == value for name, value in code.fixed)
        if fixed_match and all(getattr(action, name) is not None for name, _f in code.fields):
            return code
    raise ValueError(f"no callback code for {action!r}")


def encode(action: CallbackAction) -> str:
    """The callback data for `action`; raises CallbackDataError when Telegram would refuse it."""
    code = _code_for(action)
    values = [field.text(getattr(action, name)) for name, field in code.fields]
    return checked(":".join([code.prefix, *values]))


def parse_callback(data: object) -> CallbackAction | None:
    """The action behind callback data, or None for anything stale or malformed."""
    if not isinstance(data, str) or not 3 <= utf8_len(data) <= MAX_CALLBACK_DATA_BYTES:
        return None
    if not encodable(data):  # garbage: Telegram never sends lone surrogates
        return None
    prefix, _, rest = data.partition(":")
    code = _BY_PREFIX.get(prefix)
    if code is None:
        return None
    texts = rest.split(":", len(code.fields) - 1)
    if len(texts) != len(code.fields):
        return None
    values = {}
    for (name, field), text in zip(code.fields, texts, strict=True):
        value = field.parse(text)
        if value is None:
            return None
        values[name] = value
    return code.action(**values, **dict(code.fixed))  # type: ignore[no-any-return]


def paper_ref(paper_id: str) -> str:
    """A callback-safe reference: the id when it fits, else `#` + a stable hash of it."""
    fits = utf8_len(paper_id) <= MAX_CALLBACK_DATA_BYTES - _PREFIX_BYTES
    if fits and not paper_id.startswith("#") and encodable(paper_id):
        return paper_id
    digest = hashlib.blake2b(paper_id.encode("utf-8", "surrogatepass"), digest_size=8)
    return "#" + digest.hexdigest()


def checked(data: str) -> str:
    """`data` itself when Telegram accepts it as callback data; raises CallbackDataError."""
    size = utf8_len(data)
    if not 1 <= size <= MAX_CALLBACK_DATA_BYTES:
        raise CallbackDataError(f"callback data of {size} bytes")
    return data


def topic_ref(topic_key: str) -> str:
    """A short stable reference to a followed topic (by its case-insensitive key)."""
    return hashlib.blake2b(topic_key.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def session_ref(session: Session) -> str:
    """A short check of a programme session (its name, kind and start): a button keyed by
    the session's position finds another session there after a reload, and says so."""
    start = session.start.isoformat() if session.start is not None else ""
    key = f"{session.name}\x1f{session.kind}\x1f{start}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(key, digest_size=4).hexdigest()


def query_fits_callback(query: str, offset: int = MAX_OFFSET) -> bool:
    """Whether `query` can travel inside page-turn callback data."""
    if not query or not encodable(query):
        return False
    try:
        encode(TurnPage(offset, query=query))
    except CallbackDataError:
        return False
    return True


def page_data(offset: int, *, query: str | None = None, key: str | None = None) -> str:
    """Callback data for a page turn: the query itself when it fits, else a state key."""
    if query is not None and query_fits_callback(query):
        return encode(TurnPage(offset, query=query))
    if key is None:
        raise ValueError("a query too long for callback data needs a state key")
    return encode(TurnPage(offset, key=key))
