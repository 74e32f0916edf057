"""An answer before formatting: a `Doc` of blocks of styled `Segment`s and a keyboard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Style = Literal["", "b", "i", "mark", "code", "a"]


@dataclass(frozen=True, slots=True)
class InlineSwitch:
    """What a Share button does instead of calling back: Telegram lets the user pick a chat
    and types `@bot <query>` there (`switch_inline_query`)."""

    query: str


Button = tuple[str, str | InlineSwitch]
"""(label, callback_data), or (label, InlineSwitch) for a Share button."""
Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of text in one style; HTML escaping happens only when emitting."""

    text: str
    style: Style = ""
    href: str = ""
    """Target URL when `style == "a"`."""


Block = tuple[Segment, ...]
"""A unit that is never split across messages (one result, one paragraph)."""


@dataclass(frozen=True, slots=True)
class Doc:
    """An answer before formatting: blocks, an inline keyboard, how to split."""

    blocks: tuple[Block, ...]
    keyboard: Keyboard = ()
    single_message: bool = False
    """Shrink to fit one message instead of splitting (pages edited in place)."""


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
