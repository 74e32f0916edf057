"""The bot's commands, listed once for the Telegram handlers, /help, the menu and the console;
their words are catalogue entries named after them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Command:
    """A public command: its name without the slash, and whether it needs an argument (without
    one it answers with its usage)."""

    name: str
    takes_argument: bool = False

    @property
    def description_key(self) -> str:
        """The catalogue key of its line in /help and the menu."""
        return f"command.{self.name}"

    @property
    def usage_key(self) -> str:
        """The catalogue key of the command with its argument, e.g. `/search <question>`."""
        return f"usage.{self.name}"

    @property
    def example_key(self) -> str:
        """The catalogue key of a filled-in usage."""
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
    Command("timezone"),
    Command("follow", takes_argument=True),
    Command("following"),
    Command("forget"),
)  # menu order; admin commands (/reload) are not here

COMMAND_NAMES = frozenset(command.name for command in COMMANDS)

CONSOLE_COMMANDS: tuple[Command, ...] = (
    Command("next"),
    Command("prev"),
    Command("save"),
    Command("remove"),
    Command("dismiss"),
    Command("unfollow"),
    Command("quit"),
)  # the console's own: what Telegram does with buttons, typed


def command(name: str) -> Command:
    """The command called `name`; raises KeyError for an unknown one."""
    for candidate in COMMANDS:
        if candidate.name == name:
            return candidate
    raise KeyError(name)


def addressed_to(addressee: str | None, username: str | None) -> bool:
    """Whether `/command@addressee` is for the bot called `username` (any bot when there is no
    addressee); case does not matter."""
    return addressee is None or addressee.lower() == (username or "").lower()
