"""What describes the bot: /start, /help, /stats."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from bot import render
from bot.answers.corpus_facts import CorpusFacts
from bot.i18n import Translator
from bot.render import Doc
from bot.search import Retriever


def start(index: Retriever, facts: CorpusFacts, *, t: Translator) -> Doc:
    """How many papers of what, from where and as of when, and how to ask, with questions from
    the corpus's topics."""
    return render.start_doc(
        len(index), t=t, name=facts.name, examples=facts.examples, fetched=facts.fetched
    )


def help_text(index: Retriever, facts: CorpusFacts, *, t: Translator, console: bool = False) -> Doc:
    """What the bot serves, and every command in a line (the console's own in the console)."""
    return render.help_doc(console=console, t=t, name=facts.name, paper_count=len(index))


def stats(
    index: Retriever,
    *,
    sources: int | None,
    skipped: int,
    loaded_at: datetime | None,
    t: Translator,
    facts: CorpusFacts | None = None,
) -> Doc:
    """How many papers from how many files (`sources`, else the files the papers name), fetched
    when (the `facts`), loaded when, how many records skipped."""
    figures = index.stats()
    if sources is not None:
        figures = dataclasses.replace(figures, sources=sources)
    fetched = facts.fetched if facts is not None else None
    return render.stats_doc(figures, loaded_at=loaded_at, skipped=skipped, t=t, fetched=fetched)
