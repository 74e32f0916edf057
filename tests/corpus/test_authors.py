"""Author names: parsing, compact display, tolerant matching, name questions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.corpus.authors import (
    PARTICLES,
    AuthorIndex,
    compact_authors,
    parse_authors,
)
from testkit.papers import author_matches


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("A. Smith, B. Jones and C. Lee", ("A. Smith", "B. Jones", "C. Lee"),
                     id="arxiv-string"),
        pytest.param("Smith, John and Lee, C.", ("John Smith", "C. Lee"), id="bibtex"),
        pytest.param("Smith, John", ("John Smith",), id="bibtex-single"),
        pytest.param("Xingjian Wu, Xiangfei Qiu, Hongfan Gao",
                     ("Xingjian Wu", "Xiangfei Qiu", "Hongfan Gao"), id="paperlists"),
        pytest.param("Ines Duarte; Tobias Weber", ("Ines Duarte", "Tobias Weber"),
                     id="semicolons"),
        pytest.param(["Laura Fernández", " Kwame  Mensah "], ("Laura Fernández", "Kwame Mensah"),
                     id="list"),
        pytest.param([{"name": "Yi-Ting Lin"}, {"given": "Aiko", "family": "Yamamoto"}],
                     ("Yi-Ting Lin", "Aiko Yamamoto"), id="objects"),
        pytest.param([{"first_name": "Ana", "last_name": "Ortega"}], ("Ana Ortega",),
                     id="first-last-objects"),
        pytest.param("Bob Jones, Jr., Ann Lee", ("Bob Jones, Jr.", "Ann Lee"), id="suffix"),
        pytest.param("A. Smith and others", ("A. Smith",), id="bibtex-others"),
        pytest.param('J\\"urgen Bauer and Marta Rossi', ("Jürgen Bauer", "Marta Rossi"),
                     id="latex-accent"),
        pytest.param("Kj{\\ae}r, S{\\o}ren", ("Søren Kjær",), id="latex-letters"),
        pytest.param("", (), id="empty"),
        pytest.param(None, (), id="none"),
        pytest.param(42, (), id="number"),
    ],
)  # fmt: skip
def test_parse_authors(value: object, expected: tuple[str, ...]) -> None:
    assert parse_authors(value) == expected


def test_compact_display_keeps_short_lists_whole() -> None:
    assert compact_authors(["A. Smith", "B. Jones", "C. Lee", "D. Wu"]) == (
        "A. Smith, B. Jones et al."
    )
    assert compact_authors(["A. Smith", "B. Jones", "C. Lee"]) == "A. Smith, B. Jones, C. Lee"
    assert compact_authors([]) == ""


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("Jürgen Schmidhuber", id="full"),
        pytest.param("J. Schmidhuber", id="initial"),
        pytest.param("schmidhuber", id="surname-lower"),
        pytest.param("Schmidhuber, J.", id="comma-order"),
        pytest.param("Jurgen Schmidhuber", id="no-accent"),
        pytest.param("Schmidhuber Jürgen", id="family-first"),
        pytest.param("SCHMIDHUBER", id="upper"),
    ],
)
def test_author_matcher_tolerates_initials_accents_and_order(query: str) -> None:
    assert author_matches(query, "Jürgen Schmidhuber")


@pytest.mark.parametrize(
    ("query", "author"),
    [
        pytest.param("J. Smith", "K. Smith", id="other-initial"),
        pytest.param("John Smith", "Jane Smith", id="other-given"),
        pytest.param("Smith", "Smithson", id="longer-surname"),
        pytest.param("Jürgen", "Jürgen Schmidhuber", id="given-only"),
        pytest.param("", "Jürgen Schmidhuber", id="empty"),
    ],
)
def test_author_matcher_rejects_other_people(query: str, author: str) -> None:
    assert not author_matches(query, author)


def test_author_matcher_ignores_family_name_particles() -> None:
    assert author_matches("van Beethoven", "Ludwig van Beethoven")
    assert author_matches("Beethoven, Ludwig van", "L. van Beethoven")
    assert not author_matches("K. van Beethoven", "Ludwig van Beethoven")


def test_author_matcher_handles_hyphenated_given_names() -> None:
    assert author_matches("J.-L. Picard", "Jean-Luc Picard")
    assert author_matches("Picard, Jean-Luc", "J. Picard")


@pytest.fixture
def authors() -> AuthorIndex:
    """Three papers' authors."""
    return AuthorIndex.build(
        [
            ("Jürgen Schmidhuber", "Sepp Hochreiter"),
            ("Ann Lee", "Wei Zhang"),
            ("J. Smith", "Jürgen Bauer"),
        ]
    )


