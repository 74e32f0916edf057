"""`python -m bot console`: the start-up, the read-answer loop, colours and the locale's
language; the conversation itself is `bot.cli.session`'s."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, TypeVar

from bot import answers, loading, render
from bot.cli.session import ConsoleSession
from bot.config import ConfigError, Settings, load_settings
from bot.corpus import CorpusError, LoadReport
from bot.i18n import Lang, Translator, pick_language, translator
from bot.search import Index, Retriever
from bot.store import Store, open_store

QUIT_COMMANDS = ("/quit", "/exit")
T = TypeVar("T")


def run_console(
    corpus_paths: Sequence[str | Path] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    lang: Lang | None = None,
    environ: Mapping[str, str] = os.environ,
) -> int:
    """Read questions from stdin until EOF or /quit and print the answers, in `lang` or else
    the locale's language; the exit code."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    t = translator(lang or console_language(environ))
    try:
        settings = load_settings()
        report, index = loading.load_index(
            loading.corpus_paths(settings, corpus_paths),
            settings.index_cache_dir,
            strict=settings.corpus_strict,
            corpus_filter=settings.corpus_filter,
            venue_timezone=settings.venue_timezone,
        )
    except loading.EmptyCorpusError:
        print(t.gettext("console.no_papers"), file=sys.stderr)
        return 2
    except (ConfigError, CorpusError) as exc:
        print(t.gettext("console.cannot_start", error=exc), file=sys.stderr)
        return 2
    retriever, started = _retriever(index, settings, t, piped=not is_terminal(stdin))
    store = LazyStore(lambda: open_store(settings.database_url, settings.data_dir))
    session = ConsoleSession(
        retriever,
        per_page=settings.results_per_page,
        t=t,
        skipped=report.not_loaded,
        sources=len(report.sources),
        store=store,
        facts=answers.FactsMemo(settings.corpus_name),
    )
    try:
        chat(session, report, stdin, stdout, ansi=styled(stdout, environ))
    finally:
        store.close()
        if started is not None:
            # Papers still embedding: the batch under way ends and what was embedded stays
            # cached; the interpreter's exit must not tear the model's threads down mid-run.
            started.job.finish()
    return 0


def _retriever(
    index: Index, settings: Settings, t: Translator, *, piped: bool
) -> tuple[Retriever, loading.SemanticStart | None]:
    """The retriever to serve and its semantic start (None: BM25 alone). Papers embed quietly
    in the background, as the prompt owns the terminal. Piped questions wait for the speller,
    the glossary and vectors quick to make, as `search` does; else stderr says when vectors
    will be ready."""
    index.queries.start_glossary()  # before the embedding job, which waits for it
    started = loading.start_semantic(index, settings, progress=lambda done, total: None)
    if piped:
        index.queries.load_speller()
        index.queries.load_glossary()
    if started is None:
        return index, None
    readiness = loading.settle(started, quick=loading.QUICK_EMBED_SECONDS if piped else 0.0)
    notice = answers.pending_notice(readiness, t=t)
    if notice:
        print(notice, file=sys.stderr)
    return started.retriever, started


@dataclass
class LazyStore:
    """A store opened by the first command that needs it (a console that only searches creates
    no database), run on an event loop of its own, since the console is not async."""

    open: Callable[[], Awaitable[Store]]
    _store: Store | None = None
    _runner: asyncio.Runner = field(default_factory=asyncio.Runner)

    def __call__(self, work: Callable[[Store], Awaitable[T]]) -> T:
        """Run `work` on the store; StoreOpenError when it cannot open (it is tried again)."""
        if self._store is None:
            self._store = self._runner.run(self.open())
        return self._runner.run(work(self._store))

    def close(self) -> None:
        """Close the store, if a command opened it, and the loop."""
        if self._store is not None:
            self._runner.run(self._store.close())
            self._store = None
        self._runner.close()


def chat(
    session: ConsoleSession, report: LoadReport, stdin: TextIO, stdout: TextIO, *, ansi: bool
) -> None:
    """The read-answer loop until EOF or /quit, after the banner and the load's skip report."""
    interactive = is_terminal(stdin)
    # The corpus's name only: its programme and topics wait for a command that needs them.
    name, fetched = session.facts.heading(session.index)
    papers = render.corpus_papers(name, len(report.papers), t=session.t)
    print(session.t.ngettext("console.banner", len(report.papers), papers=papers), file=stdout)
    if fetched is not None:
        print(render.fetched_line(fetched, t=session.t), file=stdout)
    if report.not_loaded:
        skipped = render.text_doc("stats.skipped", report.not_loaded, t=session.t)
        print(render.to_console(skipped), file=stdout)
        for line in report.notes():
            print(line, file=sys.stderr)
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


def is_terminal(stream: TextIO) -> bool:
    """Whether `stream` is a terminal (a pipe or a StringIO is not)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def styled(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether to style `stream` with ANSI: a terminal, and NO_COLOR unset or empty."""
    return is_terminal(stream) and not environ.get("NO_COLOR")


def console_language(environ: Mapping[str, str]) -> Lang:
    """The language the terminal's locale asks for (`zh_TW.UTF-8` -> zh_Hant), else English."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            return pick_language(value.split(".", 1)[0].split("@", 1)[0])
    return pick_language(None)
