"""The console's terminal side: the read-answer loop, colours, the locale's language."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Protocol, TextIO

from bot import render
from bot.corpus import LoadReport
from bot.i18n import Lang, Translator, pick_language
from bot.render import Doc


class ConsoleSession(Protocol):
    """What the loop needs of a conversation (`bot.console.ConsoleSession` has it)."""

    t: Translator

    def answer(self, line: str) -> Doc | None:
        """The answer to one input line; None for a blank line."""
        ...


__all__ = ["QUIT_COMMANDS", "chat", "console_language", "is_terminal", "no_color"]

QUIT_COMMANDS = ("/quit", "/exit")


def is_terminal(stream: TextIO) -> bool:
    """Whether `stream` is a terminal (a test's StringIO or a pipe is not one)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def no_color(environ: Mapping[str, str]) -> bool:
    """NO_COLOR set to anything but "" asks for no ANSI styling (https://no-color.org)."""
    return bool(environ.get("NO_COLOR"))


def chat(
    session: ConsoleSession, report: LoadReport, stdin: TextIO, stdout: TextIO, *, ansi: bool
) -> None:
    """The read-answer loop until EOF or /quit, after the banner and the load's skip report."""
    interactive = is_terminal(stdin)
    print(session.t.ngettext("console.banner", len(report.papers)), file=stdout)
    if report.skipped:
        skipped = Doc((render.translated(session.t, "stats.skipped", len(report.skipped)),))
        print(render.to_console(skipped), file=stdout)
        for line in report.skipped:
            print(f"Skipped {line}", file=sys.stderr)
    while True:
        if interactive:
            stdout.write("> ")
            stdout.flush()
        try:
            line = stdin.readline()
        except KeyboardInterrupt:
            break
        if not line:
            break
        if not interactive and line.strip():
            # Piped input: echo it so the output reads as a conversation.
            print(f"> {line.strip()}", file=stdout)
        if line.strip().lower() in QUIT_COMMANDS:
            break
        doc = session.answer(line)
        if doc is not None:
            print(render.to_console(doc, ansi=ansi) + "\n", file=stdout)
    if interactive:
        print(file=stdout)


def console_language(environ: Mapping[str, str]) -> Lang:
    """The language the terminal's locale asks for (`zh_TW.UTF-8` -> zh_Hant), else English."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            return pick_language(value.split(".", 1)[0].split("@", 1)[0])
    return pick_language(None)
