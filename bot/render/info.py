"""Views of the bot itself: /start, /help, /stats, usage lines, /lang, unknown commands."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from bot.commands import COMMANDS, CONSOLE_COMMANDS, Command, command
from bot.i18n import LANGUAGES, Translator
from bot.render.callbacks import SetLanguage, encode
from bot.render.doc import Doc, Segment
from bot.render.parts import EN, checked_keyboard, examples_block, text_doc, translated
from bot.search import IndexStats

__all__ = [
    "help_doc",
    "lang_changed_doc",
    "lang_codes_doc",
    "lang_doc",
    "start_doc",
    "stats_doc",
    "unknown_command_doc",
    "usage_doc",
]


def usage_doc(name: str, *, t: Translator = EN) -> Doc:
    """How to use a command that needs an argument."""
    wanted = command(name)
    if not wanted.takes_argument:
        raise ValueError(f"/{name} takes no argument")
    usage = t.gettext(wanted.usage_key)
    return text_doc("usage.line", t=t, usage=usage, example=t.gettext(wanted.example_key))


def start_doc(paper_count: int, *, t: Translator = EN) -> Doc:
    """Welcome: what the bot knows, how to ask, examples."""
    return Doc(
        (
            translated(t, "start.welcome", paper_count),
            translated(t, "start.how_to_ask"),
            examples_block(t),
        )
    )


def _command_lines(listed: Sequence[Command], t: Translator) -> list[Segment]:
    spans: list[Segment] = []
    for entry in listed:
        line = translated(
            t,
            "help.command_line",
            command=f"/{entry.name}",
            description=t.gettext(entry.description_key),
        )
        spans += [Segment("\n"), *line]
    return spans


def help_doc(*, console: bool = False, t: Translator = EN) -> Doc:
    """Every command with a one-line description (with /next, /prev, /quit in the console)."""
    listed = [*COMMANDS, *CONSOLE_COMMANDS] if console else list(COMMANDS)
    if console:
        listed = [entry for entry in listed if entry.name != "lang"]  # --lang there
    commands = (*translated(t, "help.title"), *_command_lines(listed, t))
    syntax = translated(t, "help.syntax")
    if console:
        return Doc((commands, syntax))
    return Doc((commands, syntax, translated(t, "help.private_and_inline")))


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def stats_doc(
    stats: IndexStats,
    *,
    loaded_at: datetime | None = None,
    skipped: int = 0,
    t: Translator = EN,
) -> Doc:
    """What a user cares about: how many papers, from how many sources, loaded when, skipped."""
    spans: list[Segment] = [
        *translated(t, "stats.title"),
        Segment("\n"),
        *translated(t, "stats.papers_indexed", stats.papers),
        Segment("\n"),
        *translated(t, "stats.source_files", stats.sources),
    ]
    if loaded_at is not None:
        spans += [Segment("\n"), *translated(t, "stats.loaded_at", when=_when(loaded_at))]
    if skipped:
        spans += [Segment("\n"), *translated(t, "stats.skipped", skipped)]
    return Doc((tuple(spans),))


def unknown_command_doc(*, t: Translator = EN) -> Doc:
    """A command the bot does not have (private chats only)."""
    return text_doc("error.unknown_command", t=t)


def lang_doc(*, t: Translator = EN) -> Doc:
    """/lang: one button per language, each labelled in its own language."""
    row = tuple((name, encode(SetLanguage(lang))) for lang, name in LANGUAGES.items())
    return Doc((translated(t, "lang.prompt"),), checked_keyboard([row]))


def lang_codes_doc(*, t: Translator = EN) -> Doc:
    """/lang in a terminal, which has no buttons: the `/lang <code>` to type for each language."""
    spans: list[Segment] = list(translated(t, "lang.prompt"))
    for lang, name in LANGUAGES.items():
        spans += [Segment(f"\n/lang {lang}"), Segment(f" — {name}")]
    return Doc((tuple(spans),))


def lang_changed_doc(*, t: Translator) -> Doc:
    """The /lang confirmation, in the newly chosen language `t`."""
    return text_doc("lang.changed", t=t, language=LANGUAGES[t.lang])
