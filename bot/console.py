"""Chat with the bot in a terminal: same commands and answers, as plain text; no token.

Driven by the command registry (`bot.commands`): each command has a console answer here,
checked at import like the Telegram handlers; /next, /prev and /quit are console-only.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from bot import render, runtime
from bot.commands import COMMAND_NAMES, command
from bot.config import DEFAULT_RESULTS_PER_PAGE, ConfigError, load_settings
from bot.corpus import CorpusError
from bot.render import Doc
from bot.search import MAX_QUERY_CHARS, Retriever

QUIT_COMMANDS = ("/quit", "/exit")
PAGE_COMMANDS = ("next", "prev")  # console-only: Telegram has buttons for these


@dataclass
class ConsoleSession:
    """One terminal conversation: the index and the last question for /next and /prev."""

    index: Retriever
    per_page: int = DEFAULT_RESULTS_PER_PAGE
    question: str = ""
    offset: int = 0

    def answer(self, line: str) -> Doc | None:
        """The answer to one input line, as a Doc; None for a blank line."""
        text = line.strip()
        if not text:
            return None
        if not text.startswith("/"):
            return self._search(text, 0)
        shortcut = render.parse_paper_shortcut(text)
        if shortcut is not None:
            return self._command_paper(shortcut[0])
        name, _, argument = text[1:].partition(" ")
        name = name.split("@", 1)[0].lower()
        argument = argument.strip()
        if name in PAGE_COMMANDS and self.question:
            step = self.per_page if name == "next" else -self.per_page
            return self._search(self.question, max(0, self.offset + step))
        if name not in COMMAND_NAMES:
            return render.unknown_command_doc()
        if command(name).usage and not argument:
            return render.usage_doc(name)
        answer: Callable[[str], Doc | None] = getattr(self, ANSWER_PREFIX + name)
        return answer(argument)

    def _command_start(self, _argument: str) -> Doc:
        return render.start_doc(len(self.index))

    def _command_help(self, _argument: str) -> Doc:
        return render.help_doc()

    def _command_search(self, argument: str) -> Doc:
        return self._search(argument, 0)

    def _command_random(self, _argument: str) -> Doc | None:
        papers = self.index.papers
        return render.paper_doc(random.choice(papers)) if papers else None

    def _command_stats(self, _argument: str) -> Doc:
        return render.stats_doc(self.index.stats())

    def _search(self, question: str, offset: int) -> Doc:
        question = question[:MAX_QUERY_CHARS]  # the analyzer's cut, as in Telegram
        result = self.index.search(question, limit=self.per_page, offset=offset)
        if result.hits:
            self.question, self.offset = question, offset
        doc = render.results_doc(result, per_page=self.per_page)
        more = []
        if result.confident and offset + len(result.hits) < result.total:
            more.append("/next")
        if result.confident and offset > 0 and result.hits:
            more.append("/prev")
        if more:
            doc = Doc((*doc.blocks, (render.Span(f"More: {' '.join(more)}"),)), doc.keyboard)
        return doc

    def _command_paper(self, paper_id: str) -> Doc:
        found = self.index.get(paper_id)
        return render.paper_doc(found) if found else render.not_found_doc(paper_id)

    def _command_similar(self, paper_id: str) -> Doc:
        found = self.index.get(paper_id)
        if found is None:
            return render.not_found_doc(paper_id)
        return render.similar_doc(found, self.index.similar(found.id, limit=self.per_page))


def run_console(
    corpus_paths: Sequence[str | Path] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Read questions from stdin until EOF or /quit; print answers. Returns the exit code."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    try:
        settings = load_settings()
        paths = runtime.corpus_paths(settings, corpus_paths)
        report, index = runtime.load_index(paths, settings.index_cache_dir)
    except runtime.EmptyCorpusError:
        print("Cannot start the console: the corpus has no papers.", file=sys.stderr)
        return 2
    except (ConfigError, CorpusError) as exc:
        print(f"Cannot start the console: {exc}", file=sys.stderr)
        return 2
    # Embeds in the background like the bot (quietly: the prompt owns the terminal).
    retriever, _ = runtime.semantic_retriever(index, settings, progress=lambda done, total: None)
    session = ConsoleSession(retriever, per_page=settings.results_per_page)
    interactive = stdin.isatty()
    ansi = stdout.isatty()
    print(
        f"ICML 2026 papers — {len(report.papers)} loaded. Ask a question, /help for commands, "
        "/quit or Ctrl-D to leave.",
        file=stdout,
    )
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
    return 0


ANSWER_PREFIX = "_command_"
"""ConsoleSession answers `/name` with its method `_command_<name>(argument)`."""

_missing = sorted(n for n in COMMAND_NAMES if not hasattr(ConsoleSession, ANSWER_PREFIX + n))
if _missing:  # a real check at import, not an assert
    raise RuntimeError(f"the console has no answer for {_missing}")
