"""The answer layer: the rules every front end shares, tested once, without a front end."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot import answers, render
from bot.answers import results
from bot.answers.week import remind_minutes
from bot.corpus.authors import MAX_AUTHOR_CHARS
from bot.i18n import translator
from bot.search import Index
from bot.search.query.pipeline import MAX_QUERY_CHARS
from bot.store import open_store

NOW = datetime(2026, 7, 1, tzinfo=UTC)
EN = translator("en")


def test_a_long_question_is_searched_as_the_pipeline_cuts_it(index: Index) -> None:
    long = "diffusion " * 5000
    answer = answers.ask(index, long, per_page=5, t=EN)
    assert answer.result is not None
    assert answer.result.hits == results(index, long[:MAX_QUERY_CHARS], limit=5).hits


class _NamesAsked:
    """The index, recording the names `by_author` is asked for."""

    def __init__(self, index: Index) -> None:
        self._index, self.names = index, []

    def __getattr__(self, name: str):
        return getattr(self._index, name)

    def by_author(self, name: str, **kwargs):
        self.names.append(name)
        return self._index.by_author(name, **kwargs)


def test_a_long_author_name_is_cut_before_the_lookup(index: Index) -> None:
    recording = _NamesAsked(index)
    answers.author(recording, "Wang " * 800, t=EN)  # type: ignore[arg-type]
    assert [len(name) for name in recording.names] == [MAX_AUTHOR_CHARS]


def test_ask_numbers_the_hits_for_save_buttons(index: Index) -> None:
    answer = answers.ask(index, "graph neural networks", per_page=5, t=EN)
    assert answer.result is not None and answer.result.hits
    assert answer.papers == tuple((n, hit.paper.id) for n, hit in enumerate(answer.result.hits, 1))


def test_a_long_question_keeps_its_page_key_only_when_it_pages(index: Index) -> None:
    long = "neural networks " * 10  # too long for callback data
    paged = answers.ask(index, long, per_page=2, t=EN, page_key="k1")
    assert paged.page_key == "k1"
    assert any(data == "k:2:k1" for row in paged.doc.keyboard for _label, data in row)
    short = answers.ask(index, "neural networks", per_page=2, t=EN, page_key="k1")
    assert short.page_key is None  # the buttons carry the question itself


def test_a_page_turn_shows_the_page_asked_for(index: Index) -> None:
    second = answers.page(index, "neural networks", offset=5, per_page=5, t=EN)
    assert second.result is not None and second.result.offset == 5
    assert second.papers[0][0] == 6


def test_an_unknown_paper_gets_the_ids_hint(index: Index) -> None:
    for answer in (
        answers.open_paper(index, "nope", t=EN),
        answers.similar(index, "nope", per_page=5, t=EN),
    ):
        assert answer.doc == render.not_found_doc("nope") and answer.papers == ()


def test_a_card_offers_its_one_paper_for_saving(index: Index) -> None:
    assert answers.open_paper(index, "3rmh7qdh", t=EN).papers == ((None, "3rmh7qdh"),)


@pytest.mark.parametrize(
    ("query", "found"),
    [
        pytest.param("/paper_3rmh7qdh", True, id="share-button"),
        pytest.param("  /paper 3rmh7qdh ", True, id="paper-space-id"),
        pytest.param("3rmh7qdh", True, id="bare-id"),
        pytest.param("/paper_nope", False, id="unknown"),
        pytest.param("decision trees", False, id="a-question"),
    ],
)
def test_a_share_query_names_its_paper(index: Index, query: str, found: bool) -> None:
    paper = answers.shared_paper(index, query)
    assert (paper.id if paper is not None else None) == ("3rmh7qdh" if found else None)


@pytest.mark.parametrize(
    ("argument", "minutes"),
    [("15", 15), ("1", 1), ("120", 120), (" 30 min", 30), ("10m", 10), ("off", None),
     ("OFF", None), ("关闭", None), ("0", None)],
)  # fmt: skip
def test_remind_reads_minutes_or_off(argument: str, minutes: int | None) -> None:
    assert remind_minutes(argument) == minutes


@pytest.mark.parametrize("argument", ["121", "-5", "soon", "1.5", "１５", ""])
def test_remind_refuses_anything_else(argument: str) -> None:
    with pytest.raises(ValueError):
        remind_minutes(argument)


@pytest.mark.parametrize(
    ("argument", "fmt"),
    [
        pytest.param("bib", "bib", id="bib"),
        pytest.param(".MD", "md", id="dot-upper"),
        pytest.param("csv", "csv", id="csv"),
        pytest.param("ICS", "ics", id="calendar"),
        pytest.param("pdf", None, id="unknown"),
        pytest.param("", None, id="empty"),
    ],
)
def test_export_format_is_parsed_once_for_every_front_end(argument: str, fmt: str | None) -> None:
    assert answers.export_format(argument) == fmt


async def test_save_then_export_then_remove(index: Index, tmp_path) -> None:
    store = await open_store(None, tmp_path)
    paper = index.get("3rmh7qdh")
    assert paper is not None
    try:
        assert (await answers.save(store, 7, paper, t=EN)).saved
        rows = await store.export_rows(7)
        exported = answers.export_file(rows, "md", index=index, now=NOW, t=EN)
        assert isinstance(exported, answers.ExportFile)
        assert exported.filename == "reading-list.md"
        assert paper.title.split(":")[0].encode() in exported.data
        removed = await answers.remove(store, 7, paper.id, t=EN)
        assert (removed.text, removed.saved) == ("Removed", False)
        empty = answers.export_file(await store.export_rows(7), "md", index=index, now=NOW, t=EN)
        assert empty == render.text_doc("export.empty")
    finally:
        await store.close()
