"""What a corpus is called and what it is about, from its papers: the seeds (their list's
header names them), the paperlists sample (one conference, seven years), a feed, mixtures,
lists that name nothing (then the CORPUS_NAME setting), and the frequent topics."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.answers import corpus_facts, results
from bot.answers.about import name_of
from bot.corpus import Paper, load_corpus
from bot.corpus.profile import CorpusName, VenueYears, corpus_name, frequent_topics
from bot.i18n import translator
from bot.render import corpus_papers
from bot.render.about import corpus_label
from testkit.paths import SEED_CORPUS, TEST_DATA
from testkit.programme import synthetic_programme
from testkit.week import load_week

EN, HANS, HANT = translator("en"), translator("zh_Hans"), translator("zh_Hant")


def papers_of(*paths: Path) -> tuple[Paper, ...]:
    return load_corpus(list(paths)).papers


def test_the_seeds_are_named_by_their_lists_header() -> None:
    papers = papers_of(SEED_CORPUS)
    assert {(p.venue, p.year) for p in papers} == {("ICML 2026", 2026)}
    name = name_of(papers)
    assert name.single == "ICML 2026"
    assert corpus_papers(name, len(papers)) == f"{len(papers)} ICML 2026 papers"


def test_the_paperlists_sample_is_one_conference_over_seven_years() -> None:
    papers = papers_of(TEST_DATA / "paperlists_sample")
    name = name_of(papers)
    assert name == CorpusName((VenueYears("ICML", 2013, 2019),))
    assert not name.single
    assert corpus_papers(name, 305) == "305 papers from ICML 2013–2019"
    assert corpus_papers(name, 305, t=HANS) == "305 篇来自 ICML 2013–2019 的论文"


def test_a_feed_is_its_conference_and_year(tmp_path: Path) -> None:
    papers = list(load_week(tmp_path).values())
    assert name_of(papers).single == "ICML 2026"
    assert corpus_papers(name_of(papers), 13, t=HANT) == "13 篇 ICML 2026 論文"


def test_several_conferences_are_listed_in_order_of_their_years() -> None:
    pairs = [("ICML 2013", 2013), ("ICLR 2017", 2017), ("ICML 2019", 2019), ("ICLR 2018", None)]
    name = corpus_name(pairs)
    assert [str(span) for span in name.venues] == ["ICML 2013–2019", "ICLR 2017–2018"]
    assert corpus_label(name) == "ICML 2013–2019 and ICLR 2017–2018"
    assert corpus_label(name, t=HANS) == "ICML 2013–2019 和 ICLR 2017–2018"
    assert corpus_papers(name, 4378) == "4,378 papers from ICML 2013–2019 and ICLR 2017–2018"
    three = corpus_name([("ICML 2013", None), ("ICLR 2017", None), ("NeurIPS 2020 oral", None)])
    assert corpus_label(three) == "ICML 2013, ICLR 2017 and NeurIPS 2020"  # the tier dropped


@pytest.mark.parametrize(
    "pairs",
    [
        pytest.param([(f"Journal {n}", 2020) for n in range(5)], id="too-many-venues"),
        pytest.param([("ICML 2026", 2026), ("", None), ("", 2025)], id="most-name-none"),
        pytest.param([], id="empty"),
    ],
)
def test_a_corpus_that_does_not_say_takes_the_setting(pairs) -> None:
    assert not corpus_name(pairs)
    given = corpus_name(pairs, given="NeurIPS 2025 reading group")
    assert given.single == "NeurIPS 2025 reading group"
    assert corpus_papers(given, 2) == "2 NeurIPS 2025 reading group papers"
    assert corpus_papers(corpus_name(pairs), 2) == "2 papers"
    assert corpus_label(corpus_name(pairs), t=HANT) == "目前的清單"


def test_the_papers_own_name_wins_over_the_setting() -> None:
    assert corpus_name([("ICML 2026", 2026)], given="Something else").single == "ICML 2026"


def test_every_test_data_list_together_names_no_one_conference() -> None:
    papers = papers_of(TEST_DATA)  # ICML, CVPR, journals, and papers naming no venue
    assert corpus_papers(name_of(papers), len(papers)) == f"{len(papers)} papers"


def test_frequent_topics_are_what_most_papers_are_about() -> None:
    llm = "Deep Learning->Large Language Models"
    papers = [
        (llm, ("alignment", "RLHF"), "Large language models, aligned"),
        (llm, ("Alignment",), "Aligning large LANGUAGE models"),
        ("Theory->Learning Theory", ("alignment", "x" * 80), "Learning theory of alignment"),
        ("Theory->Learning Theory", (), "A learning theory"),
        ("Theory->Learning Theory", (), "Bounds"),  # its text does not say it
        ("", ("rare",), ""),
    ]
    assert frequent_topics(papers) == ("alignment", "Large Language Models", "Learning Theory")
    assert frequent_topics(papers, count=1) == ("alignment",)
    assert frequent_topics([("", ("rare",), "")]) == ()  # one paper is not frequent
    unsaid = [("Social Aspects->Fairness", (), "Sparse routers")] * 5
    assert frequent_topics(unsaid) == ()  # asking "Fairness" would find none of them
    # Whole words only, in any case, across hyphens: not a word's prefix or part.
    within = [("Applications->Time Series", (), "Forecasting TIME-series data")] * 3
    assert frequent_topics(within) == ("Time Series",)
    for text in ("Learnings from a timeless series", "Time seriesless", "Lifetime Series"):
        assert frequent_topics([("Applications->Time Series", (), text)] * 3) == (), text


def test_a_conference_feeds_examples_find_its_papers(tmp_path: Path) -> None:
    from bot.search import Index

    papers = papers_of(synthetic_programme(tmp_path, posters=300, orals=8))
    facts = corpus_facts(papers)
    assert facts.name.single == "ICML 2026" and 1 <= len(facts.examples) <= 3
    index = Index.build(papers)
    for question in facts.examples:
        assert results(index, question).confident, question
    assert corpus_facts(papers_of(SEED_CORPUS)).examples == ()  # the seeds: the catalogue's
