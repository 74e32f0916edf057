"""Query-syntax conditions on a real list: every candidate obeys each element, none is missed.

The list is `tests/data/paperlists_sample/` (305 real ICML 2013–2019 records, see its
README); where `../shared/benchmarks/paperlists/` exists the whole list (3,017) is checked
too. Each check compares the mask with a brute-force reading of every paper.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from bot.corpus import Paper, load_corpus
from bot.search import Index
from bot.search.query.analysis import EnglishAnalyzer
from bot.search.query.syntax import parse_query
from bot.search.rank.filters import FilterColumns, candidates, filter_columns
from bot.search.rank.phrases import phrase_terms
from testkit.papers import author_matches
from testkit.paths import TEST_DATA

SAMPLE = TEST_DATA / "paperlists_sample"
# `../shared` beside the checkout (a worktree may sit deeper): the nearest one up the tree.
SHARED = next(
    (
        folder / "shared" / "benchmarks" / "paperlists"
        for folder in Path(__file__).resolve().parents
        if (folder / "shared" / "benchmarks" / "paperlists").is_dir()
    ),
    Path("/nonexistent"),
)
ANALYZER = EnglishAnalyzer()


def real_papers(folder: Path) -> tuple[Paper, ...]:
    """The list's papers, each with the year of its file (`icml2017.json`) and venue ICML."""
    papers = load_corpus(sorted(folder.glob("icml*.json"))).papers
    year_of = re.compile(r"icml(\d{4})\.json$")
    return tuple(
        dataclasses.replace(p, year=int(year_of.search(p.source)[1]), venue="ICML") for p in papers
    )


@pytest.fixture(scope="module")
def papers() -> tuple[Paper, ...]:
    return real_papers(SAMPLE)


@pytest.fixture(scope="module")
def index(papers: tuple[Paper, ...]) -> Index:
    return Index.build(papers)


def holds(terms: Sequence[str], wanted: Sequence[str]) -> bool:
    n = len(wanted)
    return any(tuple(terms[i : i + n]) == tuple(wanted) for i in range(len(terms) - n + 1))


def has_phrase(paper: Paper, text: str, *, title_only: bool = False) -> bool:
    """The brute-force reading: the phrase's terms as a run in the title's or abstract's."""
    wanted = phrase_terms(text, ANALYZER)
    fields = (paper.title,) if title_only else (paper.title, paper.abstract)
    return any(holds(phrase_terms(field, ANALYZER), wanted) for field in fields)


def mask_of(index: Index, query: str) -> np.ndarray:
    mask = candidates(index, parse_query(query))
    assert mask is not None, query
    return mask


def expected(papers: Sequence[Paper], rule: Callable[[Paper], bool]) -> np.ndarray:
    return np.array([rule(p) for p in papers], dtype=bool)


PHRASES = ["neural networks", "reinforcement learning", "gradient descent", "Monte Carlo",
           "multi-armed bandit", "stochastic gradient", "deep neural networks"]  # fmt: skip


@pytest.mark.parametrize("phrase", PHRASES)
def test_phrase_candidates_are_exactly_the_papers_holding_it(
    papers: tuple[Paper, ...], index: Index, phrase: str
) -> None:
    mask = mask_of(index, f'"{phrase}" methods')
    assert mask.any()
    assert (mask == expected(papers, lambda p: has_phrase(p, phrase))).all()


def test_phrase_words_appear_in_that_order_in_the_text(
    papers: tuple[Paper, ...], index: Index
) -> None:
    mask = mask_of(index, '"reinforcement learning"')
    in_text = re.compile(r"reinforcement\W+learn", re.IGNORECASE)
    assert all(
        in_text.search(f"{p.title} {p.abstract}") for p, m in zip(papers, mask, strict=True) if m
    )


def test_exclusion_drops_every_paper_with_the_word_and_only_those(
    papers: tuple[Paper, ...], index: Index
) -> None:
    mask = mask_of(index, "generative models -image")
    assert 0 < mask.sum() < len(papers)
    assert (mask == ~expected(papers, lambda p: has_phrase(p, "image"))).all()


def test_excluded_phrase(papers: tuple[Paper, ...], index: Index) -> None:
    mask = mask_of(index, 'learning -"neural networks"')
    assert (mask == ~expected(papers, lambda p: has_phrase(p, "neural networks"))).all()


def test_or_keeps_papers_with_either(papers: tuple[Paper, ...], index: Index) -> None:
    for query in ("gaussian OR bayesian", "gaussian | bayesian", "gaussian|bayesian"):
        mask = mask_of(index, query)
        either = expected(papers, lambda p: has_phrase(p, "gaussian") or has_phrase(p, "bayesian"))
        assert either.any() and (mask == either).all()


@pytest.mark.parametrize(
    ("query", "low", "high"),
    [
        pytest.param("year:2018 adversarial examples", 2018, 2018, id="one-year"),
        pytest.param("year:2015..2017 kernels", 2015, 2017, id="range"),
        pytest.param("y:2017- kernels", 2017, 9999, id="from"),
        pytest.param("年份：2013..2014", 2013, 2014, id="chinese"),
    ],
)
def test_year_candidates_are_in_range(
    papers: tuple[Paper, ...], index: Index, query: str, low: int, high: int
) -> None:
    mask = mask_of(index, query)
    assert mask.any()
    assert (mask == expected(papers, lambda p: p.year is not None and low <= p.year <= high)).all()


