"""The confidence calibration: fitted on the corpus's own probes, stored, keyed, and used.

On the real list sample (`tests/data/paperlists_sample/`), with a deterministic stand-in
model, so the fit runs in a second and no model is loaded.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from bot.answers import results
from bot.cli.search import result_json
from bot.corpus import Paper, load_corpus
from bot.search import EmbeddingJob, HybridRetriever, Index
from bot.search.cache import write_json
from bot.search.semantic.calibration import (
    CALIBRATIONS_FILE,
    IN_TOPIC_FLAGGED,
    Calibration,
    calibrate,
    calibrated,
    calibration_key,
    read_calibration,
    write_calibration,
)
from bot.search.semantic.embedding import embed_papers
from bot.search.semantic.probes import off_topic_questions, paper_probes
from testkit.embedders import WordHashEmbedder
from testkit.paths import TEST_DATA

SAMPLE = TEST_DATA / "paperlists_sample"


@pytest.fixture(scope="module")
def papers() -> tuple[Paper, ...]:
    return load_corpus(sorted(SAMPLE.glob("icml*.json"))).papers[:60]


@pytest.fixture(scope="module")
def index(papers: tuple[Paper, ...]) -> Index:
    return Index.build(papers)


def vectors_of(papers: tuple[Paper, ...], model: WordHashEmbedder, cache: Path) -> np.ndarray:
    vectors = embed_papers(model, papers, cache_dir=cache)
    assert vectors is not None
    return vectors


def test_probes_are_cut_from_the_paper_and_left_out_of_its_evidence(
    papers: tuple[Paper, ...],
) -> None:
    paper = next(p for p in papers if "We " in p.abstract)
    probes, evidence = paper_probes(paper, f"{paper.title}\n{paper.abstract}", lambda w: 5, 100)
    styles = {p.style for p in probes}
    assert {"title", "keyword", "sentence"} <= styles
    sentence = next(p.text for p in probes if p.style == "sentence")
    assert sentence in paper.abstract and sentence not in evidence
    assert paper.title not in evidence and evidence  # the rest of the abstract carries it
    assert all(p.evidence == evidence for p in probes)


def test_the_shipped_off_topic_questions_are_read() -> None:
    questions = off_topic_questions()
    assert len(questions) >= 40 and not any(q.startswith("#") for q in questions)


def test_the_cut_passes_the_corpus_s_own_titles_and_flags_off_topic_ones(
    index: Index, tmp_path: Path
) -> None:
    model = WordHashEmbedder()
    vectors = vectors_of(index.papers, model, tmp_path)
    calibration = calibrate(index, vectors, model)
    assert calibration is not None and calibration.probes >= 40
    hybrid = HybridRetriever(index, model)
    hybrid.attach_vectors(vectors, calibration)
    titles = np.mean([not results(hybrid, p.title).confident for p in index.papers])
    off = np.mean([not results(hybrid, q).confident for q in off_topic_questions()])
    # Titles asked verbatim match better than the held-out probes the cut was set on.
    assert titles <= IN_TOPIC_FLAGGED < off


def test_a_calibration_is_stored_and_read_back_not_fitted_again(
    index: Index, tmp_path: Path
) -> None:
    model = WordHashEmbedder()
    vectors = vectors_of(index.papers, model, tmp_path)
    first = calibrated(index, vectors, model, cache_dir=tmp_path)
    assert first is not None
    assert read_calibration(tmp_path, calibration_key(model.name, index.papers)) is not None
    before = model.calls
    again = calibrated(index, vectors, model, cache_dir=tmp_path)
    assert again == first and model.calls == before  # nothing embedded: read, not fitted


def test_a_changed_corpus_or_model_is_calibrated_again(index: Index, tmp_path: Path) -> None:
    model = WordHashEmbedder()
    key = calibration_key(model.name, index.papers)
    changed = (dataclasses.replace(index.papers[0], abstract="A different abstract."),)
    assert calibration_key(model.name, changed + tuple(index.papers[1:])) != key
    assert calibration_key("another-model", index.papers) != key
    vectors = vectors_of(index.papers, model, tmp_path)
    write_calibration(tmp_path, "someone-else", Calibration(1.0, 0.0, 0.0, probes=50))
    before = model.calls
    assert calibrated(index, vectors, model, cache_dir=tmp_path) is not None
    assert model.calls > before  # another key's entry was not taken for this corpus


def test_the_flag_uses_the_stored_cut_and_the_json_reports_it(index: Index, tmp_path: Path) -> None:
    model = WordHashEmbedder()
    vectors = vectors_of(index.papers, model, tmp_path)
    key = calibration_key(model.name, index.papers)
    strict = Calibration(weight=0.0, short_cut=99.0, long_cut=99.0, probes=50)
    write_calibration(tmp_path, key, strict)
    retriever = HybridRetriever(index, model)
    job = EmbeddingJob(retriever, model, cache_dir=tmp_path).start()
    job.done.wait()
    title = index.papers[3].title
    result = results(retriever, title, limit=3)
    assert result.hits and result.cut == 99.0 and result.margin is not None
    assert not result.confident  # no margin reaches the stored cut
    lenient = dataclasses.replace(strict, short_cut=-99.0, long_cut=-99.0)
    retriever.attach_vectors(vectors, lenient)
    result = results(retriever, title, limit=3)
    assert result.confident and result.cut == -99.0
    answer = result_json(result, semantic=True)
    assert answer["confident"] is True
    assert answer["cut"] == -99.0 and answer["margin"] == round(result.margin, 4)


def test_bm25_alone_reports_its_coverage_against_its_cut(index: Index) -> None:
    result = results(index, index.papers[5].title)
    assert result.margin == result.confidence and result.cut == 0.4
    assert result_json(results(index, "zzzzqqq"))["margin"] is None


@pytest.mark.parametrize("fields", [{"weight": "x"}, {"weight": 1.0}, {"probes": None}])
def test_a_damaged_stored_calibration_is_made_again(
    index: Index, tmp_path: Path, fields: dict
) -> None:
    model = WordHashEmbedder()
    vectors = vectors_of(index.papers, model, tmp_path)
    key = calibration_key(model.name, index.papers)
    write_json(tmp_path / CALIBRATIONS_FILE, {key: {"fields": fields, "when": 0.0}})
    assert read_calibration(tmp_path, key) is None
    made = calibrated(index, vectors, model, cache_dir=tmp_path)
    assert made is not None and made.probes >= 40
    assert read_calibration(tmp_path, key) == made  # the good one replaced it
