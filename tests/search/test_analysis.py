"""Analyzer: compounds, Unicode, stemming, acronyms, numbers, markup, safety."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.search.query.analysis import (
    ANALYZER_VERSION,
    MAX_QUERY_TERMS,
    STOPWORDS,
    EnglishAnalyzer,
    analyze_query,
)
from bot.search.query.pipeline import MAX_QUERY_CHARS
from testkit.devset import load_seed_papers
from testkit.fuzz import FUZZ
from testkit.snippets import SNIPPET_TEXT

ENGLISH = EnglishAnalyzer()
analyze, analyze_spans = ENGLISH.analyze, ENGLISH.analyze_spans


@pytest.mark.parametrize(
    ("doc", "query"),
    [
        pytest.param("first-order methods", "first order", id="hyphen-as-parts"),
        pytest.param("first-order methods", "firstorder", id="hyphen-joined"),
        pytest.param("first order methods", "first order", id="spaced"),
        pytest.param("R³-Refiner", "r3 refiner", id="superscript-nfkc"),
        pytest.param("R$^3$-Refiner", "r3 refiner", id="latex-superscript"),
        pytest.param("R^3-Refiner", "R3-Refiner", id="caret-superscript"),
        pytest.param("INSERT/DELETE operations", "delete", id="slash-part"),
        pytest.param("INSERT/DELETE operations", "insertdelete", id="slash-joined"),
        pytest.param("focus–dilution cycle", "focus-dilution", id="en-dash"),
        pytest.param("task‐vector merging", "task vector", id="unicode-hyphen"),
        pytest.param("CIFAR-10 and ImageNet-1K", "cifar10 imagenet1k", id="name-number"),
    ],
)
def test_query_terms_are_found_in_document(doc: str, query: str) -> None:
    assert set(analyze(query)) <= set(analyze(doc))


def test_compound_gives_parts_then_joined_form() -> None:
    assert analyze("first-order") == ["first", "order", "firstord"]


def test_em_dash_separates_words_instead_of_joining() -> None:
    assert analyze("compiled from—and back") == analyze("compiled from and back")


def test_number_ranges_are_not_joined() -> None:
    assert analyze("3-4") == ["3", "4"]


@pytest.mark.parametrize(
    ("left", "right"),
    [
        pytest.param("teacher’s", "teacher", id="curly-apostrophe-possessive"),
        pytest.param("“quoted”", '"quoted"', id="curly-double-quotes"),
        pytest.param("ﬁne-tuning", "fine-tuning", id="ligature"),
        pytest.param("ＬＬＭ", "LLM", id="full-width"),
        pytest.param("ATTENTION", "attention", id="case"),
        pytest.param("Straße", "strasse", id="casefold-eszett"),
        pytest.param("İstanbul", "istanbul", id="dotted-capital-i"),
        pytest.param("école", "e\u0301cole", id="combining-accent"),
    ],
)
def test_unicode_variants_analyze_alike(left: str, right: str) -> None:
    assert analyze(left) == analyze(right)


@pytest.mark.parametrize(
    ("words", "stem"),
    [
        pytest.param("learning learned learns", "learn", id="verb"),
        pytest.param("models model", "model", id="plural"),
        pytest.param("optimization optimizing", "optim", id="nominalisation"),
    ],
)
def test_stemming_conflates_inflections(words: str, stem: str) -> None:
    assert set(analyze(words)) == {stem}


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        pytest.param("LLMs and an LLM", ["llm", "llm"], id="acronym-plural"),
        pytest.param("SSMs, MLLMs, VLMs", ["ssm", "mllm", "vlm"], id="acronym-plurals"),
        pytest.param("T2I GRPO", ["t2i", "grpo"], id="acronyms-kept"),
        pytest.param("an F1 of 0.96", ["f1", "0.96"], id="decimal"),
        pytest.param("35,000 labels", ["35000", "label"], id="thousands"),
        pytest.param("Qwen3-8B", ["qwen3", "8b", "qwen38b"], id="model-name"),
        pytest.param("8.27%", ["8.27"], id="percent"),
    ],
)
def test_acronyms_and_numbers_are_kept(text: str, terms: list[str]) -> None:
    assert analyze(text) == terms


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        pytest.param(r"\textbf{self-confirming} loop", ["self", "confirm", "selfconfirm", "loop"]),
        pytest.param(r"\href{https://github.com/x/y}{SeizureSuite}", ["seizuresuit"], id="href"),
        pytest.param("see https://github.com/a/b-c.", ["see"], id="url-dropped"),
        pytest.param("**DRIVE** and *novel* _KM-ARL_", ["drive", "novel", "km", "arl", "kmarl"]),
        pytest.param("$\\varepsilon$-accuracy", ["accuraci"], id="latex-command"),
        pytest.param("[code](https://x.org/y) here", ["code"], id="markdown-link"),
    ],
)
def test_markup_is_removed(text: str, terms: list[str]) -> None:
    assert analyze(text) == terms


def test_stopwords_only_gives_no_terms() -> None:
    assert analyze("The of and to which were it's") == []


def test_stopword_list_is_nltk_english() -> None:
    assert {"the", "and", "of", "dont", "wouldnt", "ourselves"} <= STOPWORDS
    assert "model" not in STOPWORDS


def test_query_keeps_its_first_distinct_terms_in_order_with_their_repeats() -> None:
    words = [f"zq{n:03d}x" for n in range(MAX_QUERY_TERMS + 8)]
    query = " ".join([words[0], *words, words[0], words[-1]])
    assert len(query) <= MAX_QUERY_CHARS
    assert analyze_query(query, ENGLISH) == [words[0], *words[:MAX_QUERY_TERMS], words[0]]


def test_a_real_long_question_is_not_cut_by_the_term_cap() -> None:
    question = (  # 21 distinct terms; the longest Cranfield query has 24
        "what are the structural and aeroelastic problems associated with flight of high "
        "speed aircraft, including panel flutter, buckling of stiffened plates, thermal "
        "stresses in wings and fuselage, and the effects of heating on stiffness"
    )
    assert analyze_query(question, ENGLISH) == analyze(question)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("😀🔥🚀", id="emoji"),
        pytest.param("\ud800 lone \udfff surrogates", id="surrogates"),
        pytest.param("\x00\x07\x1b[31m control", id="control"),
        pytest.param("深度学习 обучение التعلم", id="other-scripts"),
        pytest.param("{{{$$$^^^}}}---///", id="only-glue"),
        pytest.param("a" * 10_000, id="huge-word"),
    ],
)
def test_hostile_text_never_raises(text: str) -> None:
    terms = analyze(text)
    assert all(isinstance(t, str) and t for t in terms)
    assert [t for t, _, _ in analyze_spans(text)] == terms


def test_other_scripts_are_kept_as_terms() -> None:
    assert analyze("обучение") == ["обучение"]


def test_spans_point_at_the_original_words() -> None:
    text = "The R³-Refiner’s LLMs—first-order"
    spans = analyze_spans(text)
    assert [(t, text[s:e]) for t, s, e in spans] == [
        ("r3", "R³"),
        ("refin", "Refiner’s"),
        ("r3refin", "R³-Refiner’s"),
        ("llm", "LLMs"),
        ("first", "first"),
        ("order", "order"),
        ("firstord", "first-order"),
    ]


@given(st.text())
def test_any_text_analyzes_without_error(text: str) -> None:
    terms = analyze(text)
    spans = analyze_spans(text)
    assert all(0 <= s < e <= len(text) for _, s, e in spans)
    assert all(isinstance(t, str) and t for t in terms)


@given(st.text(alphabet=st.sampled_from(list("abcXYZ019 -/.,'$^{}³’–—ﬁé\u0301\n"))))
def test_spans_give_the_same_terms_as_analyze(text: str) -> None:
    assert [t for t, _, _ in analyze_spans(text)] == analyze(text)


def _spans_of_one_word_the_general_way(chunk: str) -> list[tuple[str, int, int]]:
    # A leading space keeps `analyze_spans` off its one-word fast path.
    return [(t, s - 1, e - 1) for t, s, e in EnglishAnalyzer().analyze_spans(" " + chunk)]


@pytest.mark.parametrize(
    "chunk",
    ["models,", "(LLMs)", "the", "Transformers.", "x", "'quoted'", "[12]", "R$^3$", "a.b",
     "e.g.", "don't", "first-order", "émigré", "“smart”", "https://x.org", "\\alpha", "...",
     "A" * 80, "x" * 70 + ".", "ArbNN),", "ﬁne"],
)  # fmt: skip
def test_one_word_spans_equal_the_general_spans(chunk: str) -> None:
    assert EnglishAnalyzer().analyze_spans(chunk) == _spans_of_one_word_the_general_way(chunk)


@given(st.text(alphabet=st.sampled_from(list("abcXYZ019-/.,'$^{}()[]\\\"!?;:³’é")), max_size=12))
def test_any_chunk_spans_equal_the_general_spans(chunk: str) -> None:
    assert EnglishAnalyzer().analyze_spans(chunk) == _spans_of_one_word_the_general_way(chunk)


def test_seed_abstract_words_spans_equal_the_general_spans() -> None:
    analyzer = EnglishAnalyzer()  # one analyzer: cached chunk terms, as snippets use it
    chunks = {c for p in load_seed_papers() for c in f"{p.title} {p.abstract}".split()}
    for chunk in sorted(chunks):
        assert analyzer.analyze_spans(chunk) == _spans_of_one_word_the_general_way(chunk), chunk


def test_analyzer_shared_by_four_threads_gives_single_thread_terms() -> None:
    # max_cache=16: the cache is cleared while other threads read it (a KeyError before).
    texts = [" ".join(f"w{t}x{i} models{i % 7}" for i in range(40)) for t in range(400)]
    expected = [EnglishAnalyzer().analyze(text) for text in texts]
    shared = EnglishAnalyzer(max_cache=16)
    barrier = threading.Barrier(4)

    def run(_: int) -> bool:
        barrier.wait(timeout=10)
        return [shared.analyze(text) for text in texts] == expected

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(pool.map(run, range(4)))


def test_the_english_analyzer_names_its_language_and_version() -> None:
    english = EnglishAnalyzer()
    assert english.language == "en" and english.version == ANALYZER_VERSION
    assert english.analyze("Sparse models") == ["spars", "model"]


@FUZZ
@given(SNIPPET_TEXT)
def test_chunk_terms_are_analyze_word_by_word(text: str) -> None:
    folded, chunks, terms = ENGLISH.chunk_terms(text)
    assert len(folded) == len(text) and chunks == folded.split()
    assert [t for chunk in terms for t in chunk] == ENGLISH.analyze(text)


def test_cached_spans_equal_fresh_ones_and_stay_bounded() -> None:
    analyzer = EnglishAnalyzer(max_cache=50)
    words = ["state-of-the-art", "(GNNs),", "LLMs", "R$^3$", "naïve", "x", "models.)", ""]
    for word in words * 3:
        spans = analyzer.analyze_spans(word)
        assert spans == EnglishAnalyzer().analyze_spans(word)
        spans.append(("changed", 0, 0))  # the caller's list is its own
    assert analyzer.analyze_spans("state-of-the-art")[-1] != ("changed", 0, 0)
    for i in range(200):  # more distinct words than the cache holds
        assert analyzer.analyze_spans(f"graph{i}-net") == EnglishAnalyzer().analyze_spans(
            f"graph{i}-net"
        )
    assert len(analyzer._spans) <= 50
