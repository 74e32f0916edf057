"""How the renderer writes a paper's command; the id rule itself is `bot.corpus`'s."""

from __future__ import annotations

from bot.corpus import PAPER_COMMAND, is_tappable_id


def paper_command(paper_id: str) -> str:
    """`/paper_12` when Telegram can make it tappable, else `/paper <id>`."""
    if is_tappable_id(paper_id):
        return f"/{PAPER_COMMAND}{paper_id}"
    return f"/paper {paper_id}"