def test_author_index_finds_a_persons_papers(authors: AuthorIndex) -> None:
    assert authors.papers("schmidhuber") == (0,)
    assert authors.papers("Jürgen") == ()
    assert authors.papers("Zhang Wei") == (1,)
    assert authors.papers("K. Smith") == ()


@pytest.mark.parametrize(
    ("question", "is_name"),
    [
        pytest.param("Hochreiter", True, id="surname"),
        pytest.param("J. Schmidhuber", True, id="initial-surname"),
        pytest.param("Ann Lee", True, id="full-name"),
        pytest.param("lee", False, id="short-lower-surname"),
        pytest.param("graph neural networks", False, id="topic"),
        pytest.param("attention", False, id="topic-word"),
        pytest.param("what did Hochreiter write?", False, id="sentence"),
        pytest.param("K. Smith", False, id="unknown-person"),
    ],
)
def test_name_question_detection(authors: AuthorIndex, question: str, is_name: bool) -> None:
    assert bool(authors.name_query(question)) is is_name


def test_long_question_is_not_a_name_and_returns_fast(authors: AuthorIndex) -> None:
    assert not authors.name_query("Hochreiter" + " " * 3000 + "Hochreiter")
    assert not authors.name_query("Sepp " * 20 + "Hochreiter")


_NAME_PART = (
    st.text(
        alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyzéüøñç")), min_size=2, max_size=9
    )
    .map(str.capitalize)
    # "II", "Jr" and particles are name suffixes/particles by rule, never a whole given name
    .filter(lambda part: part.lower() not in {"ii", "iii", "iv", "jr", "sr"} | PARTICLES)
)


@settings(max_examples=200, deadline=None)
@given(given_name=_NAME_PART, family=_NAME_PART)
def test_any_name_matches_its_own_variants(given_name: str, family: str) -> None:
    name = f"{given_name} {family}"
    assert parse_authors(name) == (name,)
    assert parse_authors(f"{family}, {given_name}") == (name,)
    for variant in (
        name,
        f"{given_name[0]}. {family}",
        family.lower(),
        f"{family}, {given_name[0]}.",
    ):
        assert author_matches(variant, name), variant


# --- names as people type them --------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ("Mueller", "Jonas Müller"),
        ("Muller", "Jonas Müller"),
        ("Müller", "Jonas Mueller"),
        ("J. Mueller", "Jonas Müller"),
        ("Sigurdsson", "Jón Sigurðsson"),
        ("Soeren Kjaer", "Søren Kjær"),
        ("Kjær", "Søren Kjaer"),
        ("Strauss", "Levi Strauß"),
        ("Hoeffding", "Wassily Høffding"),
    ],
)
def test_transliterations_find_the_author(typed: str, written: str) -> None:
    index = AuthorIndex.build([(written,), ("K. Smith",)])
    assert index.papers(typed) == (0,)


def test_initials_still_tell_people_apart() -> None:
    index = AuthorIndex.build([("K. Smith",), ("Jonas Müller",)])
    assert index.papers("J. Smith") == ()
    assert index.papers("K. Mueller") == ()


@pytest.mark.parametrize(
    ("written", "name"),
    [("A. Author*", "A. Author"), ("Bea Other†", "Bea Other"), ("C. Third¹²", "C. Third"),
     ("D. Fourth^{1,2}", "D. Fourth"), ("E. Fifth∗‡", "E. Fifth")],
)  # fmt: skip
def test_equal_contribution_and_footnote_marks_are_stripped(written: str, name: str) -> None:
    assert parse_authors(f"{written}, Z. Last") == (name, "Z. Last")
