"""How the renderer writes a paper's command; the id rule itself is `bot.corpus`'s."""

from __future__ import annotations

from bot.corpus import PAPER_COMMAND, PAPER_COMMAND_PATTERN, is_tappable_id
from bot.corpus import parse_paper_command as parse_paper_shortcut

PAPER_SHORTCUT = PAPER_COMMAND_PATTERN
"""`/paper_<id>` or `/paper_<id>@bot` at the start of a message: id, addressee."""

__all__ = ["PAPER_SHORTCUT", "paper_command", "parse_paper_shortcut"]


def paper_command(paper_id: str) -> str:
    """`/paper_12` when Telegram can make it tappable, else `/paper <id>`."""
    if is_tappable_id(paper_id):
        return f"/{PAPER_COMMAND}{paper_id}"
    return f"/paper {paper_id}"
