"""Chat with the bot in a terminal: same commands and answers, as plain text; no token.

Driven by the command registry (`bot.commands`): each command has a console answer here,
checked at import like the Telegram handlers; /next, /prev and /quit are console-only.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO, TypeVar

from bot import render, runtime
from bot.commands import COMMAND_NAMES, command
from bot.config import DEFAULT_RESULTS_PER_PAGE, ConfigError, load_settings
from bot.corpus import CorpusError, parse_paper_command
from bot.i18n import LANGUAGES, Lang, Translator, pick_language, translator
from bot.logs import redact
from bot.render import Doc, library
from bot.search import MAX_QUERY_CHARS, Retriever
from bot.store import Store, StoreOpenError, StoreUnavailable, open_store
from bot.store.export import FORMATS, export

QUIT_COMMANDS = ("/quit", "/exit")
PAGE_COMMANDS = ("next", "prev")  # console-only: Telegram has buttons for these
CONSOLE_USER_ID = 0  # Telegram user ids are positive: the console's user is nobody's
T = TypeVar("T")


@dataclass
class ConsoleSession:
    """One terminal conversation: the index and the last question for /next and /prev."""

    index: Retriever
    per_page: int = DEFAULT_RESULTS_PER_PAGE
    question: str = ""
    offset: int = 0
    t: Translator = field(default_factory=lambda: translator("en"))
    """The language of the answers; `/lang <code>` changes it."""
    loaded_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    """When the index was loaded, for /stats."""
    skipped: int = 0
    """Records the corpus load skipped, for /stats."""
    store: Store | None = None
    """The reading list and topics of the console's user (CONSOLE_USER_ID)."""
    runner: asyncio.Runner | None = None
    """Runs the store's async calls; the store belongs to this runner's loop."""
    export_dir: Path = Path()
    """Where /export writes its files."""

    def _stored(self, work: Callable[[Store], Awaitable[T]]) -> T | None:
        """`work` on the store; None without a store or while the database is away."""
        if self.store is None or self.runner is None:
            return None
        store = self.store
        try:
            return self.runner.run(work(store))
        except StoreUnavailable:
            return None

    def _unavailable(self) -> Doc:
        return library.text_doc("list.save_failed", t=self.t)

    def answer(self, line: str) -> Doc | None:
        """The answer to one input line, as a Doc; None for a blank line."""
        text = line.strip()
        if not text:
            return None
        if not text.startswith("/"):
            return self._search(text, 0)
        shortcut = parse_paper_command(text)
        if shortcut is not None:
            return self._command_paper(shortcut[0])
        name, _, argument = text[1:].partition(" ")
        name = name.split("@", 1)[0].lower()
        argument = argument.strip()
        if name in PAGE_COMMANDS:
            if not self.question:
                return Doc((render.translated(self.t, "console.nothing_to_page"),))
            step = self.per_page if name == "next" else -self.per_page
            return self._search(self.question, max(0, self.offset + step))
        if name not in COMMAND_NAMES:
            return render.unknown_command_doc(t=self.t)
        if command(name).takes_argument and not argument:
            return render.usage_doc(name, t=self.t)
        answer: Callable[[str], Doc | None] = getattr(self, ANSWER_PREFIX + name)
        return answer(argument)

    def _command_start(self, _argument: str) -> Doc:
        return render.start_doc(len(self.index), t=self.t)

    def _command_help(self, _argument: str) -> Doc:
        return render.help_doc(console=True, t=self.t)

    def _command_search(self, argument: str) -> Doc:
        return self._search(argument, 0)

    def _command_random(self, _argument: str) -> Doc | None:
        papers = self.index.papers
        return render.paper_doc(random.choice(papers), t=self.t) if papers else None

    def _command_stats(self, _argument: str) -> Doc:
        return render.stats_doc(
            self.index.stats(), loaded_at=self.loaded_at, skipped=self.skipped, t=self.t
        )

    def _command_author(self, name: str) -> Doc:
        return render.author_doc(name, self.index.by_author(name), t=self.t)

    def _command_lang(self, argument: str) -> Doc:
        # No buttons in a terminal: /lang lists the codes, `/lang <code>` switches.
        chosen = {lang.lower(): lang for lang in LANGUAGES}.get(argument.lower())
        if chosen is not None:
            self.t = translator(chosen)
            return render.lang_changed_doc(t=self.t)
        spans: list[render.Span] = list(render.translated(self.t, "lang.prompt"))
        for lang, name in LANGUAGES.items():
            spans += [render.Span(f"\n/lang {lang}"), render.Span(f" — {name}")]
        return Doc((tuple(spans),))

    def _command_saved(self, _argument: str) -> Doc:
        total = self._stored(lambda store: store.count_saved(CONSOLE_USER_ID))
        papers = self._stored(
            lambda store: store.list_saved(CONSOLE_USER_ID, offset=0, limit=self.per_page)
        )
        if total is None or papers is None:
            return self._unavailable()
        in_corpus = frozenset(p.paper_id for p in papers if self.index.get(p.paper_id))
        return library.saved_doc(
            papers, total=total, offset=0, per_page=self.per_page, in_corpus=in_corpus, t=self.t
        )

    def _command_export(self, argument: str) -> Doc:
        fmt = argument.lower().lstrip(".")
        if fmt not in FORMATS:
            return library.text_doc("export.usage", t=self.t)
        rows = self._stored(lambda store: store.export_rows(CONSOLE_USER_ID))
        if rows is None:
            return self._unavailable()
        if not rows:
            return library.text_doc("export.empty", t=self.t)
        path = self.export_dir / library.export_filename(fmt)
        path.write_text(export(rows, fmt), encoding="utf-8")
        return Doc(((render.Span(str(path.resolve())),),))

    def _command_follow(self, argument: str) -> Doc:
        outcome = self._stored(lambda store: store.follow(CONSOLE_USER_ID, argument))
        if outcome is None or self.store is None:
            return self._unavailable()
        return library.follow_doc(outcome, " ".join(argument.split()), self.store.limits, t=self.t)

    def _command_following(self, _argument: str) -> Doc:
        topics = self._stored(lambda store: store.topics(CONSOLE_USER_ID))
        return self._unavailable() if topics is None else library.following_doc(topics, t=self.t)

    def _command_forget(self, argument: str) -> Doc:
        if argument.lower() != "yes":  # no buttons here: confirm by typing
            return Doc((*library.forget_prompt_doc(t=self.t).blocks, (render.Span("/forget yes"),)))
        if self._stored(_forget_console_user) is None:
            return self._unavailable()
        return library.text_doc("forget.done", t=self.t)

    def _search(self, question: str, offset: int) -> Doc:
        question = question[:MAX_QUERY_CHARS]  # the analyzer's cut, as in Telegram
        if offset == 0 and self.index.is_author_question(question):
            return self._command_author(question)
        result = self.index.search(question, limit=self.per_page, offset=offset)
        if result.hits:
            self.question, self.offset = question, offset
        doc = render.results_doc(result, per_page=self.per_page, t=self.t)
        more = []
        if result.confident and offset + len(result.hits) < result.total:
            more.append("/next")
        if result.confident and offset > 0 and result.hits:
            more.append("/prev")
        if more:
            line = render.translated(self.t, "console.more", commands=" ".join(more))
            doc = Doc((*doc.blocks, line), doc.keyboard)
        return doc

    def _command_paper(self, paper_id: str) -> Doc:
        found = self.index.get(paper_id)
        if found is None:
            return render.not_found_doc(paper_id, t=self.t)
        return render.paper_doc(found, t=self.t)

    def _command_similar(self, paper_id: str) -> Doc:
        found = self.index.get(paper_id)
        if found is None:
            return render.not_found_doc(paper_id, t=self.t)
        hits = self.index.similar(found.id, limit=self.per_page)
        return render.similar_doc(found, hits, t=self.t)