@pytest.mark.parametrize(
    ("query", "name"),
    [
        pytest.param("author:Bengio", "Bengio", id="surname"),
        pytest.param('author:"Yoshua Bengio"', "Yoshua Bengio", id="quoted-full-name"),
        pytest.param('au:"Bengio, Y."', "Y. Bengio", id="surname-first-initial"),
        pytest.param("作者:bengio", "Bengio", id="chinese-lower-case"),
    ],
)
def test_author_candidates_follow_the_by_author_rule(
    papers: tuple[Paper, ...], index: Index, query: str, name: str
) -> None:
    rows = np.flatnonzero(mask_of(index, f"{query} deep learning"))
    assert {papers[r].id for r in rows} == {p.id for p in index.by_author(name)}
    assert len(rows) and all(any(author_matches(name, a) for a in papers[r].authors) for r in rows)


def test_a_full_name_is_narrower_than_a_surname(index: Index) -> None:
    assert (
        0 < mask_of(index, 'author:"Yoshua Bengio"').sum() < mask_of(index, "author:Bengio").sum()
    )


def test_excluded_author(papers: tuple[Paper, ...], index: Index) -> None:
    mask = mask_of(index, "-author:Wang")
    wang = expected(papers, lambda p: any(author_matches("Wang", a) for a in p.authors))
    assert wang.any() and (mask == ~wang).all()


@pytest.mark.parametrize(
    ("query", "rule"),
    [
        pytest.param("status:oral", lambda p: p.status == "Oral", id="status"),
        pytest.param("status:Poster", lambda p: p.status == "Poster", id="status-case"),
        pytest.param("track:main", lambda p: p.track == "main", id="track"),
        pytest.param("venue:icml", lambda p: p.venue == "ICML", id="venue"),
        pytest.param("會議:ICML", lambda p: p.venue == "ICML", id="venue-chinese"),
        pytest.param("venue:neurips", lambda p: False, id="venue-absent"),
    ],
)
def test_label_candidates(
    papers: tuple[Paper, ...], index: Index, query: str, rule: Callable[[Paper], bool]
) -> None:
    assert (mask_of(index, query) == expected(papers, rule)).all()


def test_title_candidates_hold_it_in_the_title(papers: tuple[Paper, ...], index: Index) -> None:
    mask = mask_of(index, 'ti:"neural network" training')
    in_title = expected(papers, lambda p: has_phrase(p, "neural network", title_only=True))
    assert in_title.any() and (mask == in_title).all()
    assert mask.sum() < mask_of(index, '"neural network"').sum()


def test_all_conditions_together(papers: tuple[Paper, ...], index: Index) -> None:
    mask = mask_of(index, 'y:2014..2019 status:poster "neural networks" -image -author:Zhang')
    rule = expected(
        papers,
        lambda p: (
            2014 <= (p.year or 0) <= 2019
            and p.status == "Poster"
            and has_phrase(p, "neural networks")
            and not has_phrase(p, "image")
            and not any(author_matches("Zhang", a) for a in p.authors)
        ),
    )
    assert rule.any() and (mask == rule).all()


@pytest.mark.parametrize(
    "query",
    ['"graph neural networks', "author: Bengio", "author:", "transformers -", "year:abc gans",
     'author:"Yann LeCun', "self-supervised t-SNE", "what is: attention", "C++ at 10:30"],
)  # fmt: skip
def test_broken_syntax_is_plain_text_and_filters_nothing(index: Index, query: str) -> None:
    parsed = parse_query(query)
    assert parsed.text == query
    assert candidates(index, parsed) is None


def test_a_clause_without_terms_is_dropped(index: Index) -> None:
    assert candidates(index, parse_query('"the of" graphs')) is None
    assert candidates(index, parse_query("graphs -the")) is None


def test_plain_queries_never_build_the_columns(
    index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = Index.build(index.papers[:10])

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("built for a plain query")

    monkeypatch.setattr(FilterColumns, "build", refuse)
    assert candidates(fresh, parse_query("graph neural networks")) is None


def test_columns_are_built_once_per_index(index: Index) -> None:
    assert filter_columns(index) is filter_columns(index)
    assert filter_columns(Index.build(index.papers[:5])) is not filter_columns(index)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="the whole ICML list is in ../shared only")
def test_the_whole_list() -> None:
    papers = real_papers(SHARED)
    index = Index.build(papers)
    phrase = expected(papers, lambda p: has_phrase(p, "graph neural networks"))
    assert (mask_of(index, '"graph neural networks" molecules') == phrase).all()
    mask = mask_of(index, "year:2018 adversarial examples -image")
    rule = expected(papers, lambda p: p.year == 2018 and not has_phrase(p, "image"))
    assert rule.any() and (mask == rule).all()
