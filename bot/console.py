"""Chat with the bot in a terminal: same commands and answers, as plain text; no token.

An adapter over `bot.answers`, like the Telegram handlers: each command of the registry
(`bot.commands`) has a console answer here, checked at import. What Telegram does with
buttons is typed: /next and /prev page, /save and /remove keep papers, /unfollow a topic.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO, TypeVar

from bot import answers, loading, render
from bot.commands import COMMAND_NAMES, CONSOLE_COMMANDS, command
from bot.config import DEFAULT_RESULTS_PER_PAGE, ConfigError, Settings, load_settings
from bot.console_io import chat, console_language, is_terminal, no_color
from bot.corpus import CorpusError, LoadReport, parse_paper_command
from bot.i18n import LANGUAGES, Lang, Translator, language_named, translator
from bot.logs import redact
from bot.render import Doc, Segment, library
from bot.render.callbacks import topic_ref
from bot.search import Retriever
from bot.store import Store, StoreOpenError, StoreUnavailable, open_store
from bot.store.model import topic_key

CONSOLE_USER_ID = 0  # Telegram user ids are positive: the console's user is nobody's
T = TypeVar("T")
StoreOpener = Callable[[], Awaitable[Store]]


@dataclass
class ConsoleSession:
    """One terminal conversation: the index, the last answer for /next, /prev and /save."""

    index: Retriever
    per_page: int = DEFAULT_RESULTS_PER_PAGE
    t: Translator = field(default_factory=lambda: translator("en"))
    """The language of the answers; `/lang <code>` changes it."""
    loaded_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    """When the index was loaded, for /stats."""
    skipped: int = 0
    """Records the corpus load skipped, for /stats."""
    sources: int | None = None
    """Files the corpus load read, for /stats (None: the index's own count)."""
    open_store: StoreOpener | None = None
    """Opens the reading list and topics of CONSOLE_USER_ID, on the first command that needs
    them: a console that only searches creates no database."""
    export_dir: Path = Path()
    """Where /export writes its files."""
    last: answers.Answer | None = None
    """The last search answer, which /next and /prev turn and whose numbers /save reads."""
    shown: answers.Numbered = ()
    """The papers the last answer numbered (or its one card), for /save and /remove."""
    recommended_at: int | None = None
    """The offset of the recommendations shown last (None: a search was), for /next, /dismiss."""
    store: Store | None = None
    runner: asyncio.Runner | None = None
    """Runs the store's async calls; the store belongs to this runner's loop."""

    def answer(self, line: str) -> Doc | None:
        """The answer to one input line, as a Doc; None for a blank line."""
        text = line.strip()
        if not text:
            return None
        if not text.startswith("/"):
            return self._shown(answers.ask(self.index, text, per_page=self.per_page, t=self.t))
        shortcut = parse_paper_command(text)
        if shortcut is not None:
            return self._command_paper(shortcut[0])
        name, _, argument = text[1:].partition(" ")
        name, argument = name.split("@", 1)[0].lower(), argument.strip()
        if name not in COMMAND_NAMES and name not in _CONSOLE_NAMES:
            return render.unknown_command_doc(t=self.t)
        if name in COMMAND_NAMES and command(name).takes_argument and not argument:
            return render.usage_doc(name, t=self.t)
        answer: Callable[[str], Doc | None] = getattr(self, ANSWER_PREFIX + name)
        try:
            return answer(argument)
        except StoreUnavailable:  # or never opened: the same "try again" as the bot's
            return library.text_doc("list.save_failed", t=self.t)

    def _shown(self, answer: answers.Answer) -> Doc:
        """`answer`'s doc; its papers become what /save numbers, its hits what /next turns."""
        self.recommended_at = None
        if answer.papers:
            self.shown = answer.papers
        if answer.result is not None and answer.result.hits:
            self.last = answer
        doc = answer.doc
        result = answer.result
        if result is None:
            return doc
        more = []  # the closest papers of a weak answer page too
        if result.offset + len(result.hits) < result.total:
            more.append("/next")
        if result.offset > 0 and result.hits:
            more.append("/prev")
        if more:
            line = render.translated(self.t, "console.more", commands=" ".join(more))
            doc = Doc((*doc.blocks, line), doc.keyboard)
        return doc

    # ------------------------------------------------------------ the registry's commands

    def _command_start(self, _argument: str) -> Doc:
        return answers.start(self.index, t=self.t)

    def _command_help(self, _argument: str) -> Doc:
        return answers.help_text(t=self.t, console=True)

    def _command_search(self, argument: str) -> Doc:
        return self._shown(answers.ask(self.index, argument, per_page=self.per_page, t=self.t))

    def _command_paper(self, paper_id: str) -> Doc:
        return self._shown(answers.open_paper(self.index, paper_id, t=self.t))

    def _command_similar(self, paper_id: str) -> Doc:
        found = answers.similar(self.index, paper_id, per_page=self.per_page, t=self.t)
        return self._shown(found)

    def _command_author(self, name: str) -> Doc:
        return answers.author(self.index, name, t=self.t).doc

    def _command_random(self, _argument: str) -> Doc:
        return self._shown(answers.random_paper(self.index, t=self.t))

    def _command_stats(self, _argument: str) -> Doc:
        return answers.stats(
            self.index,
            sources=self.sources,
            skipped=self.skipped,
            loaded_at=self.loaded_at,
            t=self.t,
        )

    def _command_lang(self, argument: str) -> Doc:
        # No buttons in a terminal: /lang lists the codes, `/lang <code>` switches.
        chosen = language_named(argument) if argument else None
        if chosen is not None:
            self.t = translator(chosen)
            return render.lang_changed_doc(t=self.t)
        spans: list[Segment] = list(render.translated(self.t, "lang.prompt"))
        for lang, name in LANGUAGES.items():
            spans += [Segment(f"\n/lang {lang}"), Segment(f" — {name}")]
        return Doc((tuple(spans),))

    def _command_saved(self, words: str) -> Doc:
        if words:  # `/saved <words>`: the saved papers ranked against them
            rows = self._stored(lambda store: store.export_rows(CONSOLE_USER_ID))
            return self._shown(answers.saved_matches(self.index, rows, words, t=self.t))
        return self._stored(
            lambda store: answers.saved_page(
                store, self.index, CONSOLE_USER_ID, offset=0, per_page=self.per_page, t=self.t
            )
        )

    def _command_recommend(self, _argument: str) -> Doc:
        return self._recommend(0)

    def _recommend(self, offset: int) -> Doc:
        """Recommendations from `offset`; /next, /prev and /dismiss N then act on them."""
        taste = self._stored(lambda store: answers.taste(store, CONSOLE_USER_ID))
        per_page = self.per_page
        found = answers.recommended(self.index, taste, offset=offset, per_page=per_page, t=self.t)
        if not found.papers:
            return found.doc
        self.shown, self.recommended_at = found.papers, offset
        line = render.translated(self.t, "console.recommend_more")
        return Doc((*found.doc.blocks, line), found.doc.keyboard)

    def _command_dismiss(self, argument: str) -> Doc:
        at = self.recommended_at
        paper_id = self._paper_id(argument) if at is not None and argument.isdigit() else None
        if at is None or paper_id is None:
            return Doc((render.translated(self.t, "console.which_paper", command="dismiss"),))
        text = self._stored(
            lambda store: answers.dismiss(store, CONSOLE_USER_ID, paper_id, t=self.t)
        )
        return Doc(((Segment(text),), *self._recommend(at).blocks))

    def _command_export(self, argument: str) -> Doc:
        fmt = answers.export_format(argument)
        if fmt is None:
            return library.text_doc("export.usage", t=self.t)
        rows = self._stored(lambda store: store.export_rows(CONSOLE_USER_ID))
        exported = answers.export_file(rows, fmt, t=self.t)
        if exported is None:
            return library.text_doc("export.empty", t=self.t)
        path = self.export_dir / exported.filename
        path.write_bytes(exported.data)
        return Doc(((Segment(str(path.resolve())),),))

    def _command_follow(self, topic: str) -> Doc:
        return self._stored(lambda store: answers.follow(store, CONSOLE_USER_ID, topic, t=self.t))

    def _command_following(self, _argument: str) -> Doc:
        return self._stored(lambda store: answers.following(store, CONSOLE_USER_ID, t=self.t))

    def _command_forget(self, argument: str) -> Doc:
        if argument.lower() != "yes":  # no buttons here: confirm by typing
            prompt = library.forget_prompt_doc(t=self.t).blocks
            return Doc((*prompt, (Segment("/forget yes"),)))
        self._stored(lambda store: answers.forget(store, CONSOLE_USER_ID))
        return library.text_doc("forget.done", t=self.t)

    # ------------------------------------------------------------ typed buttons

    def _command_next(self, _argument: str) -> Doc:
        return self._turn(+1)

    def _command_prev(self, _argument: str) -> Doc:
        return self._turn(-1)

    def _turn(self, direction: int) -> Doc:
        if self.recommended_at is not None:
            return self._recommend(max(0, self.recommended_at + direction * self.per_page))
        result = self.last.result if self.last is not None else None
        if result is None:
            return Doc((render.translated(self.t, "console.nothing_to_page"),))
        offset = max(0, result.offset + direction * self.per_page)
        turned = answers.page(
            self.index, result.query, offset=offset, per_page=self.per_page, t=self.t
        )
        return self._shown(turned)

    def _command_save(self, argument: str) -> Doc:
        paper = self.index.get(self._paper_id(argument) or "")
        if paper is None:
            return self._which("save", argument)
        done = self._stored(lambda store: answers.save(store, CONSOLE_USER_ID, paper, t=self.t))
        return Doc(((Segment(done.text),),))

    def _command_remove(self, argument: str) -> Doc:
        paper_id = self._paper_id(argument)
        if paper_id is None:
            return self._which("remove", argument)
        done = self._stored(
            lambda store: answers.remove(store, CONSOLE_USER_ID, paper_id, t=self.t)
        )
        return Doc(((Segment(done.text),),))

    def _command_unfollow(self, argument: str) -> Doc:
        topics = self._stored(lambda store: store.topics(CONSOLE_USER_ID))
        if not argument.isdigit() or not 1 <= int(argument) <= len(topics):
            return Doc((render.translated(self.t, "console.which_topic"),))
        ref = topic_ref(topic_key(topics[int(argument) - 1]))
        text, left = self._stored(
            lambda store: answers.unfollow(store, CONSOLE_USER_ID, ref, t=self.t)
        )
        return Doc(((Segment(text),), *(left.blocks if left else ())))

    def _paper_id(self, argument: str) -> str | None:
        """The paper `/save 2` or `/save <id>` means: a number shown last, else an id."""
        if argument.isdigit():
            for number, paper_id in self.shown:
                if number == int(argument):
                    return paper_id
        if len(self.shown) == 1 and self.shown[0][0] is None and not argument:
            return self.shown[0][1]  # a card: `/save` alone keeps the paper shown
        return argument or None

    def _which(self, name: str, argument: str) -> Doc:
        if argument and not argument.isdigit():
            return render.not_found_doc(argument, t=self.t)
        return Doc((render.translated(self.t, "console.which_paper", command=name),))

    # ------------------------------------------------------------ the store

    def _stored(self, work: Callable[[Store], Awaitable[T]]) -> T:
        """`work` on the store, opened on first use; raises StoreUnavailable when it cannot run."""
        if self.store is None and self.open_store is not None:
            self.runner = self.runner or asyncio.Runner()
            try:
                self.store = self.runner.run(self.open_store())
            except StoreOpenError as exc:
                error = redact(str(exc))
                print(self.t.gettext("console.cannot_start", error=error), file=sys.stderr)
                raise StoreUnavailable(error) from exc
        if self.store is None or self.runner is None:
            raise StoreUnavailable("no store")
        return self.runner.run(work(self.store))

    def close(self) -> None:
        """Close the store and its runner, if a command opened them."""
        if self.runner is None:
            return
        if self.store is not None:
            self.runner.run(self.store.close())
        self.runner.close()
        self.store = self.runner = None


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
        paths = loading.corpus_paths(settings, corpus_paths)
        report, index = loading.load_index(
            paths,
            settings.index_cache_dir,
            strict=settings.corpus_strict,
            corpus_filter=settings.corpus_filter,
        )
    except loading.EmptyCorpusError:
        print(t.gettext("console.no_papers"), file=sys.stderr)
        return 2
    except (ConfigError, CorpusError) as exc:
        print(t.gettext("console.cannot_start", error=exc), file=sys.stderr)
        return 2
    # Chinese questions glossed once it is loaded, as the bot's (started before the embedding
    # job, which then waits for it before the fused answers).
    index.queries.start_glossary()
    # Embeds in the background like the bot (quietly: the prompt owns the terminal).
    started = loading.start_semantic(index, settings, progress=lambda done, total: None)
    retriever = index if started is None else started.retriever
    if not is_terminal(stdin):
        index.queries.load_speller()  # piped questions are corrected as the bot's once ready
        index.queries.load_glossary()  # and Chinese ones glossed
    if started is not None:
        _settle(started, t, piped=not is_terminal(stdin))
    session = _session(retriever, report, settings, t)
    try:
        chat(session, report, stdin, stdout, ansi=is_terminal(stdout) and not no_color(environ))
    finally:
        session.close()
    return 0


def _settle(started: loading.SemanticStart, t: Translator, *, piped: bool) -> None:
    """Wait for vectors that are cached or quick to make, else say on stderr when the
    semantic answers will be ready and answer with BM25 meanwhile (the job goes on).

    Piped questions get the same wait as `search`; at a prompt only the cache is read."""
    readiness = loading.settle(started, quick=loading.QUICK_EMBED_SECONDS if piped else 0.0)
    notice = answers.pending_notice(readiness, t=t)
    if notice:
        print(notice, file=sys.stderr)


def _session(
    index: Retriever, report: LoadReport, settings: Settings, t: Translator
) -> ConsoleSession:
    """The conversation over `index`, its store opened on first use."""
    return ConsoleSession(
        index,
        per_page=settings.results_per_page,
        t=t,
        skipped=len(report.skipped),
        sources=len(report.sources),
        open_store=lambda: open_store(settings.database_url, settings.data_dir),
    )


ANSWER_PREFIX = "_command_"
"""ConsoleSession answers `/name` with its method `_command_<name>(argument)`."""
_CONSOLE_NAMES = frozenset(c.name for c in CONSOLE_COMMANDS) - {"quit"}  # quit ends the loop

_missing = sorted(
    n for n in COMMAND_NAMES | _CONSOLE_NAMES if not hasattr(ConsoleSession, ANSWER_PREFIX + n)
)
if _missing:  # a real check at import, not an assert
    raise RuntimeError(f"the console has no answer for {_missing}")
