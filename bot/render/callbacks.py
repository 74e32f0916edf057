"""The callback-data codec: what a button carries (at most 64 bytes) and what it means; its
formats stay stable, so buttons sent before a restart keep working."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, fields

from bot.i18n import Lang, is_language
from bot.planner import CALENDAR_FORMAT, Session
from bot.render.limits import MAX_CALLBACK_DATA_BYTES, encodable, utf8_len
from bot.store import FORMATS

EXPORT_FORMATS = (*FORMATS, CALENDAR_FORMAT)  # the reading list's, and its calendar


@dataclass(frozen=True, slots=True)
class OpenPaper:
    """Button: the paper behind `ref` (see `paper_ref`), or with `similar` the papers like it."""

    ref: str
    similar: bool = False


@dataclass(frozen=True, slots=True)
class TurnPage:
    """Button: the results page at `offset` of a query carried inline or kept under `key`."""

    offset: int
    query: str | None = None
    key: str | None = None


@dataclass(frozen=True, slots=True)
class SetLanguage:
    """Button: answer in `lang` from now on (/lang)."""

    lang: Lang


@dataclass(frozen=True, slots=True)
class ToggleSave:
    """Button: save (`save`) or remove the paper behind `ref` for whoever taps it."""

    ref: str
    save: bool


@dataclass(frozen=True, slots=True)
class SavedPage:
    """Button: the tapper's reading list from `offset`, after removing `ref` if given."""

    offset: int
    ref: str | None = None


@dataclass(frozen=True, slots=True)
class ExportAs:
    """Button: the tapper's reading list as a file in `fmt` (one of EXPORT_FORMATS)."""

    fmt: str


@dataclass(frozen=True, slots=True)
class SchedulePage:
    """Button: the tapper's schedule (/schedule) from `offset`."""

    offset: int


@dataclass(frozen=True, slots=True)
class SessionPage:
    """Button: a page of the session at `position`, if `check` says it is still that session."""

    offset: int
    position: int
    check: str


@dataclass(frozen=True, slots=True)
class Unfollow:
    """Button: stop following the tapper's topic whose `topic_ref` is `ref`."""

    ref: str


@dataclass(frozen=True, slots=True)
class Forget:
    """Button: /forget confirmed (`confirm`) or cancelled."""

    confirm: bool


@dataclass(frozen=True, slots=True)
class Recommend:
    """Button: the tapper's recommendations from `offset`, after "not interested" in `ref`."""

    offset: int
    ref: str | None = None


MAX_OFFSET = 10_000  # deeper pages are refused as garbage

CallbackAction = (
    OpenPaper
    | TurnPage
    | ToggleSave
    | SavedPage
    | ExportAs
    | SchedulePage
    | SessionPage
    | Unfollow
    | Forget
    | SetLanguage
    | Recommend
)
CALLBACK_ACTIONS: tuple[type, ...] = CallbackAction.__args__  # type: ignore[attr-defined]
"""Every kind of button, for the handler table's check that each has a handler."""


class CallbackDataError(ValueError):
    """Callback data Telegram would refuse: empty or over MAX_CALLBACK_DATA_BYTES."""


@dataclass(frozen=True, slots=True)
class Field:
    """How one field travels: `parse` reads it back (None: stale or forged), `text` writes it."""

    parse: Callable[[str], object | None]
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
    """`prefix:a:b…` means `action(a, b…, **fixed)`; the last field takes the rest, colons too."""

    prefix: str
    action: type
    fields: tuple[tuple[str, Field], ...]
    fixed: tuple[tuple[str, object], ...] = ()


CODES: tuple[Code, ...] = (
    Code("p", OpenPaper, (("ref", REF),), (("similar", False),)),
    Code("s", OpenPaper, (("ref", REF),), (("similar", True),)),
    Code("q", TurnPage, (("offset", OFFSET), ("query", ANY_TEXT))),
    Code("k", TurnPage, (("offset", OFFSET), ("key", ANY_TEXT))),
    Code("v", ToggleSave, (("ref", REF),), (("save", True),)),
    Code("u", ToggleSave, (("ref", REF),), (("save", False),)),
    Code("b", SavedPage, (("offset", OFFSET),)),
    Code("r", SavedPage, (("offset", OFFSET), ("ref", REF))),
    Code("x", ExportAs, (("fmt", FORMAT),)),
    Code("f", Unfollow, (("ref", TOPIC_REF),)),
    Code("g", Forget, (("confirm", YES_NO),)),
    Code("l", SetLanguage, (("lang", LANGUAGE),)),
    Code("c", Recommend, (("offset", OFFSET),)),
    Code("d", Recommend, (("offset", OFFSET), ("ref", REF))),
    Code("w", SchedulePage, (("offset", OFFSET),)),
    Code("n", SessionPage, (("offset", OFFSET), ("position", OFFSET), ("check", SESSION_REF))),
)

_BY_PREFIX = {code.prefix: code for code in CODES}
_PREFIX_BYTES = 2  # "p:": every prefix is one ASCII letter and a colon


def _code_for(action: CallbackAction) -> Code:
    """The row of `action`'s type whose fixed values it has and whose fields are the ones set."""
    given = {field.name for field in fields(action) if getattr(action, field.name) is not None}
    for code in CODES:
        names = {name for name, _ in code.fields} | {name for name, _ in code.fixed}
        if type(action) is not code.action or names != given:
            continue
        if all(getattr(action, name) == value for name, value in code.fixed):
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
    """A short check of a session, so its button notices another one there after a reload."""
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
