"""Doc -> console text: the same blocks as plain text, emphasis as ANSI or given marks."""

from __future__ import annotations

from bot.render.doc import Doc, Span
from bot.render.html import SEPARATOR
from bot.render.text import sendable

ANSI_BOLD = "\033[1m"
ANSI_ITALIC = "\033[3m"
ANSI_RESET = "\033[0m"


def _span_console(span: Span, ansi: bool, marks: tuple[str, str] | None) -> str:
    text = span.text
    if span.style == "a" and span.href and span.href != text:
        text = span.href
    text = sendable(text)  # a terminal acts on controls; print() fails on lone surrogates
    if marks is not None and span.style == "mark":
        return f"{marks[0]}{text}{marks[1]}"
    if not ansi:
        return text
    if span.style in ("b", "mark"):
        return f"{ANSI_BOLD}{text}{ANSI_RESET}"
    if span.style == "i":
        return f"{ANSI_ITALIC}{text}{ANSI_RESET}"
    return text


def to_console(doc: Doc, *, ansi: bool = False, marks: tuple[str, str] | None = None) -> str:
    """Plain text for a terminal: same blocks, bold/italic as ANSI when `ansi`.

    marks: wrap highlighted (`mark`) spans in these instead, e.g. `("«", "»")` for a pipe.
    """
    return SEPARATOR.join(
        "".join(_span_console(span, ansi, marks) for span in block) for block in doc.blocks
    )
