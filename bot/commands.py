"""The bot's commands, written once: Telegram handlers, /help, the menu and the console use it.

Pure data (no `telegram`): `bot.tg.commands` binds each name to its handler and
`bot.console` to its console answer; both check they cover exactly these names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Command:
    """One public command."""

    name: str
    """Without the slash; lower case, at most 32 characters (BotCommand)."""
    description: str
    """One line for /help and the menu, at most 256 characters (BotCommand)."""
    usage: str = ""
    """The command with its argument, e.g. `/search <question>`; empty: takes none."""
    example: str = ""
    """A filled-in `usage`, shown when the argument is missing."""


COMMANDS: tuple[Command, ...] = (
    Command("start", "What this bot knows and how to ask"),
    Command("help", "Every command with a one-line description"),
    Command(
        "search",
        "Find papers: /search <question>",
        "/search <question>",
        "/search diffusion models",
    ),
    Command("paper", "Show a paper: /paper <id> (or tap /paper_<id>)", "/paper <id>", "/paper 1"),
    Command("similar", "Papers like this one: /similar <id>", "/similar <id>", "/similar 1"),
    Command("random", "A random ICML 2026 paper"),
    Command("stats", "How many papers, sources and terms are indexed"),
    Command("saved", "Your reading list"),
    Command("export", "Export your reading list"),
    Command(
        "follow",
        "Get new papers on a topic: /follow <topic>",
        "/follow <topic>",
        "/follow diffusion models",
    ),
    Command("following", "Topics you follow, and how to stop"),
    Command("forget", "Delete everything I stored about you"),
)
"""Menu order; admin commands (/reload) are deliberately not here."""

COMMAND_NAMES = frozenset(command.name for command in COMMANDS)


def command(name: str) -> Command:
    """The command called `name`; raises KeyError for an unknown one."""
    for candidate in COMMANDS:
        if candidate.name == name:
            return candidate
    raise KeyError(name)
