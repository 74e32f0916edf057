"""Chat with the bot in a terminal: same commands and answers, as plain text; no token."""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from bot import render
from bot.config import ConfigError, load_settings
from bot.corpus import CorpusError
from bot.render import Doc
from bot.search import MAX_QUERY_CHARS, Index, load_corpus_and_index

QUIT_COMMANDS = ("/quit", "/exit")
MAX_QUESTION_CHARS = MAX_QUERY_CHARS  # the analyzer's cut, as in the Telegram handlers


@dataclass
class ConsoleSession:
    """One terminal conversation: the index and the last question for /next and /prev."""

    index: Index
    per_page: int = 5
    question: str = ""
    offset: int = 0

    def answer(self, line: str) -> Doc | None:
        """The answer to one input line, as a Doc; None for a blank line."""
        text = line.strip()
        if not text:
            return None
        if not text.startswith("/"):
            return self._search(text, 0)
        command, _, argument = text.partition(" ")
        command = command.split("@", 1)[0].lower()
        argument = argument.strip()
        if command.startswith("/paper_") and len(command) > len("/paper_"):
            return self._paper(text.split()[0].split("@", 1)[0][len("/paper_") :])
        if command == "/start":
            return render.start_doc(len(self.index))
        if command == "/help":
            return render.help_doc()
        if command == "/search":
            return self._search(argument, 0) if argument else render.usage_doc("search")
        if command == "/paper":
            return self._paper(argument) if argument else render.usage_doc("paper")
        if command == "/similar":
            return self._similar(argument) if argument else render.usage_doc("similar")
        if command == "/random":
            papers = self.index.papers
            return render.paper_doc(random.choice(papers)) if papers else None
        if command == "/stats":
            return render.stats_doc(self.index.stats())
        if command in ("/next", "/prev") and self.question:
            step = self.per_page if command == "/next" else -self.per_page
            return self._search(self.question, max(0, self.offset + step))
        return render.unknown_command_doc()

    def _search(self, question: str, offset: int) -> Doc:
        question = question[:MAX_QUESTION_CHARS]
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

    def _paper(self, paper_id: str) -> Doc:
        found = self.index.get(paper_id)
        return render.paper_doc(found) if found else render.not_found_doc(paper_id)

    def _similar(self, paper_id: str) -> Doc:
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
    per_page = 5
    try:
        settings = load_settings()
        per_page = settings.results_per_page
        paths = list(corpus_paths) if corpus_paths else list(settings.corpus)
        report, index = load_corpus_and_index(paths, settings.index_cache_dir)
    except (ConfigError, CorpusError) as exc:
        print(f"Cannot start the console: {exc}", file=sys.stderr)
        return 2
    if not report.papers:
        print("Cannot start the console: the corpus has no papers.", file=sys.stderr)
        return 2
    session = ConsoleSession(index, per_page=per_page)
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
