"""What the answers know of the served corpus besides its index: its conference programme,
its name, and questions from its frequent topics; worked out once per served papers and kept
by the front end (`BotState.corpus_facts`, the console's `FactsMemo`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot import render
from bot.corpus import CorpusName, Fetched, Paper, corpus_name, fetched_of, frequent_topics
from bot.planner import Programme, build_programme
from bot.search import Retriever, field_values

EXAMPLE_TOPICS = 3  # ours: example questions /start takes from the corpus's topics


@dataclass(frozen=True, slots=True)
class CorpusFacts:
    """The served corpus as a whole: its `programme` (falsy without sessions or times), its
    `name` (falsy when neither it nor a setting says), questions from its topics, and when
    its list was fetched (None: no `.fetched.json` says)."""

    programme: Programme
    name: CorpusName = field(default_factory=CorpusName)
    examples: tuple[str, ...] = ()
    fetched: Fetched | None = None


def programme_of(papers: Sequence[Paper]) -> Programme:
    """The programme of `papers`, making only the papers with presentations (a cached corpus
    stores them as columns)."""
    rows = [row for row, shown in enumerate(field_values(papers, "presentations")) if shown]
    return build_programme(papers[row] for row in rows)


def name_of(papers: Sequence[Paper], given: str = "") -> CorpusName:
    """What `papers` are called (their venues and years), else `given` (CORPUS_NAME)."""
    pairs = zip(field_values(papers, "venue"), field_values(papers, "year"), strict=True)
    return corpus_name(pairs, given=given)


def fetched_list(papers: Sequence[Paper]) -> Fetched | None:
    """When the files `papers` came from were fetched (the stalest), as `fetch` recorded it."""
    return fetched_of(dict.fromkeys(field_values(papers, "source")))


def serving(paths: Sequence[Path], papers: Sequence[Paper], given_name: str = "") -> str:
    """ "6,502 ICML 2026 papers from /data/programme (fetched from icml.cc, 2026-07-14)", for a
    start's log."""
    named = render.corpus_papers(name_of(papers, given_name), len(papers))
    fetched = fetched_list(papers)
    listed = f" (fetched from {fetched.host}, {fetched.on.isoformat()})" if fetched else ""
    return f"{named} from {', '.join(map(str, paths))}{listed}"


def corpus_facts(papers: Sequence[Paper], *, given_name: str = "") -> CorpusFacts:
    """Everything `CorpusFacts` holds, for `papers` (CPU work); `given_name` (CORPUS_NAME) names
    papers that do not name themselves."""
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
    """The facts of the papers last asked about, for a synchronous front end (the console)."""

    given_name: str = ""
    _papers: Sequence[Paper] | None = field(default=None, repr=False)
    _facts: CorpusFacts | None = field(default=None, repr=False)

    def heading(self, index: Retriever) -> tuple[CorpusName, Fetched | None]:
        """What `index`'s papers are called and when their list was fetched: a banner's facts,
        without the programme and the topics (seconds for a conference's thousands)."""
        if self._facts is not None and self._papers is index.papers:
            return self._facts.name, self._facts.fetched
        return name_of(index.papers, self.given_name), fetched_list(index.papers)

    def of(self, index: Retriever) -> CorpusFacts:
        """`index`'s facts: built on the first call for its papers, then kept."""
        if self._facts is None or self._papers is not index.papers:
            facts = corpus_facts(index.papers, given_name=self.given_name)
            self._papers, self._facts = index.papers, facts
        return self._facts