def _is_terminal(stream: TextIO) -> bool:
    """Whether a person types into `stream` (a test's StringIO or a pipe is not one)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def run_console(
    corpus_paths: Sequence[str | Path] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    lang: Lang | None = None,
    environ: Mapping[str, str] = os.environ,
) -> int:
    """Read questions from stdin until EOF or /quit; print answers. Returns the exit code.

    lang: the answers' language; None takes it from LC_ALL / LC_MESSAGES / LANG.
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    t = translator(lang or console_language(environ))
    try:
        settings = load_settings()
        paths = runtime.corpus_paths(settings, corpus_paths)
        report, index = runtime.load_index(
            paths,
            settings.index_cache_dir,
            strict=settings.corpus_strict,
            corpus_filter=settings.corpus_filter,
        )
    except runtime.EmptyCorpusError:
        print(t.gettext("console.no_papers"), file=sys.stderr)
        return 2
    except (ConfigError, CorpusError) as exc:
        print(t.gettext("console.cannot_start", error=exc), file=sys.stderr)
        return 2
    # Embeds in the background like the bot (quietly: the prompt owns the terminal). Questions
    # piped in are answered as the bot would once ready: wait for the vectors (cached: seconds).
    retriever, job = runtime.semantic_retriever(index, settings, progress=lambda done, total: None)
    if not _is_terminal(stdin):
        index.queries.load_speller()
        if job is not None:
            job.done.wait()
    with asyncio.Runner() as runner:
        try:
            store = runner.run(open_store(settings.database_url, settings.data_dir))
        except StoreOpenError as exc:
            print(t.gettext("console.cannot_start", error=redact(str(exc))), file=sys.stderr)
            return 2
        session = ConsoleSession(
            retriever,
            per_page=settings.results_per_page,
            t=t,
            skipped=len(report.skipped),
            store=store,
            runner=runner,
        )
        try:
            _chat(session, len(report.papers), stdin, stdout)
        finally:
            runner.run(store.close())
    return 0


async def _forget_console_user(store: Store) -> bool:
    await store.forget_user(CONSOLE_USER_ID)
    return True


def _chat(session: ConsoleSession, papers: int, stdin: TextIO, stdout: TextIO) -> None:
    """The read-answer loop until EOF or /quit."""
    interactive = stdin.isatty()
    ansi = stdout.isatty()
    print(session.t.ngettext("console.banner", papers), file=stdout)
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


ANSWER_PREFIX = "_command_"
"""ConsoleSession answers `/name` with its method `_command_<name>(argument)`."""

_missing = sorted(n for n in COMMAND_NAMES if not hasattr(ConsoleSession, ANSWER_PREFIX + n))
if _missing:  # a real check at import, not an assert
    raise RuntimeError(f"the console has no answer for {_missing}")
