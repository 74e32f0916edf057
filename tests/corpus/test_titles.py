"""Derived titles: the seed fixture read line by line, and the headline rules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.corpus import MAX_TITLE_CHARS, derive_title, load_corpus
from bot.corpus.headline import DANGLING, headline
from testkit.paths import SEED_CORPUS, TEST_DATA

SEED_TITLES = TEST_DATA / "seed_titles.txt"
CORPUS = SEED_CORPUS


def _fixture() -> list[tuple[str, str]]:
    """(content id, title) per line of the judged seed titles."""
    rows = []
    for line in SEED_TITLES.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            paper_id, title = line.split("\t")
            rows.append((paper_id, title))
    return rows


@pytest.fixture(scope="module")
def seed_abstracts() -> dict[str, str]:
    """Content id → abstract of the 57 seed papers."""
    papers = load_corpus([CORPUS]).papers
    return {paper.id: paper.abstract for paper in papers}  # untitled: ids hash the abstract


def test_fixture_has_one_title_per_seed_paper(seed_abstracts: dict[str, str]) -> None:
    ids = [paper_id for paper_id, _ in _fixture()]
    assert len(ids) == 57
    assert set(ids) == set(seed_abstracts)


@pytest.mark.parametrize(("paper_id", "title"), _fixture(), ids=[r[0] for r in _fixture()])
def test_seed_title_reads_as_a_title(paper_id: str, title: str) -> None:
    assert not title.endswith(("…", "...", "."))
    assert len(title) <= MAX_TITLE_CHARS
    assert title.split()[-1].lower() not in DANGLING
    assert title.count("(") == title.count(")")
    assert title[0].isupper() or title[0].isdigit()


def test_each_seed_abstract_derives_its_judged_title(seed_abstracts: dict[str, str]) -> None:
    derived = {paper_id: derive_title(seed_abstracts[paper_id]) for paper_id, _ in _fixture()}
    assert derived == dict(_fixture())


def test_contribution_sentence_becomes_a_headline() -> None:
    abstract = (
        "Deciding when to stop evaluating expensive functions is an underexplored question. "
        "We propose a principled cost-aware stopping rule for Bayesian optimization that adapts "
        "to varying evaluation costs and comes with regret guarantees."
    )
    assert derive_title(abstract) == "Cost-aware stopping rule for Bayesian optimization"


def test_named_method_keeps_name_and_expansion() -> None:
    abstract = (
        "Tabular data resists deep learning. We introduce Arboreal Neural Networks (ArbNN), "
        "which grow trees of neurons. ArbNN beats boosted trees on 20 datasets."
    )
    assert derive_title(abstract) == "ArbNN: Arboreal Neural Networks"


def test_long_named_description_becomes_what_the_method_does() -> None:
    abstract = (
        "Shapley values are costly. We propose GraphSHAP, a framework that exploits structure "
        "in graph-structured inputs to compute Shapley values and higher-order interaction "
        "indices efficiently across many domains and tasks."
    )
    title = derive_title(abstract)
    assert title.startswith("GraphSHAP: Exploiting structure in graph-structured inputs")
    assert len(title) <= MAX_TITLE_CHARS


def test_background_only_abstract_gets_a_phrase_not_a_clipped_sentence() -> None:
    abstract = (
        "Why depth yields a genuine computational advantage over shallow methods remains a "
        "central open question in learning theory, with many partial answers so far."
    )
    title = derive_title(abstract)
    assert title == "Why depth yields a genuine computational advantage"


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        pytest.param(
            "rule that adapts to costs", "rule that adapts to costs", id="short-core-keeps-clause"
        ),
        pytest.param(
            "cost-aware stopping rule for Bayesian optimization that adapts to costs",
            "cost-aware stopping rule for Bayesian optimization",
            id="cut-before-relative-clause",
        ),
        pytest.param(
            "first certificate for graph transformers against adversarial edge insertions and "
            "deletions based on randomized smoothing over attention masks in many settings",
            "first certificate for graph transformers against adversarial edge insertions and "
            "deletions",
            id="cut-at-preposition-to-fit",
        ),
        pytest.param("methods for " + "very" * 30 + " problems", None, id="no-cut-fits"),
    ],
)
def test_headline_cuts_only_at_phrase_boundaries(phrase: str, expected: str | None) -> None:
    assert headline(phrase) == expected


def test_headline_never_ends_in_a_dangling_word() -> None:
    phrase = "robust training of deep networks with noisy labels " * 3
    result = headline(phrase, limit=40)
    assert result is not None
    assert result.split()[-1] not in DANGLING
    assert len(result) <= 40


@pytest.mark.parametrize(
    "abstract",
    [
        pytest.param("In " * 2000, id="repeated-lead-in"),
        pytest.param("To " + "x" * 79 + ", " + "To " * 500 + "we", id="nested-lead-ins"),
        pytest.param("a" * 10000, id="one-huge-word"),
        pytest.param("We propose " + "A" * 5000 + " (B) " * 500, id="long-acronym-word"),
        pytest.param("We propose " + "x-" * 5000 + " (X)", id="hyphen-chain"),
        pytest.param("", id="empty"),
    ],
)
def test_pathological_abstracts_get_a_bounded_title_quickly(abstract: str) -> None:
    title = derive_title(abstract)  # a catastrophic regex would hang here
    assert len(title) <= MAX_TITLE_CHARS
    assert not title.endswith("…")


_WORDS = [
    "We",
    "propose",
    "study",
    "a",
    "the",
    "framework",
    "that",
    "learns",
    "for",
    "of",
    "(AB)",
    "AB,",
    "Graph",
    "Neural",
    "Networks",
    "data.",
    "—",
    "x-y",
    "é",
    "In",
    "this",
    "work,",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=80).map(" ".join))
def test_any_text_gets_a_title_within_the_limit(abstract: str) -> None:
    title = derive_title(abstract)
    assert len(title) <= MAX_TITLE_CHARS
    assert not title.endswith("…")


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        pytest.param(
            "Precision matters. We bound the error of stochastic rounding in eight-bit training "
            "and show that it keeps SGD unbiased.",
            "Bounding the error of stochastic rounding in eight-bit training",
            id="we-verb-as-gerund",
        ),
        pytest.param(
            "Over-squashing hurts. We add and remove edges to maximise the spectral gap.",
            "Adding and removing edges to maximise the spectral gap",
            id="two-verbs",
        ),
        pytest.param(
            "We certify object detectors against adversarial patches by masking and voting over "
            "image regions.",
            "Certifying object detectors against adversarial patches by masking and voting",
            id="verb-before-by-doing",
        ),
        pytest.param(
            "A neural attenuation field trained with a projection-consistency loss reconstructs "
            "CT volumes from twenty views with fewer streak artefacts than back-projection.",
            "A neural attenuation field",
            id="no-dangling-participle",
        ),
    ],
)
def test_plain_we_sentences_become_headlines(abstract: str, title: str) -> None:
    assert derive_title(abstract) == title
