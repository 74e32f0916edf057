"""An answer before formatting: a `Doc` of blocks of styled `Segment`s and a keyboard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Style = Literal["", "b", "i", "mark", "code", "a"]


@dataclass(frozen=True, slots=True)
class InlineSwitch:
    """A Share button's data: Telegram lets the user pick a chat and types `@bot <query>`."""

    query: str


Button = tuple[str, str | InlineSwitch]
"""(label, callback_data), or (label, InlineSwitch) for a Share button."""
Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of text in one style; HTML escaping happens only when emitting."""

    text: str
    style: Style = ""
    href: str = ""  # a link's target


Block = tuple[Segment, ...]
"""A unit that is never split across messages (one result, one paragraph)."""


@dataclass(frozen=True, slots=True)
class Doc:
    """An answer before formatting: blocks, a keyboard, and whether it must fit one message."""

    blocks: tuple[Block, ...]
    keyboard: Keyboard = ()
    single_message: bool = False


@dataclass(frozen=True, slots=True)
class HtmlMessage:
    """One Telegram message: HTML text and its keyboard."""

    text: str
    keyboard: Keyboard = ()


@dataclass(frozen=True, slots=True)
class InlineArticle:
    """An inline-mode result as plain data (handlers turn it into InlineQueryResultArticle)."""

    id: str
    title: str
    description: str
    message_html: str
