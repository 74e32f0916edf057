"""The callback-data codec: what a button carries (at most 64 bytes) and what it means."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from bot.i18n import Lang, is_language
from bot.render.limits import MAX_CALLBACK_DATA_BYTES, encodable, utf8_len
from bot.store.export import FORMATS


@dataclass(frozen=True, slots=True)
class OpenPaper:
    """Button: open the paper behind `ref` (see `paper_ref`)."""

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
    """Button: send the tapper's reading list as a file in `fmt` (bib, md or csv)."""

    fmt: str


@dataclass(frozen=True, slots=True)
class Unfollow:
    """Button: stop following the tapper's topic whose `topic_ref` is `ref`."""

    ref: str


@dataclass(frozen=True, slots=True)
class Forget:
    """Button: /forget confirmed (`confirm=True`) or cancelled."""

    confirm: bool


MAX_OFFSET = 10_000  # ours: deeper pages are refused as garbage

CallbackAction = (
    OpenPaper
    | ShowSimilar
    | TurnPage
    | ToggleSave
    | SavedPage
    | RemoveSaved
    | ExportAs
    | Unfollow
    | Forget
    | SetLanguage
)


class CallbackDataError(ValueError):
    """Callback data Telegram would refuse: empty or over MAX_CALLBACK_DATA_BYTES."""


def paper_ref(paper_id: str) -> str:
    """A callback-safe reference: the id when it fits, else `#` + a stable hash of it."""
    fits = utf8_len("s:" + paper_id) <= MAX_CALLBACK_DATA_BYTES
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


def open_paper_data(paper_id: str) -> str:
    """Callback data for an "open paper" button."""
    return checked("p:" + paper_ref(paper_id))


def similar_data(paper_id: str) -> str:
    """Callback data for a "similar papers" button."""
    return checked("s:" + paper_ref(paper_id))


def save_data(paper_id: str, *, save: bool) -> str:
    """Callback data for "☆ Save" (`save=True`) or "★ Saved" (tap removes); no user id."""
    return checked(("v:" if save else "u:") + paper_ref(paper_id))


def saved_page_data(offset: int) -> str:
    """Callback data for a page turn in /saved."""
    return checked(f"b:{offset}")


def remove_saved_data(offset: int, paper_id: str) -> str:
    """Callback data for a Remove button in /saved (the page to show afterwards)."""
    return checked(f"r:{offset}:{paper_ref(paper_id)}")


def export_data(fmt: str) -> str:
    """Callback data for an export format button."""
    return checked("x:" + fmt)


def topic_ref(topic_key: str) -> str:
    """A short stable reference to a followed topic (by its case-insensitive key)."""
    return hashlib.blake2b(topic_key.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def unfollow_data(topic_key: str) -> str:
    """Callback data for an Unfollow button (a hash of the topic, never the user)."""
    return checked("f:" + topic_ref(topic_key))


def forget_data(*, confirm: bool) -> str:
    """Callback data for the /forget confirm or cancel button."""
    return checked("g:yes" if confirm else "g:no")


def language_data(lang: Lang) -> str:
    """Callback data for a /lang button."""
    return checked("l:" + lang)


def query_fits_callback(query: str, offset: int = MAX_OFFSET) -> bool:
    """Whether `query` can travel inside page-turn callback data."""
    fits = utf8_len(f"q:{offset}:{query}") <= MAX_CALLBACK_DATA_BYTES
    return bool(query) and fits and encodable(query)


def page_data(offset: int, *, query: str | None = None, key: str | None = None) -> str:
    """Callback data for a page turn: the query itself when it fits, else a state key."""
    if query is not None and query_fits_callback(query):
        return checked(f"q:{offset}:{query}")
    if key is None:
        raise ValueError("a query too long for callback data needs a state key")
    return checked(f"k:{offset}:{key}")


def parse_callback(data: object) -> CallbackAction | None:
    """The action behind callback data, or None for anything stale or malformed."""
    if not isinstance(data, str) or not 3 <= utf8_len(data) <= MAX_CALLBACK_DATA_BYTES:
        return None
    if not encodable(data):  # garbage: Telegram never sends lone surrogates
        return None
    kind, _, rest = data.partition(":")
    if kind in ("p", "s"):
        if not rest or rest != rest.strip():
            return None
        return OpenPaper(rest) if kind == "p" else ShowSimilar(rest)
    if kind == "l":
        return SetLanguage(rest) if is_language(rest) else None  # type: ignore[arg-type]
    if kind in ("v", "u"):
        if not rest or rest != rest.strip():
            return None
        return ToggleSave(rest, save=kind == "v")
    if kind in ("b", "r"):
        offset_text, sep, ref = rest.partition(":")
        if not offset_text.isascii() or not offset_text.isdigit() or int(offset_text) > MAX_OFFSET:
            return None
        if kind == "b":
            return SavedPage(int(offset_text)) if not sep else None
        if not ref or ref != ref.strip():
            return None
        return RemoveSaved(int(offset_text), ref)
    if kind == "x":
        return ExportAs(rest) if rest in FORMATS else None
    if kind == "f":
        return Unfollow(rest) if re.fullmatch(r"[0-9a-f]{16}", rest) else None
    if kind == "g":
        return Forget(rest == "yes") if rest in ("yes", "no") else None
    if kind in ("q", "k"):
        offset_text, sep, value = rest.partition(":")
        if not sep or not value or not offset_text.isascii() or not offset_text.isdigit():
            return None
        offset = int(offset_text)
        if offset > MAX_OFFSET:
            return None
        return TurnPage(offset, query=value) if kind == "q" else TurnPage(offset, key=value)
    return None
