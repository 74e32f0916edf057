"""Views of the bot itself: /start, /help, /stats, usage lines, /lang, unknown commands."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from bot.commands import COMMANDS, CONSOLE_COMMANDS, Command, command
from bot.corpus import CorpusName, Fetched
from bot.i18n import LANGUAGES, Translator
from bot.render.blocks import EN, checked_keyboard, examples_block, text_doc, translated
from bot.render.callbacks import SetLanguage, encode
from bot.render.doc import Doc, Segment
from bot.render.limits import MAX_COMMAND_DESCRIPTION_CHARS, fitted
from bot.render.presentations import full_date
from bot.search import IndexStats


def usage_doc(name: str, *, t: Translator = EN) -> Doc:
    """How to use a command that needs an argument."""
    wanted = command(name)
    if not wanted.takes_argument:
        raise ValueError(f"/{name} takes no argument")
    usage = t.gettext(wanted.usage_key)
    return text_doc("usage.line", t=t, usage=usage, example=t.gettext(wanted.example_key))


def _venues(name: CorpusName, t: Translator) -> str:
    """ "ICML 2013–2019 and ICLR 2017–2018" in the reader's language."""
    spans = [str(span) for span in name.venues]
    if len(spans) == 2:
        return t.gettext("corpus.venues_2", first=spans[0], second=spans[1])
    if len(spans) == 3:
        return t.gettext("corpus.venues_3", first=spans[0], second=spans[1], third=spans[2])
    return ", ".join(spans)


def corpus_papers(name: CorpusName, count: int, *, t: Translator = EN) -> str:
    """ "57 ICML 2026 papers", "4,378 papers from ICML 2013–2019 and …", or "3 papers"."""
    if name.single:
        return t.ngettext("corpus.papers_of", count, name=name.single)
    if name.venues:
        return t.ngettext("corpus.papers_from", count, venues=_venues(name, t))
    return t.ngettext("corpus.papers", count)


def corpus_label(name: CorpusName, *, t: Translator = EN) -> str:
    """ "ICML 2026", "ICML 2013–2019 and ICLR 2017–2018", else "this list"."""
    return name.single or (_venues(name, t) if name.venues else t.gettext("corpus.unnamed"))


def command_description(
    entry: Command, *, t: Translator = EN, name: CorpusName | None = None
) -> str:
    """The command's line for /help and the menu (naming the served corpus, for /random)."""
    label = corpus_label(name or CorpusName(), t=t)
    return fitted(t, entry.description_key, MAX_COMMAND_DESCRIPTION_CHARS, corpus=label)


def fetched_line(fetched: Fetched, *, t: Translator = EN) -> str:
    """ "List from icml.cc as of 14 Jul 2026": where the served list came from, and its date."""
    return t.gettext("start.fetched", source=fetched.host, date=full_date(fetched.on, t))


def start_doc(
    paper_count: int,
    *,
    t: Translator = EN,
    name: CorpusName | None = None,
    examples: Sequence[str] = (),
    fetched: Fetched | None = None,
) -> Doc:
    """Welcome: how many papers of what, how fresh the list is, how to ask, example questions."""
    papers = corpus_papers(name or CorpusName(), paper_count, t=t)
    welcome = translated(t, "start.welcome", paper_count, papers=papers)
    if fetched is not None:
        when = full_date(fetched.on, t)
        welcome += (Segment("\n"), *translated(t, "start.fetched", source=fetched.host, date=when))
    return Doc((welcome, translated(t, "start.how_to_ask"), examples_block(t, examples)))


def _command_lines(listed: Sequence[Command], t: Translator, name: CorpusName) -> list[Segment]:
    spans: list[Segment] = []
    for entry in listed:
        line = translated(
            t,
            "help.command_line",
            command=f"/{entry.name}",
            description=command_description(entry, t=t, name=name),
        )
        spans += [Segment("\n"), *line]
    return spans


def help_doc(
    *,
    console: bool = False,
    t: Translator = EN,
    name: CorpusName | None = None,
    paper_count: int | None = None,
) -> Doc:
    """What the bot serves, every command in a line (the console's own too), the syntax."""
    name = name or CorpusName()
    listed = [*COMMANDS, *CONSOLE_COMMANDS] if console else list(COMMANDS)
    if console:
        listed = [entry for entry in listed if entry.name != "lang"]  # --lang there
    commands = (*translated(t, "help.title"), *_command_lines(listed, t, name))
    serving = corpus_papers(name, paper_count, t=t) if paper_count is not None else ""
    first = (translated(t, "help.serving", papers=serving),) if serving else ()
    syntax = translated(t, "help.syntax")
    if console:
        return Doc((*first, commands, syntax))
    return Doc((*first, commands, syntax, translated(t, "help.private_and_inline")))


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def stats_doc(
    stats: IndexStats,
    *,
    loaded_at: datetime | None = None,
    skipped: int = 0,
    t: Translator = EN,
    fetched: Fetched | None = None,
) -> Doc:
    """/stats: how many papers from how many sources, fetched and loaded when, records skipped."""
    spans: list[Segment] = [
        *translated(t, "stats.title"),
        Segment("\n"),
        *translated(t, "stats.papers_indexed", stats.papers),
        Segment("\n"),
        *translated(t, "stats.source_files", stats.sources),
    ]
    if fetched is not None:
        when = full_date(fetched.on, t)
        spans += [Segment("\n"), *translated(t, "stats.fetched", source=fetched.host, date=when)]
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
    """/lang in a terminal, which has no buttons: the `/lang <code>` of each language."""
    spans: list[Segment] = list(translated(t, "lang.prompt"))
    for lang, name in LANGUAGES.items():
        spans += [Segment(f"\n/lang {lang}"), Segment(f" — {name}")]
    return Doc((tuple(spans),))


def lang_changed_doc(*, t: Translator) -> Doc:
    """The /lang confirmation, in the newly chosen language `t`."""
    return text_doc("lang.changed", t=t, language=LANGUAGES[t.lang])
