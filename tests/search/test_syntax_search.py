"""Query syntax through the real search path: every returned paper obeys every element.

On the real list sample (`tests/data/paperlists_sample/`, 305 ICML 2013–2019 records), as the
loader reads it: its venue and year come from each record's proceedings URL. Each query goes
through `Index.search` (BM25 alone) and `HybridRetriever.search` (fused with vectors from a
deterministic stand-in model), and each hit is checked by a brute-force reading of the paper,
not by the mask the engines use.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from bot.answers import results
from bot.corpus import Paper, load_corpus
from bot.search import HybridRetriever, Index, Retriever, SearchResult
from bot.search.query.analysis import EnglishAnalyzer
from bot.search.rank.phrases import phrase_terms
from testkit.papers import author_matches
from testkit.paths import TEST_DATA

SAMPLE = TEST_DATA / "paperlists_sample"
ANALYZER = EnglishAnalyzer()
DEPTH = 400  # deeper than any candidate set here: every candidate is returned and checked


class WordHashEmbedder:
    """A deterministic stand-in model: a bag of hashed words (no download, no threads)."""

    name = "word-hash-test"
    dim = 64
    workers = 1

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.embed_query(text) for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        vector = self._vector(text)
        return vector / np.linalg.norm(vector)

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in ANALYZER.analyze(text):
            vector[hashlib.blake2b(word.encode(), digest_size=2).digest()[0] % self.dim] += 1
        return vector + 1e-3


@pytest.fixture(scope="module")
def papers() -> tuple[Paper, ...]:
    return load_corpus(sorted(SAMPLE.glob("icml*.json"))).papers


@pytest.fixture(scope="module")
def index(papers: tuple[Paper, ...]) -> Index:
    return Index.build(papers)


@pytest.fixture(scope="module")
def hybrid(index: Index, papers: tuple[Paper, ...]) -> HybridRetriever:
    embedder = WordHashEmbedder()
    retriever = HybridRetriever(index, embedder)
    retriever.attach_vectors(embedder.embed_documents([f"{p.title} {p.abstract}" for p in papers]))
    return retriever


@pytest.fixture(params=["bm25", "hybrid"])
def engine(request: pytest.FixtureRequest, index: Index, hybrid: HybridRetriever) -> Retriever:
    return index if request.param == "bm25" else hybrid


def has_phrase(paper: Paper, text: str, *, title_only: bool = False) -> bool:
    """The phrase's terms as a run in the title's or the abstract's terms."""
    wanted = phrase_terms(text, ANALYZER)
    fields = (paper.title,) if title_only else (paper.title, paper.abstract)
    n = len(wanted)
    for field in fields:
        terms = phrase_terms(field, ANALYZER)
        if any(terms[i : i + n] == wanted for i in range(len(terms) - n + 1)):
            return True
    return False


def by_author(name: str) -> Callable[[Paper], bool]:
    return lambda p: any(author_matches(name, a) for a in p.authors)


def in_years(low: int, high: int) -> Callable[[Paper], bool]:
    return lambda p: p.year is not None and low <= p.year <= high


CASES: list[tuple[str, Callable[[Paper], bool]]] = [
    ('"graph neural networks"', lambda p: has_phrase(p, "graph neural networks")),
    ('"reinforcement learning" exploration', lambda p: has_phrase(p, "reinforcement learning")),
    ("generative adversarial networks -image", lambda p: not has_phrase(p, "image")),
    ('neural networks -"deep learning"', lambda p: not has_phrase(p, "deep learning")),
    ("bandit OR bandits", lambda p: has_phrase(p, "bandit") or has_phrase(p, "bandits")),
    ("kernel | gaussian process", lambda p: has_phrase(p, "kernel") or has_phrase(p, "gaussian")),
    ("author:Bengio", by_author("Bengio")),
    ("au:Jordan optimization", by_author("Jordan")),
    ("作者:Bengio", by_author("Bengio")),
    ("title:adversarial", lambda p: has_phrase(p, "adversarial", title_only=True)),
    ("ti:bandit regret", lambda p: has_phrase(p, "bandit", title_only=True)),
    ("year:2018 adversarial examples", in_years(2018, 2018)),
    ("y:2015..2017 kernel", in_years(2015, 2017)),
    ("年份:2014 learning", in_years(2014, 2014)),
    ("year:2017- reinforcement", in_years(2017, 9999)),
    ("venue:icml learning", lambda p: "icml" in p.venue.casefold()),
    ("status:oral", lambda p: p.status.casefold() == "oral"),
    ("-author:Bengio deep networks", lambda p: not by_author("Bengio")(p)),
]


def returned(engine: Retriever, query: str) -> SearchResult:
    result = results(engine, query, limit=DEPTH)
    assert result.parsed is not None, f"{query!r} was read as plain text"
    return result


@pytest.mark.parametrize(("query", "rule"), CASES, ids=[q for q, _ in CASES])
def test_every_returned_paper_obeys_the_syntax(
    engine: Retriever, papers: tuple[Paper, ...], query: str, rule: Callable[[Paper], bool]
) -> None:
    result = returned(engine, query)
    assert result.hits, f"{query!r} found nothing: the check would be empty"
    broken = [hit.paper.title for hit in result.hits if not rule(hit.paper)]
    assert not broken, f"{query!r} returned papers that break it: {broken[:3]}"


