"""The corpus's facts (programme, name, examples, fetch date), worked out once per index, and the
answers built on them: /start, /help, /stats and when semantic answers will be ready."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot import render
from bot.corpus import CorpusName, Fetched, Paper, corpus_name, fetched_of, frequent_topics
from bot.i18n import Translator
from bot.planner import Programme, build_programme
from bot.render import Doc
from bot.search import Retriever, field_values

if TYPE_CHECKING:
    from bot.loading import Readiness

EXAMPLE_TOPICS = 3  # example questions /start takes from the corpus's topics


@dataclass(frozen=True, slots=True)
class CorpusFacts:
    """The served corpus as a whole: its programme, name, example questions and fetch date."""

    programme: Programme
    name: CorpusName = field(default_factory=CorpusName)
    examples: tuple[str, ...] = ()
    fetched: Fetched | None = None


def programme_of(papers: Sequence[Paper]) -> Programme:
    """The programme of `papers`, reading only the papers that have presentations."""
    rows = [row for row, shown in enumerate(field_values(papers, "presentations")) if shown]
    return build_programme(papers[row] for row in rows)


def name_of(papers: Sequence[Paper], given: str = "") -> CorpusName:
    """What `papers` are called (their venues and years), else `given` (CORPUS_NAME)."""
    pairs = zip(field_values(papers, "venue"), field_values(papers, "year"), strict=True)
    return corpus_name(pairs, given=given)


def fetched_list(papers: Sequence[Paper]) -> Fetched | None:
    """When the files `papers` came from were fetched (the oldest), as `fetch` recorded it."""
    return fetched_of(dict.fromkeys(field_values(papers, "source")))


def serving(paths: Sequence[Path], papers: Sequence[Paper], given_name: str = "") -> str:
    """The start-up log line: "6,502 ICML 2026 papers from /data (fetched from icml.cc, …)"."""
    named = render.corpus_papers(name_of(papers, given_name), len(papers))
    fetched = fetched_list(papers)
    listed = f" (fetched from {fetched.host}, {fetched.on.isoformat()})" if fetched else ""
    return f"{named} from {', '.join(map(str, paths))}{listed}"


def corpus_facts(papers: Sequence[Paper], *, given_name: str = "") -> CorpusFacts:
    """The facts of `papers` (CPU work); `given_name` names papers that do not name themselves."""
    texts = (
        f"{title}\n{abstract}"
        for title, abstract in zip(
            field_values(papers, "title"), field_values(papers, "abstract"), strict=True
        )
    )
    topics = zip(
        field_values(papers, "topic"), field_values(papers, "keywords"), texts, strict=True
    )
    return CorpusFacts(
        programme=programme_of(papers),
        name=name_of(papers, given_name),
        examples=frequent_topics(topics, count=EXAMPLE_TOPICS),
        fetched=fetched_list(papers),
    )


@dataclass
class FactsMemo:
    """The facts of the papers last asked about, for a front end without a loop (the console)."""

    given_name: str = ""
    _papers: Sequence[Paper] | None = field(default=None, repr=False)
    _facts: CorpusFacts | None = field(default=None, repr=False)

    def heading(self, index: Retriever) -> tuple[CorpusName, Fetched | None]:
        """The corpus's name and fetch date for a banner, without the slow programme and topics."""
        if self._facts is not None and self._papers is index.papers:
            return self._facts.name, self._facts.fetched
        return name_of(index.papers, self.given_name), fetched_list(index.papers)

    def of(self, index: Retriever) -> CorpusFacts:
        """`index`'s facts: built on the first call for its papers, then kept."""
        if self._facts is None or self._papers is not index.papers:
            facts = corpus_facts(index.papers, given_name=self.given_name)
            self._papers, self._facts = index.papers, facts
        return self._facts


def start(index: Retriever, facts: CorpusFacts, *, t: Translator) -> Doc:
    """/start: how many papers of what, from where and when, and example questions."""
    return render.start_doc(
        len(index), t=t, name=facts.name, examples=facts.examples, fetched=facts.fetched
    )


def help_text(index: Retriever, facts: CorpusFacts, *, t: Translator, console: bool = False) -> Doc:
    """/help: what the bot serves, and every command in a line (the console's own there)."""
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
    """/stats: papers, source files (`sources`, else the papers'), fetched and loaded when."""
    figures = index.stats()
    if sources is not None:
        figures = dataclasses.replace(figures, sources=sources)
    fetched = facts.fetched if facts is not None else None
    return render.stats_doc(figures, loaded_at=loaded_at, skipped=skipped, t=t, fetched=fetched)


def pending_notice(readiness: Readiness, *, t: Translator) -> str:
    """How many papers still need embedding, about how long it takes and why; "" when ready."""
    if readiness.ready or readiness.missing <= 0:
        return ""
    if readiness.seconds is None or readiness.rate is None:
        return t.ngettext("notice.pending_unknown", readiness.missing)
    how = t.gettext(
        "notice.rate_measured" if readiness.measured else "notice.rate_last",
        rate=_rate(readiness.rate),
    )
    eta = render.eta_text(readiness.seconds, t=t)
    return t.ngettext("notice.pending", readiness.missing, eta=eta, how=how)


def _rate(papers_per_second: float) -> str:
    """2.7, 12, 0.35: an estimate has two significant digits."""
    return f"{papers_per_second:.2g}" if papers_per_second < 10 else f"{papers_per_second:.0f}"
