"""The bot's commands, written once: Telegram handlers, /help, the menu and the console use it.

Pure data (no `telegram`): `bot.tg.app` binds each name to its handler and
`bot.console` to its console answer; both check they cover exactly these names. The
words (description, usage, example) are catalogue entries named after the command.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Command:
    """One public command."""

    name: str
    """Without the slash; lower case, at most 32 characters (BotCommand)."""
    takes_argument: bool = False
    """Whether it needs an argument; without one it answers with its usage."""

    @property
    def description_key(self) -> str:
        """Catalogue key of the one line for /help and the menu (at most 256 characters)."""
        return f"command.{self.name}"

    @property
    def usage_key(self) -> str:
        """Catalogue key of the command with its argument, e.g. `/search <question>`."""
        return f"usage.{self.name}"

    @property
    def example_key(self) -> str:
        """Catalogue key of a filled-in usage, shown when the argument is missing."""
        return f"usage.{self.name}_example"


COMMANDS: tuple[Command, ...] = (
    Command("start"),
    Command("help"),
    Command("search", takes_argument=True),
    Command("paper", takes_argument=True),
    Command("similar", takes_argument=True),
    Command("author", takes_argument=True),
    Command("random"),
    Command("session", takes_argument=True),
    Command("stats"),
    Command("lang"),
    Command("saved"),
    Command("recommend"),
    Command("export"),
    Command("schedule"),
    Command("now"),
    Command("remind"),
    Command("follow", takes_argument=True),
    Command("following"),
    Command("forget"),
)
"""Menu order; admin commands (/reload) are deliberately not here."""

COMMAND_NAMES = frozenset(command.name for command in COMMANDS)

CONSOLE_COMMANDS: tuple[Command, ...] = (
    Command("next"),
    Command("prev"),
    Command("save"),
    Command("remove"),
    Command("dismiss"),
    Command("unfollow"),
    Command("quit"),
)
"""Console-only commands, listed by the console's /help: what Telegram does with buttons
(paging, ☆ Save, ✕ Remove, ✕ not interested, Unfollow) typed instead."""


def command(name: str) -> Command:
    """The command called `name`; raises KeyError for an unknown one."""
    for candidate in COMMANDS:
        if candidate.name == name:
            return candidate
    raise KeyError(name)


def addressed_to(addressee: str | None, username: str | None) -> bool:
    """Whether `/command@addressee` is for the bot called `username` (no addressee: for any).

    Telegram compares bot usernames without regard to case.
    """
    return addressee is None or addressee.lower() == (username or "").lower()
