"""Links that open a paper: `https://t.me/<bot>?start=<paper id>` (every paper id is a payload)."""

from __future__ import annotations

import re

from bot.corpus import is_tappable_id

_BOT_USERNAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{4,31}")


def start_payload(paper_id: str) -> str | None:
    """The `/start` payload that opens `paper_id`: the id itself; None if it is no paper id."""
    return paper_id if is_tappable_id(paper_id) else None


def paper_from_payload(payload: str) -> str | None:
    """The paper id a `/start` payload names, None if it cannot name one."""
    payload = payload.strip()
    return payload if is_tappable_id(payload) else None


def start_link(bot_username: str, paper_id: str) -> str | None:
    """`https://t.me/<bot>?start=<paper id>`, None if either is not valid."""
    username = bot_username.removeprefix("@")
    payload = start_payload(paper_id)
    if payload is None or not _BOT_USERNAME.fullmatch(username):
        return None
    return f"https://t.me/{username}?start={payload}"
