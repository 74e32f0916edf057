"""The paper-id rule for commands: when `/paper_<id>` is tappable, and reading it back."""

from __future__ import annotations

import re

from bot.render.limits import MAX_COMMAND_CHARS

SHORTCUT_PREFIX = "paper_"
MAX_SHORTCUT_ID_CHARS = MAX_COMMAND_CHARS - len(SHORTCUT_PREFIX)
"""Longer ids would make a command Telegram does not recognise (BotCommand limit)."""

_ID = rf"[A-Za-z0-9_]{{1,{MAX_SHORTCUT_ID_CHARS}}}"
_COMMAND_ID = re.compile(rf"^{_ID}$")
PAPER_SHORTCUT = re.compile(rf"^/{SHORTCUT_PREFIX}({_ID})(?:@([A-Za-z0-9_]+))?(?:\s|$)")
"""`/paper_<id>` or `/paper_<id>@bot` at the start of a message: id, addressee."""


def paper_command(paper_id: str) -> str:
    """`/paper_12` when Telegram can make it tappable, else `/paper <id>`."""
    if _COMMAND_ID.match(paper_id):
        return f"/{SHORTCUT_PREFIX}{paper_id}"
    return f"/paper {paper_id}"


def parse_paper_shortcut(text: str) -> tuple[str, str | None] | None:
    """(paper id, addressed bot or None) for a `/paper_<id>` message, else None."""
    match = PAPER_SHORTCUT.match(text)
    if match is None:
        return None
    return match.group(1), match.group(2)
