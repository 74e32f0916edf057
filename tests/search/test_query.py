"""The query pipeline: (cut, chat phrasing, spelling) that every engine searches.

BM25 alone (`Index.search`, what `SEMANTIC=off` serves) is the engine here; the hybrid's
side (it searches the same `PreparedQuery`) is in test_hybrid.py.
"""

from __future__ import annotations

import logging
import threading
from itertools import product

import pytest

from bot.answers import results
from bot.corpus import Paper
from bot.search import Index
from bot.search.query import pipeline as query_module
from bot.search.query.analysis import MAX_QUERY_TERMS, EnglishAnalyzer
from bot.search.query.pipeline import MAX_QUERY_CHARS, PreparedQuery, QueryPipeline, prepare_query
from bot.search.query.spelling import Correction, Speller
from testkit.devset import load_seed_papers

RECOMMEND = "can you recommend some papers on LLM agents and tool use attacks?"
SEIZURE_TYPOS = "siezure detection from vidoe"


@pytest.fixture(scope="module")
def seed_index() -> Index:
    """The seed corpus with its speller ready, as the load path serves it once started."""
    index = Index.build(load_seed_papers())
    assert index.queries.load_speller() is not None
    return index


def verbatim(index: Index, question: str) -> PreparedQuery:
    """`question` searched word for word, as BM25 alone searched it before the pipeline."""
    return PreparedQuery(typed=question, text=question, terms=tuple(index.query_terms(question)))


def mentions(hit_text: str, word: str) -> bool:
    return word in hit_text.lower()


def test_chat_phrasing_does_not_rank_a_recommendation_paper_with_bm25_alone(
    seed_index: Index,
) -> None:
    hits = results(seed_index, RECOMMEND, limit=3).hits
    assert "Tool Attack" in hits[0].paper.title
    assert not any(mentions(h.paper.title + h.paper.abstract, "recommend") for h in hits)
    # Word for word, "recommend" ranks a paper that recommends second: the pipeline's doing.
    second = seed_index.search(verbatim(seed_index, RECOMMEND), limit=3).hits[1].paper
    assert mentions(second.title + second.abstract, "recommend")


def test_typos_are_corrected_with_bm25_alone(seed_index: Index) -> None:
    result = results(seed_index, SEIZURE_TYPOS, limit=3)
    assert "Seizure" in result.hits[0].paper.title
    assert result.corrected == "seizure detection from video"
    assert result.query == SEIZURE_TYPOS  # what the user typed is quoted back as typed
    word_for_word = seed_index.search(verbatim(seed_index, SEIZURE_TYPOS), limit=10).hits
    assert not any("Seizure" in h.paper.title for h in word_for_word)


def test_prepared_query_says_what_is_searched(seed_index: Index) -> None:
    prepared = seed_index.queries.prepare("please find papers on siezure videos")
    assert prepared.typed == "please find papers on siezure videos"
    assert "seizure" in prepared.text and "please" not in prepared.text
    assert prepared.terms == tuple(seed_index.query_terms(prepared.text))
    assert prepared.corrected == "please find papers on seizure videos"


def test_search_of_a_prepared_query_is_the_search_of_its_text(seed_index: Index) -> None:
    prepared = seed_index.queries.prepare(SEIZURE_TYPOS)
    assert seed_index.search(prepared) == results(seed_index, SEIZURE_TYPOS)


def test_question_is_cut_once_before_phrasing_spelling_and_analysis() -> None:
    long_query = "alpha " * 10 + "x" * (MAX_QUERY_CHARS - 60) + " omega"
    prepared = prepare_query(long_query, analyzer=EnglishAnalyzer())
    assert "omega" not in prepared.terms
    assert "alpha" in prepared.terms
    assert prepared.typed == long_query  # quoted back whole; only the search is cut


class RecordingSpeller:
    """Corrects nothing; keeps what it was asked to correct."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def correct(self, query: str) -> Correction:
        self.asked.append(query)
        return Correction(query)


def test_the_speller_reads_only_the_words_whose_terms_are_searched() -> None:
    words = ["".join(letters) for letters in product("bcdfgh", repeat=3)][: MAX_QUERY_TERMS + 20]
    speller = RecordingSpeller()
    question = " ".join(words)
    prepared = prepare_query(question, analyzer=EnglishAnalyzer(), speller=speller)  # type: ignore[arg-type]
    assert speller.asked == [" ".join(words[:MAX_QUERY_TERMS]) + " "]
    assert prepared.text == question  # the words past the cut are kept, as typed
    assert len(set(prepared.terms)) == MAX_QUERY_TERMS


def test_a_question_within_the_term_cut_is_spell_checked_whole(seed_index: Index) -> None:
    question = "learning models " * 20 + SEIZURE_TYPOS  # repeats: few distinct terms
    speller = RecordingSpeller()
    prepare_query(question, analyzer=seed_index.analyzer, speller=speller)  # type: ignore[arg-type]
    assert speller.asked == [question]
    assert seed_index.queries.prepare(question).corrected.endswith("seizure detection from video")


@pytest.mark.parametrize("query", [None, 42, b"bytes"], ids=["none", "int", "bytes"])
def test_a_non_string_is_an_empty_question(query: object) -> None:
    assert prepare_query(query, analyzer=EnglishAnalyzer()) == PreparedQuery("", "", ())


def test_no_correction_until_the_speller_is_started(papers: tuple[Paper, ...]) -> None:
    index = Index.build(papers)
    result = results(index, SEIZURE_TYPOS)
    assert result.corrected == ""


def test_speller_builds_off_the_caller_and_corrects_once_ready(
    papers: tuple[Paper, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    class SlowSpeller(Speller):
        def __init__(self, corpus, known_words=None) -> None:  # type: ignore[no-untyped-def]
            release.wait()  # a big corpus's lexicon: the caller must not wait for it
            super().__init__(corpus, known_words)

    monkeypatch.setattr(query_module, "Speller", SlowSpeller)
    index = Index.build(papers)
    index.queries.start_speller()  # returns at once although the build is held
    assert results(index, SEIZURE_TYPOS).corrected == ""
    release.set()
    assert isinstance(index.queries.load_speller(), SlowSpeller)
    assert results(index, SEIZURE_TYPOS).corrected == "seizure detection from video"


def test_a_failed_speller_is_logged_and_questions_stay_uncorrected(
    papers: tuple[Paper, ...], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(corpus):  # type: ignore[no-untyped-def]
        raise OSError("no dictionary")

    monkeypatch.setattr(query_module, "Speller", broken)
    index = Index.build(papers)
    with caplog.at_level(logging.ERROR, logger="bot.search.query.pipeline"):
        assert index.queries.load_speller() is None
    assert "speller failed" in caplog.text
    assert results(index, SEIZURE_TYPOS).corrected == ""


def test_the_speller_is_built_once(seed_index: Index) -> None:
    pipeline = QueryPipeline(seed_index)
    speller = pipeline.load_speller()
    assert isinstance(speller, Speller) and pipeline.load_speller() is speller
    assert pipeline.prepare(SEIZURE_TYPOS).corrected == "seizure detection from video"
