"""Search: scores equal rank-bm25's, snippets, paging, similar, confidence, hostile queries."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

import numpy as np
import pytest
import rank_bm25

from bot.answers import results
from bot.corpus import Paper
from bot.search import Index
from bot.search.query.analysis import MAX_QUERY_TERMS, EnglishAnalyzer, analyze_query
from bot.search.rank.bm25 import BM25, SAMPLE
from bot.search.rank.documents import WHOLE_TERM, document_terms
from bot.search.rank.hits import CONFIDENT_COVERAGE
from bot.search.rank.vocabulary import TERM_CACHE, Vocabulary
from bot.search.snippets.sentences import MAX_SNIPPET_CHARS, best_snippet, marks
from testkit.devset import load_devset, load_seed_papers

ENGLISH = EnglishAnalyzer()
analyze, analyze_spans = ENGLISH.analyze, ENGLISH.analyze_spans


@pytest.fixture(scope="module")
def seed_papers() -> list[Paper]:
    return load_seed_papers()


@pytest.fixture(scope="module")
def seed_index(seed_papers: list[Paper]) -> Index:
    return Index.build(seed_papers)


def _random_papers(seed: int, n: int = 80) -> list[Paper]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(60)] + ["common", "half", "rare"]
    papers = []
    for i in range(n):
        words = rng.choices(vocab, k=rng.randint(0, 40))
        if i % 2 == 0:
            words.append("half")  # in exactly half the papers
        words.append("common")  # in every paper
        title = " ".join(rng.choices(vocab, k=rng.randint(0, 4)))
        papers.append(Paper(id=str(i + 1), title=title, abstract=" ".join(words)))
    return papers


def _queries(papers: list[Paper], seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    vocab = sorted({t for p in papers for t in document_terms(p, ENGLISH)})
    queries = [["common"], ["half"], ["half", "half", "common"], ["absent"], []]
    for _ in range(60):
        queries.append(rng.choices([*vocab, "absent", "unknown"], k=rng.randint(1, 8)))
    return queries


def test_scores_equal_rank_bm25_on_the_seed_corpus(seed_papers: list[Paper]) -> None:
    index = Index.build(seed_papers)
    reference = rank_bm25.BM25Plus([document_terms(p, ENGLISH) for p in seed_papers])
    questions = [q.text for q in load_devset(seed_papers)]
    for terms in [analyze_query(q, ENGLISH) for q in questions] + _queries(seed_papers, 1):
        expected = reference.get_scores(terms)
        assert np.allclose(index.scores(terms), expected, rtol=1e-9, atol=1e-12), terms


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scores_equal_rank_bm25_on_a_random_corpus(seed: int) -> None:
    papers = _random_papers(seed)
    index = Index.build(papers)
    reference = rank_bm25.BM25Plus([document_terms(p, ENGLISH) for p in papers])
    for terms in _queries(papers, seed):
        expected = reference.get_scores(terms)
        assert np.allclose(index.scores(terms), expected, rtol=1e-9, atol=1e-12), terms


def test_scores_equal_rank_bm25_when_tf_and_length_pairs_are_many() -> None:
    # A 3,000-word document widens the (length, tf) grid past the bitmap: pairs come by sort.
    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    docs = [["long"] * 3000 + ["w1"]] + [
        rng.choices(words, k=rng.randint(1, 60)) for _ in range(300)
    ]
    bm25 = BM25.build(docs)
    reference = rank_bm25.BM25Plus(docs)
    for terms in [["long"], ["w1", "w2", "long"], ["w3", "w3", "w5"], rng.choices(words, k=6)]:
        expected = reference.get_scores(terms)
        assert np.allclose(bm25.scores(terms), expected, rtol=1e-9, atol=1e-12), terms
        assert bm25.tf("long", np.array([0, 1])).tolist() == [3000, 0]


def test_papers_without_the_term_get_bm25plus_delta_share() -> None:
    papers = _random_papers(4)
    index = Index.build(papers)
    without = [i for i, p in enumerate(papers) if "rare" not in document_terms(p, ENGLISH)]
    reference = rank_bm25.BM25Plus([document_terms(p, ENGLISH) for p in papers]).get_scores(
        ["rare"]
    )
    assert reference[without[0]] > 0
    assert np.allclose(index.scores(["rare"])[without], reference[without], rtol=1e-9)


@pytest.mark.parametrize("seed", [5, 6])
def test_hits_are_rank_bm25_top_k(seed: int) -> None:
    papers = _random_papers(seed)
    index = Index.build(papers)
    reference = rank_bm25.BM25Plus([document_terms(p, ENGLISH) for p in papers])
    for terms in _queries(papers, seed)[5:]:
        query = " ".join(terms)
        result = results(index, query, limit=10)
        scores = reference.get_scores(analyze_query(query, ENGLISH))
        contains = [i for i, p in enumerate(papers) if set(document_terms(p, ENGLISH)) & set(terms)]
        best = sorted(scores[contains], reverse=True)[:10]
        rows = [int(h.paper.id) - 1 for h in result.hits]
        # Equal scores may differ in the last bit between the two, so ties can swap.
        assert np.allclose([h.score for h in result.hits], best, rtol=1e-9)
        assert np.allclose([h.score for h in result.hits], scores[rows], rtol=1e-9)
        assert result.total == len(contains)


@pytest.mark.parametrize(
    ("question", "key"),
    [
        pytest.param("can multimodal LLMs understand videos of epileptic seizures", "S³"),
        pytest.param("why batch normalization slows down dynamic sparse training", "SparseOpt"),
        pytest.param("reusing precomputed KV caches of retrieved documents in RAG", "KV"),
        pytest.param("stopping developers from gaming chatbot arena leaderboards", "YRWR"),
        pytest.param("building atomic models of proteins from cryo electron microscopy", "CryoACE"),
        pytest.param("r3 refiner", "R³-Refiner", id="r3-refiner"),
        pytest.param("first order methods with generalized smoothness", "smoothness", id="fo"),
    ],
)
def test_paraphrased_question_finds_its_paper_first(
    seed_index: Index, question: str, key: str
) -> None:
    result = results(seed_index, question, limit=1)
    assert key in result.hits[0].paper.abstract


def test_snippets_fit_and_mark_query_words(seed_index: Index) -> None:
    for question in [q.text for q in load_devset(seed_index.papers)]:
        result = results(seed_index, question, limit=5)
        for hit in result.hits:
            snippet = hit.snippet
            assert 0 < len(snippet.text) <= MAX_SNIPPET_CHARS
            assert snippet.text.replace("…", "") in hit.paper.abstract.replace("\n", " ") or (
                all(part in hit.paper.abstract for part in snippet.text.split("…") if part)
            )
            ends = [e for _, e in snippet.marks]
            assert list(snippet.marks) == sorted(snippet.marks)
            assert all(s < e for s, e in snippet.marks)
            assert all(a[1] <= b[0] for a, b in pairwise(snippet.marks))
            assert all(e <= len(snippet.text) for e in ends)
            for s, e in snippet.marks:
                assert set(analyze(snippet.text[s:e])) & set(result.terms), snippet.text[s:e]


def test_snippet_is_the_best_matching_sentence(seed_index: Index) -> None:
    hit = results(seed_index, "batch normalization sparse training", limit=1).hits[0]
    assert "Batch Normalization (BN) adversely affects sparse training" in hit.snippet.text
    marked = [hit.snippet.text[s:e].lower() for s, e in hit.snippet.marks]
    assert "batch" in marked and "sparse" in marked


def test_snippet_without_matches_is_the_opening(seed_index: Index) -> None:
    paper = seed_index.papers[0]
    snippet = best_snippet(paper.abstract, ["zzzunknown"], {"zzzunknown": 1.0}, seed_index.analyzer)
    assert snippet.marks == ()
    assert paper.abstract.startswith(snippet.text.rstrip("…"))


def test_long_sentence_is_cut_on_word_boundaries_around_the_match() -> None:
    words = [f"filler{i}" for i in range(80)]
    abstract = " ".join(words) + " target word here " + " ".join(words) + "."
    index = Index.build([Paper("1", "A", abstract), Paper("2", "B", "other text entirely")])
    snippet = results(index, "target", limit=1).hits[0].snippet
    assert len(snippet.text) <= MAX_SNIPPET_CHARS
    assert snippet.text.startswith("…") and snippet.text.endswith("…")
    # The cut starts at the first whole word within 40 characters before the match.
    assert snippet.text.startswith("…filler76 filler77 filler78 filler79 target word here")
    (s, e), *_ = snippet.marks
    assert snippet.text[s:e] == "target"
    assert all(
        w.startswith("filler") or w in {"target", "word", "here"}
        for w in snippet.text.strip("…").split()
    )


def test_paging_continues_where_the_last_page_ended(seed_index: Index) -> None:
    everything = results(seed_index, "learning models", limit=12)
    page = results(seed_index, "learning models", limit=4, offset=4)
    assert [h.paper.id for h in page.hits] == [h.paper.id for h in everything.hits[4:8]]
    assert page.offset == 4
    assert page.total == everything.total


def test_offset_past_the_end_gives_no_hits(seed_index: Index) -> None:
    result = results(seed_index, "learning", limit=5, offset=10_000)
    assert result.hits == ()
    assert result.total > 0


def test_similar_excludes_the_paper_and_finds_related_ones(seed_index: Index) -> None:
    mixup = next(p for p in seed_index.papers if "applying mixup to graph data" in p.abstract)
    hits = seed_index.similar(mixup.id, limit=5)
    assert len(hits) == 5
    assert mixup.id not in [h.paper.id for h in hits]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_similar_of_unknown_id_is_empty(seed_index: Index) -> None:
    assert seed_index.similar("no-such-paper") == ()


def test_get_finds_papers_by_id(seed_index: Index) -> None:
    paper = seed_index.papers[3]
    assert seed_index.get(paper.id) is paper
    assert seed_index.get("nope") is None


@pytest.mark.parametrize(
    "query",
    [
        "how to bake sourdough bread at home",
        "cheap flights from London to Paris",
        "a novel about a detective solving a murder in Victorian London",
    ],
)
def test_off_topic_question_is_not_confident(seed_index: Index, query: str) -> None:
    result = results(seed_index, query)
    assert not result.confident
    assert result.confidence < CONFIDENT_COVERAGE


@pytest.mark.parametrize(
    "query",
    [
        "can multimodal LLMs understand videos of epileptic seizures",
        "why batch normalization slows down dynamic sparse training",
        "r3 refiner",
    ],
)
def test_on_topic_question_is_confident(seed_index: Index, query: str) -> None:
    assert results(seed_index, query).confident


def test_confidence_is_the_top_hit_coverage(seed_index: Index) -> None:
    result = results(seed_index, "sparse training and sourdough bread", limit=3)
    assert result.confidence == pytest.approx(result.hits[0].coverage)
    assert 0 < result.confidence < 1


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("", id="empty"),
        pytest.param("   \n\t ", id="blank"),
        pytest.param("the of and which", id="stopwords"),
        pytest.param("model " * 2_000, id="10k-chars"),
        pytest.param("😀" * 300, id="emoji"),
        pytest.param("深度学习的论文", id="chinese"),
        pytest.param("\ud800\x00\x1b", id="surrogate-control"),
        pytest.param("$$^^{{}}\\\\", id="markup-only"),
    ],
)
def test_hostile_queries_never_raise(seed_index: Index, query: str) -> None:
    result = results(seed_index, query, limit=5)
    assert len(result.hits) <= 5
    if not result.terms:
        assert result.hits == () and result.total == 0 and not result.confident


def test_nothing_searchable_gives_empty_terms(seed_index: Index) -> None:
    assert results(seed_index, "the and of").terms == ()


def test_negative_limit_and_offset_are_clamped(seed_index: Index) -> None:
    result = results(seed_index, "learning", limit=-3, offset=-2)
    assert result.hits == () and result.offset == 0


def test_empty_corpus_searches_to_nothing() -> None:
    index = Index.build([])
    assert results(index, "anything").hits == ()
    assert index.stats().papers == 0


def test_state_round_trip_gives_the_same_results(seed_index: Index) -> None:
    state = seed_index.to_state()
    assert all(isinstance(v, (np.ndarray, str, int, float)) for v in state.values())
    loaded = Index.from_state(seed_index.papers, state)
    for query in ["sparse training", "diffusion protein", "llm judges"]:
        a, b = results(seed_index, query, limit=5), results(loaded, query, limit=5)
        assert [(h.paper.id, h.score) for h in a.hits] == [(h.paper.id, h.score) for h in b.hits]


@pytest.mark.slow
def test_coverage_from_snippet_counts_equals_coverage_from_postings(seed_index: Index) -> None:
    questions = [q.text for q in load_devset(list(seed_index.papers))]
    for query in [*questions, "sparse training diffusion", "zzqx model"]:
        for offset in (0, 3):
            a = results(seed_index, query, limit=7, offset=offset)
            b = results(seed_index, query, limit=7, offset=offset, snippets=False)
            assert [h.coverage for h in a.hits] == [h.coverage for h in b.hits], query
            assert a.confidence == b.confidence, query


@pytest.mark.slow
def test_the_abstracts_layout_round_trips_with_the_same_snippets(seed_papers: list[Paper]) -> None:
    built = Index.build(seed_papers)
    state = built.to_state()
    loaded = Index.from_state(seed_papers, state)
    assert 0 < state["abstract_plain"].sum() < len(seed_papers)  # some abstracts need checks
    # A joined compound ("firstord" from "first-order") is looked for by "first", not "firsto".
    chars = state["prefix_chars"]
    assert chars[built.bm25.vocab.id("firstord")] == len("first")
    assert chars[built.bm25.vocab.id("network")] == WHOLE_TERM
    questions = [q.text for q in load_devset(seed_papers)]
    for query in [*questions, "sparse training", "diffusion protein", "llm judges"]:
        a, b = results(built, query, limit=10), results(loaded, query, limit=10)
        assert [h.snippet for h in a.hits] == [h.snippet for h in b.hits], query


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda s: s.pop("pair"), id="missing-array"),
        pytest.param(lambda s: s.update(analyzer_version="0"), id="old-analyzer"),
        pytest.param(lambda s: s.update(doc_ids=s["doc_ids"][:-1]), id="truncated"),
        pytest.param(lambda s: s.update(papers=1), id="other-corpus"),
        pytest.param(lambda s: s.update(indptr=s["indptr"][::-1].copy()), id="corrupt"),
        pytest.param(lambda s: s.update(pair=s["pair"][:-1]), id="truncated-pairs"),
        pytest.param(
            lambda s: s.update(pair_tf=s["pair_tf"][:-1], pair_len=s["pair_len"][:-1]),
            id="pair-out-of-table",
        ),
        pytest.param(lambda s: s.pop("sentences"), id="missing-sentences"),
        pytest.param(
            lambda s: s.update(sentence_offsets=s["sentence_offsets"][:-1]),
            id="sentences-of-fewer-papers",
        ),
        pytest.param(lambda s: s.update(sentences=s["sentences"][:-2]), id="truncated-sentences"),
        pytest.param(lambda s: s.pop("abstract_plain"), id="missing-plain-flags"),
        pytest.param(
            lambda s: s.update(abstract_plain=s["abstract_plain"][:-1]), id="plain-flags-short"
        ),
        pytest.param(
            lambda s: s.update(abstract_plain=s["abstract_plain"].astype(bool)),
            id="plain-flags-not-bytes",
        ),
        pytest.param(lambda s: s.pop("prefix_chars"), id="missing-prefix-lengths"),
        pytest.param(
            lambda s: s.update(prefix_chars=s["prefix_chars"][:-1]),
            id="prefix-lengths-of-another-vocabulary",
        ),
    ],
)
def test_damaged_state_is_rejected(seed_index: Index, damage) -> None:
    state = dict(seed_index.to_state())
    damage(state)
    with pytest.raises(ValueError):
        Index.from_state(seed_index.papers, state)


def test_stats_count_the_arrays(seed_index: Index) -> None:
    stats = seed_index.stats()
    assert stats.papers == len(seed_index.papers)
    assert stats.postings > stats.terms > 1000
    assert stats.memory_bytes > stats.postings * 6
    assert stats.sources >= 1


def test_terms_past_the_query_term_cap_do_not_count(index: Index) -> None:
    target = index.papers[0]
    rare = next(
        t
        for t in analyze(target.abstract)
        if t.isalpha() and results(index, t, limit=60).total == 1
    )
    filler = " ".join(f"zq{n:03d}x" for n in range(MAX_QUERY_TERMS))
    assert results(index, f"{rare} {filler}").hits[0].paper == target
    capped = results(index, f"{filler} {rare}")
    assert len(set(capped.terms)) == MAX_QUERY_TERMS and rare not in capped.terms
    assert capped.hits == ()


# --- the ranking core's paths: one term, several terms (per-thread buffer) ---------------


def _expected_top(index: Index, terms: list[str], k: int) -> tuple[list[int], list[float], int]:
    """The `k` best rows by (score desc, row asc) among papers holding a term, from `scores`."""
    scores = index.scores(terms)
    held = [i for i, p in enumerate(index.papers) if set(document_terms(p, ENGLISH)) & set(terms)]
    ranked = sorted(held, key=lambda r: (-scores[r], r))[: max(0, k)]
    return ranked, [float(scores[r]) for r in ranked], len(held)


def _top_queries(papers: list[Paper]) -> list[list[str]]:
    """One-term, repeated-term, multi-term, absent-term and empty queries."""
    vocab = sorted({t for p in papers for t in document_terms(p, ENGLISH)})
    rng = random.Random(7)
    queries = [[], ["absent"], ["absent", "unknown"], ["common"], ["rare"], ["rare", "rare"]]
    queries += [["half", "absent"], ["half", "common", "half"], vocab[:2], vocab[-3:]]
    queries += [rng.choices(vocab, k=rng.randint(1, 6)) for _ in range(40)]
    return queries


@pytest.mark.parametrize("k", [0, 1, 10, 200])
def test_top_is_exactly_the_best_of_scores(k: int) -> None:
    papers = _random_papers(8)
    index = Index.build(papers)
    for terms in _top_queries(papers):
        rows, scores, total = index.bm25.top(terms, k)
        expected_rows, expected_scores, expected_total = _expected_top(index, terms, k)
        assert rows.tolist() == expected_rows, terms
        assert scores.tolist() == expected_scores, terms  # bit for bit, not only close
        assert total == expected_total, terms


def test_single_term_top_is_rank_bm25s_best() -> None:
    papers = _random_papers(9)
    index = Index.build(papers)
    reference = rank_bm25.BM25Plus([document_terms(p, ENGLISH) for p in papers])
    for term in ["common", "half", "rare", "w3", "w41"]:
        rows, scores, total = index.bm25.top([term], 5)
        expected = reference.get_scores([term])
        assert np.allclose(scores, expected[rows], rtol=1e-12)
        assert np.allclose(scores, np.sort(expected)[::-1][:5], rtol=1e-12)
        assert total == sum(term in document_terms(p, ENGLISH) for p in papers)


@pytest.mark.parametrize("k", [1, 10, SAMPLE - 1, SAMPLE, 5_000])
def test_top_of_many_candidates_is_exactly_the_best_of_scores(k: int) -> None:
    # Past 4 × SAMPLE candidates a sampled lower bound first drops most of them; few
    # distinct (tf, length) pairs make many tied scores right at the k-th place.
    rng = random.Random(11)
    words = ["common", "half", "often", "rare"]
    weights = [60, 30, 20, 1]
    documents = [rng.choices(words, weights, k=rng.randint(1, 6)) for _ in range(12_000)]
    bm25 = BM25.build(documents)
    for terms in (["common"], ["common", "half"], ["half", "often", "rare", "half"]):
        rows, scores, total = bm25.top(terms, k)
        every = bm25.scores(terms)
        held = np.flatnonzero([not set(terms).isdisjoint(d) for d in documents])
        best = held[np.lexsort((held, -every[held]))][:k]
        assert total == len(held) > 4 * SAMPLE, terms
        assert rows.tolist() == best.tolist(), terms
        assert scores.tolist() == every[best].tolist(), terms  # bit for bit


def test_vocabulary_ids_are_sorted_ranks_and_unknown_terms_none() -> None:
    terms = sorted({f"t{i}" for i in range(3 * TERM_CACHE)} | {"é", "naïve"})
    vocab = Vocabulary.from_sorted(terms)
    for _ in range(2):  # the second time from the lookup cache, past its size
        assert [vocab.id(t) for t in terms] == list(range(len(terms)))
        assert [vocab.id(t) for t in ("", "t", "zz", "\udc80", "naive")] == [None] * 5


def test_buffer_is_clean_after_each_query() -> None:
    papers = _random_papers(10)
    index = Index.build(papers)
    first = index.bm25.top(["w1", "w2", "w3"], 10)
    for terms in _top_queries(papers):
        index.bm25.top(terms, 3)
    again = index.bm25.top(["w1", "w2", "w3"], 10)
    assert [a.tolist() for a in first[:2]] == [a.tolist() for a in again[:2]]
    assert not index.bm25._buffer().any()


def test_concurrent_searches_get_their_own_results(seed_index: Index) -> None:
    queries = ["sparse training", "diffusion protein design", "llm judges bias", "graph"]
    expected = {q: seed_index.bm25.top(analyze_query(q, ENGLISH), 10) for q in queries}
    barrier = threading.Barrier(4)

    def run(query: str) -> bool:
        barrier.wait(timeout=10)
        terms = analyze_query(query, ENGLISH)
        results = [seed_index.bm25.top(terms, 10) for _ in range(50)]
        return all(
            r[0].tolist() == expected[query][0].tolist()
            and r[1].tolist() == expected[query][1].tolist()
            for r in results
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(pool.map(run, queries))


@pytest.mark.slow
def test_four_threads_searching_one_index_get_what_one_thread_gets(seed_index: Index) -> None:
    # A tiny query cache is emptied again and again while other threads read it (a KeyError
    # in the old analyzer); the questions add fresh words so every search misses the cache.
    shared = Index(seed_index.papers, seed_index.bm25, seed_index.layout)
    shared.analyzer = EnglishAnalyzer(max_cache=8)
    questions = [f"{q.text} zq{n}x" for n, q in enumerate(load_devset(seed_index.papers))]

    def page(index: Index, question: str) -> list[tuple[str, float, str]]:
        result = results(index, question, limit=5)
        return [(h.paper.id, h.score, h.snippet.text) for h in result.hits]

    expected = [page(seed_index, q) for q in questions]
    barrier = threading.Barrier(4)

    def run(_: int) -> list[list[tuple[str, float, str]]]:
        barrier.wait(timeout=10)
        return [page(shared, q) for q in questions]

    with ThreadPoolExecutor(max_workers=4) as pool:
        seen = list(pool.map(run, range(4)))
    assert all(result == expected for result in seen)
    assert any(expected)


@pytest.mark.parametrize("query", ["", "the and of", "zzqx unknownword", "of the zzqx"], ids=str)
def test_queries_without_known_terms_rank_nothing(seed_index: Index, query: str) -> None:
    rows, scores, total = seed_index.bm25.top(analyze_query(query, ENGLISH), 10)
    assert rows.size == 0 and scores.size == 0 and total == 0


@pytest.mark.parametrize(
    "text",
    [
        "Sparse training of large models. We train models sparsely.",
        "Naïve Bayes (NB) models — déjà vu: R$^3$ first-order models, e.g. GPT-4's.",
        "http://example.org/models \\alpha-models and models.) Models!",
    ],
)
def test_marks_equal_whole_text_spans(seed_index: Index, text: str) -> None:
    wanted = {t: 1.0 for t in analyze("models training naive first-order alpha")}
    whole = [(s, e) for t, s, e in seed_index.analyzer.analyze_spans(text) if t in wanted]
    assert marks(text, wanted, seed_index.analyzer) == whole
    assert whole