def test_combined_conditions_all_hold(engine: Retriever) -> None:
    query = 'year:2017..2019 "neural networks" -image -author:Bengio'
    result = returned(engine, query)
    assert result.hits
    for hit in result.hits:
        paper = hit.paper
        assert in_years(2017, 2019)(paper)
        assert has_phrase(paper, "neural networks")
        assert not has_phrase(paper, "image")
        assert not by_author("Bengio")(paper)


def test_a_filter_ranks_its_own_papers_not_the_first_of_all_years(index: Index) -> None:
    """'year:2015 deep learning' ranks 2015's papers: the same order as the whole ranking
    read down to its 2015 papers, far more of them than a post-filter of its top 10 keeps."""
    filtered = results(index, "year:2015 deep learning", limit=10)
    everything = results(index, "deep learning", limit=DEPTH)
    in_2015 = [h.paper.id for h in everything.hits if h.paper.year == 2015]
    assert [h.paper.id for h in filtered.hits] == in_2015[:10]
    top_10 = [h for h in everything.hits[:10] if h.paper.year == 2015]
    assert len(filtered.hits) == 10 > len(top_10)
    assert filtered.total == len(in_2015) < everything.total


def test_conditions_alone_list_every_match_newest_first(
    engine: Retriever, papers: tuple[Paper, ...]
) -> None:
    result = results(engine, "author:Bengio", limit=DEPTH)
    expected = [p for p in papers if by_author("Bengio")(p)]
    assert result.confident and result.total == len(expected) == len(result.hits) > 1
    years = [hit.paper.year or 0 for hit in result.hits]
    assert years == sorted(years, reverse=True)
    assert {h.paper.id for h in result.hits} == {p.id for p in expected}


def test_conditions_no_paper_meets_give_no_hits(engine: Retriever) -> None:
    result = results(engine, "year:1990 neural networks")
    assert result.hits == () and result.total == 0 and not result.confident
    assert result.parsed is not None


def test_pages_reach_exactly_the_candidates(index: Index) -> None:
    first = results(index, "year:2019 learning", limit=5)
    second = results(index, "year:2019 learning", limit=5, offset=5)
    ids = [h.paper.id for h in (*first.hits, *second.hits)]
    assert len(ids) == len(set(ids)) == 10
    assert all(h.paper.year == 2019 for h in (*first.hits, *second.hits))


@pytest.mark.parametrize(
    "query",
    ['"graph neural networks', "author: Bengio", "author:", "transformers -", "year:abc gans",
     "a OR", "| kernels", '""', "-"],
)  # fmt: skip
def test_broken_syntax_is_answered_as_plain_text(engine: Retriever, query: str) -> None:
    result = results(engine, query)
    assert result.parsed is None  # no condition: searched as the words typed
    plain = results(engine, query.replace('"', " ").replace("|", " "))
    assert [h.paper.id for h in result.hits] == [h.paper.id for h in plain.hits]


def test_loader_reads_venue_and_year_from_proceedings_urls(papers: tuple[Paper, ...]) -> None:
    by_file: dict[str, set[tuple[str, int | None]]] = {}
    for paper in papers:
        by_file.setdefault(Path(paper.source).name, set()).add((paper.venue, paper.year))
    for name, seen in by_file.items():
        year = int(name[4:8])
        assert seen == {(f"ICML {year}", year)}, name


@pytest.mark.parametrize(
    ("lang", "words"), [("en", "2 filters: year 2015 · without 'image'"), ("zh_Hans", "2015 年")]
)
def test_the_answer_header_names_the_filters(index: Index, lang: str, words: str) -> None:
    from bot import render
    from bot.i18n import translator

    t = translator(lang)
    result = results(index, "year:2015 deep learning -image")
    html = "".join(m.text for m in render.to_html(render.results_doc(result, per_page=5, t=t)))
    console = render.results_text(result, ("«", "»"), t=t)
    assert words in html and words in console
    nothing = results(index, "year:1990 networks")
    assert "year 1990" in render.results_text(nothing, ("«", "»"))
    doc = render.results_doc(nothing, per_page=5)
    assert "year 1990" in render.to_console(doc)


@pytest.mark.slow  # starts a CLI process
def test_cli_json_has_year_venue_and_filters() -> None:
    import json

    from testkit.process import run_bot

    done = run_bot("search", "--no-semantic", "--json", "--corpus", str(SAMPLE),
                   "year:2017 author:Jordan")  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["filters"] == ["year 2017", "author Jordan"]
    assert answer["results"]
    assert {(r["year"], r["venue"]) for r in answer["results"]} == {(2017, "ICML 2017")}


@pytest.mark.parametrize(
    ("topic", "rule"),
    [("author:Bengio", by_author("Bengio")), ("year:2018 adversarial", in_years(2018, 2018))],
)
def test_topic_alerts_match_with_the_same_syntax(
    index: Index, papers: tuple[Paper, ...], topic: str, rule: Callable[[Paper], bool]
) -> None:
    from bot.tg.alerts import topic_matches

    found = topic_matches(index, topic, {p.id for p in papers})
    assert found and all(rule(p) for p in found)
