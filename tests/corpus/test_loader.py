"""Corpus loader: formats, markup cleaning, links, titles, ids, bad input, the real seeds."""

# Case tables read best one case per line, so long lines are allowed here.
# ruff: noqa: E501

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.corpus import (
    MAX_TITLE_CHARS,
    CorpusError,
    StrictCorpusError,
    clean_abstract,
    derive_title,
    is_tappable_id,
    load_corpus,
    parse_paper_command,
)
from testkit.paths import SEED_CORPUS

CORPUS_DIR = SEED_CORPUS

ABSTRACTS = [
    "We propose GraphFoo, a method for graph pruning that keeps spectral structure intact.",
    "Bandit feedback with delayed rewards is studied in adversarial environments with switching.",
    "We introduce Quantum Widget Networks (QWN), a family of circuits for molecule generation.",
    "Diffusion models for protein design are evaluated on binding affinity and novelty metrics.",
    "Federated optimisation under heavy-tailed noise converges at a rate we characterise fully.",
]


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` exactly (no newline translation)."""
    path.write_bytes(text.encode(encoding))
    return path


# --- markup -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(r"a \textbf{self-confirming loop} here", "a self-confirming loop here", id="textbf"),
        pytest.param(r"the \textit{out-of-distribution} (OOD)", "the out-of-distribution (OOD)", id="textit"),
        pytest.param(r"the variety of \emph{cutter operators}, and", "the variety of cutter operators, and", id="emph"),
        pytest.param(r"propose \texttt{Concept Concentration} (\texttt{COCA}).", "propose Concept Concentration (COCA).", id="texttt"),
        pytest.param(r"\textbf{\textit{Nested}} words", "Nested words", id="nested-commands"),
        pytest.param(r"at \href{https://github.com/a/B}{SeizureSuite}.", "at SeizureSuite.", id="href"),
        pytest.param(r"at: \url{https://github.com/tmlr-group/COCA}.", "at: https://github.com/tmlr-group/COCA.", id="url"),
        pytest.param("we propose **DRIVE** (Distributional)", "we propose DRIVE (Distributional)", id="md-bold"),
        pytest.param("identifying *activation subspace bottlenecks* in", "identifying activation subspace bottlenecks in", id="md-italic"),
        pytest.param("As a result,*SpecFlow* maintains", "As a result,SpecFlow maintains", id="md-italic-after-comma"),
        pytest.param("a *learner* infers an *agent*’s objective", "a learner infers an agent’s objective", id="md-italic-before-quote"),
        pytest.param("termed _KM-ARL and KM-ADD_, by", "termed KM-ARL and KM-ADD, by", id="md-underscore"),
        pytest.param("at [https://x.io/site/](https://x.io/site/).", "at https://x.io/site/.", id="md-link-url-text"),
        pytest.param("see [our site](https://x.io/a) now", "see our site now", id="md-link"),
        pytest.param("up to *$2.1\\times$*.", "up to 2.1×.", id="md-italic-around-math"),
        pytest.param("R$^3$-Refiner and Trap$^{2}$", "R³-Refiner and Trap²", id="superscript-digit"),
        pytest.param(r"to $\varepsilon$ accuracy", "to ε accuracy", id="varepsilon"),
        pytest.param(r"with $O(d^2)$ queries", "with O(d²) queries", id="big-o-square"),
        pytest.param(r"$\xi \in \mathbb{R}$", "ξ ∈ ℝ", id="in-mathbb"),
        pytest.param(r"$\xi^\star$ without", "ξ* without", id="star-superscript"),
        pytest.param(r"$R'(\lambda) \neq 0$", "R'(λ) ≠ 0", id="neq"),
        pytest.param(r"$||\nabla^{2}f(x)|| \le \ell\left(||\nabla f(x)||\right),$", "||∇²f(x)|| ≤ ℓ(||∇f(x)||),", id="nabla-le-left-right"),
        pytest.param(r"$\mathcal{O}(\sqrt{L} R / \sqrt{\varepsilon})$", "O(√L R / √ε)", id="mathcal-sqrt"),
        pytest.param(r"$\mathcal{O}(\sqrt{\ell(0)} R)$", "O(√(ℓ(0)) R)", id="sqrt-group"),
        pytest.param(r"$(L_{0},L_{1})$-smoothness", "(L₀,L₁)-smoothness", id="subscript-digits"),
        pytest.param(r"$r \ll d$", "r ≪ d", id="ll"),
        pytest.param(r"$O(d\log T)$ and $\exp(O(d\log d))$", "O(d log T) and exp(O(d log d))", id="log-exp"),
        pytest.param(r"$\Omega(d)$", "Ω(d)", id="capital-greek"),
        pytest.param(r"Pass@$k$ and", "Pass@k and", id="single-letter-math"),
        pytest.param(r"at $25\times$ the cost", "at 25× the cost", id="times-tight"),
        pytest.param(r"$a \times b$", "a × b", id="times-spaced"),
        pytest.param(r"$\phi_1,\dots,\phi_n$", "φ₁,…,φₙ", id="dots-subscripts"),
        pytest.param(r"$D^\mathtt{AD}(\phi_i\circ f)$", "D^AD(φᵢ ∘ f)", id="mathtt-superscript-circ"),
        pytest.param(r"$\mathcal{W}_\text{SW}$", "W_SW", id="text-subscript"),
        pytest.param(r"($\rho_{\text{noise}}$)", "(ρ_noise)", id="word-subscript"),
        pytest.param(r"$(K{+}1)$-way", "(K+1)-way", id="grouping-braces"),
        pytest.param(r"$O\left(T^{\max\\{\beta,1-\beta\\}}\right)$", "O(T^(max{β,1-β}))", id="escaped-set-braces"),
        pytest.param(r"$O\left(T^{\\{1-\beta\\}}\right)$", "O(T^(1-β))", id="set-braces-in-script"),
        pytest.param(r"$O( \log T )$", "O(log T)", id="log-spaces"),
        pytest.param(r"($\approx$ 28k hours)", "(≈ 28k hours)", id="approx"),
        pytest.param(r"by 6.2\% over", "by 6.2% over", id="escaped-percent"),
        pytest.param(r"$\frac{a}{b+c}$", "a/(b+c)", id="frac"),
        pytest.param(r"$\alpha \ge \beta \geq \gamma \infty$", "α ≥ β ≥ γ∞", id="greek-relations"),
        pytest.param("Dawid--Skene and A---B", "Dawid–Skene and A—B", id="tex-dashes"),
        pytest.param("plain text stays", "plain text stays", id="plain"),
        pytest.param("cost $5 only", "cost $5 only", id="lone-dollar"),
    ],
)  # fmt: skip
def test_clean_abstract_removes_markup(raw: str, expected: str) -> None:
    assert clean_abstract(raw)[0] == expected


@pytest.mark.parametrize(
    ("raw", "links"),
    [
        pytest.param("at https://github.com/a/NeuralFLoC.", ["https://github.com/a/NeuralFLoC"], id="trailing-period"),
        pytest.param("(code: https://github.com/d/STRIDE).", ["https://github.com/d/STRIDE"], id="trailing-paren-period"),
        pytest.param(r"\url{https://github.com/t/COCA}.", ["https://github.com/t/COCA"], id="url-command"),
        pytest.param(r"\href{https://github.com/L/Suite}{Suite}.", ["https://github.com/L/Suite"], id="href"),
        pytest.param("[https://p.io/b/](https://p.io/b/).", ["https://p.io/b/"], id="md-link-same-text"),
        pytest.param("at: https://anonymous.4open.science/r/OPIC-CFFE.", ["https://anonymous.4open.science/r/OPIC-CFFE"], id="colon-before"),
        pytest.param("see https://en.wikipedia.org/wiki/A_(b), then", ["https://en.wikipedia.org/wiki/A_(b)"], id="balanced-parens-kept"),
        pytest.param("x https://a.io/x; y https://a.io/x!", ["https://a.io/x"], id="deduplicated"),
        pytest.param("b https://b.io and a https://a.io", ["https://b.io", "https://a.io"], id="order-kept"),
        pytest.param("“https://q.io/x”, said", ["https://q.io/x"], id="closing-quote"),
        pytest.param("no links here.", [], id="none"),
    ],
)  # fmt: skip
def test_links_lose_sentence_punctuation(raw: str, links: list[str]) -> None:
    assert list(clean_abstract(raw)[1]) == links


def test_url_underscores_survive_markdown_cleaning() -> None:
    text, links = clean_abstract("code at https://x.io/a_b_c/d*e*f now")
    assert text == "code at https://x.io/a_b_c/d*e*f now"
    assert links == ("https://x.io/a_b_c/d*e*f",)


# --- titles -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        pytest.param("Old ideas. We introduce Arboreal Neural Networks (ArbNN), a neural-symbolic framework.", "ArbNN: Arboreal Neural Networks", id="long-short"),
        pytest.param("Context here. We propose DRIVE (Distributional Retrieval with Value Evaluation), a framework.", "DRIVE: Distributional Retrieval with Value Evaluation", id="short-long"),
        pytest.param("Context. We propose CoGeoAD, a unified framework that fuses color and geometry.", "CoGeoAD: A unified framework that fuses color and geometry", id="name-appositive"),
        pytest.param("Context. We propose SparseOpt — a sparsity-aware optimizer — to fix this.", "SparseOpt: A sparsity-aware optimizer", id="name-dash-appositive"),
        pytest.param("Context. We propose a new mechanism, called You-Rank-We-Rank (YRWR). It works.", "YRWR: You-Rank-We-Rank", id="called"),
        pytest.param("Context. We propose reinforcement learning with ensembled rewards (RLER), which works.", "RLER: Reinforcement learning with ensembled rewards", id="lowercase-acronym-fits"),
        pytest.param("Context. We introduce LOGIT-LINEAR SELECTION (LLS), a method.", "LLS: Logit-Linear Selection", id="shouting-title-cased"),
        pytest.param("Context. We propose Deep Trajectory Supervision, a framework. DTS works well.", "DTS: Deep Trajectory Supervision", id="initials-used-later"),
        pytest.param("Context. We introduce Random Process (RP) Flow, a flow-based framework.", "Random Process (RP) Flow: A flow-based framework", id="acronym-inside-name"),
    ],
)  # fmt: skip
def test_title_names_the_contribution(abstract: str, title: str) -> None:
    assert derive_title(abstract) == title


@pytest.mark.parametrize(
    "abstract",
    [
        pytest.param("Estimators matter. We propose a novel framework for estimating the average run length (ARL) under truncation.", id="generic-phrase"),
        pytest.param("We propose non-parametric estimators for the average run length (ARL) and delay.", id="acronym-not-the-contribution"),
        pytest.param("We study the microscopic dynamics of revision using ConceptARC, a 2D benchmark that exists.", id="existing-benchmark"),
    ],
)  # fmt: skip
def test_title_does_not_invent_a_name(abstract: str) -> None:
    title = derive_title(abstract)
    assert ":" not in title
    # a headline of the contribution, in the abstract's own words (no "We propose…")
    assert all(word.casefold() in abstract.casefold() for word in title.split())
    assert not title.startswith("We ") and not title.endswith("…")


def test_title_falls_back_to_contribution_sentence() -> None:
    abstract = (
        "Background sentence about deep learning that says little. In this work, we study "
        "dataset valuation as a subset selection problem during post-training. More text."
    )
    assert derive_title(abstract) == (
        "Dataset valuation as a subset selection problem during post-training"
    )


def test_title_is_a_headline_of_the_first_sentence_otherwise() -> None:
    abstract = " ".join(["Pass@k and other methods of scaling inference compute can improve"] * 4)
    title = derive_title(abstract + ". Second sentence.")
    assert len(title) <= MAX_TITLE_CHARS == 90
    assert not title.endswith("…")  # never a sentence cut with "…"
    assert abstract.startswith(title)


def test_sentences_do_not_split_at_et_al() -> None:
    abstract = "Jung et al. (2025) introduce a hypothesis testing framework for agreement. Next."
    assert derive_title(abstract) == (
        "Jung et al. (2025) introduce a hypothesis testing framework for agreement"
    )


def test_source_title_is_kept_and_cleaned(tmp_path: Path) -> None:
    record = {"abstract": ABSTRACTS[0], "title": r"\textbf{GraphFoo}: pruning with $\ell_1$"}
    write(tmp_path / "a.jsonl", json.dumps(record) + "\n")
    assert load_corpus([tmp_path]).papers[0].title == "GraphFoo: pruning with ℓ₁"


# --- formats ----------------------------------------------------------------------------------


def seed_text(abstracts: list[str], newline: str = "\n", header: bool = True) -> str:
    head = f"ICML 2026 论文列表{newline}{newline}" if header else ""
    return head + (newline * 2).join(abstracts) + newline


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(seed_text(ABSTRACTS), id="seed"),
        pytest.param(seed_text(ABSTRACTS, newline="\r\n"), id="crlf"),
        pytest.param("\ufeff" + seed_text(ABSTRACTS), id="bom"),
        pytest.param(seed_text(ABSTRACTS, header=False), id="no-header"),
        pytest.param(seed_text([a + "   \t" for a in ABSTRACTS]).replace("\n\n", "\n  \n\n\n"), id="trailing-spaces-many-blank-lines"),
    ],
)  # fmt: skip
def test_seed_text_variants_read_the_same(tmp_path: Path, text: str) -> None:
    write(tmp_path / "seed.txt", text)
    papers = load_corpus([tmp_path / "seed.txt"]).papers
    assert [p.abstract for p in papers] == ABSTRACTS


def test_hard_wrapped_abstract_is_one_paper(tmp_path: Path) -> None:
    write(
        tmp_path / "s.txt", "Header\n\nFirst line of\nan abstract that wraps.\n\nSecond one here.\n"
    )
    papers = load_corpus([tmp_path]).papers
    assert [p.abstract for p in papers] == [
        "First line of an abstract that wraps.",
        "Second one here.",
    ]
    assert [p.line for p in papers] == [3, 6]


def records(n: int = 5) -> list[dict[str, object]]:
    return [
        {"id": f"p{i}", "title": f"Title {i}", "abstract": a, "authors": "A. B", "url": f"https://x.io/{i}"}
        for i, a in enumerate(ABSTRACTS[:n])
    ]  # fmt: skip


def write_format(path: Path, rows: list[dict[str, object]]) -> None:
    if path.suffix == ".jsonl":
        write(path, "".join(json.dumps(row) + "\n" for row in rows))
    elif path.suffix == ".json":
        write(path, json.dumps(rows, indent=2))
    else:
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=["id", "title", "abstract", "authors", "url"])
        writer.writeheader()
        writer.writerows(rows)
        write(path, buffer.getvalue())


@pytest.mark.parametrize("name", ["c.jsonl", "c.json", "c.csv"])
def test_structured_formats_keep_fields(tmp_path: Path, name: str) -> None:
    write_format(tmp_path / name, records())
    papers = load_corpus([tmp_path / name]).papers
    assert [p.id for p in papers] == ["p0", "p1", "p2", "p3", "p4"]
    assert papers[2].title == "Title 2"
    assert papers[2].abstract == ABSTRACTS[2]
    assert papers[2].authors == ("A. B",)
    assert papers[2].links == (("Page", "https://x.io/2"),)
    assert papers[2].source == str(tmp_path / name)


@pytest.mark.parametrize(
    ("name", "lines"),
    [
        pytest.param("c.jsonl", [1, 2, 3, 4, 5], id="jsonl"),
        pytest.param("c.json", [2, 9, 16, 23, 30], id="json"),
        pytest.param("c.csv", [2, 3, 4, 5, 6], id="csv"),
    ],
)
def test_records_know_their_line(tmp_path: Path, name: str, lines: list[int]) -> None:
    write_format(tmp_path / name, records())
    assert [p.line for p in load_corpus([tmp_path / name]).papers] == lines


def test_csv_multiline_field_starts_at_its_record(tmp_path: Path) -> None:
    write(tmp_path / "c.csv", 'abstract,title\n"two\nlines here",T\nsecond abstract,U\n')
    papers = load_corpus([tmp_path]).papers
    assert [(p.line, p.abstract) for p in papers] == [(2, "two lines here"), (4, "second abstract")]


def test_authors_list_is_kept_name_by_name(tmp_path: Path) -> None:
    write(tmp_path / "a.jsonl", json.dumps({"abstract": "x y z", "authors": ["A", "B"]}) + "\n")
    assert load_corpus([tmp_path]).papers[0].authors == ("A", "B")


def test_directory_reads_supported_files_sorted_and_reports_others(tmp_path: Path) -> None:
    write(tmp_path / "b.txt", seed_text(ABSTRACTS[2:3]))
    write(tmp_path / "a.jsonl", json.dumps({"abstract": ABSTRACTS[0]}) + "\n")
    write(tmp_path / "c.csv", f"abstract\n{ABSTRACTS[1]}\n")
    write(tmp_path / "notes.pdf", "binary")
    report = load_corpus([tmp_path])
    assert [p.abstract for p in report.papers] == [ABSTRACTS[0], ABSTRACTS[2], ABSTRACTS[1]]
    assert [Path(s).name for s in report.sources] == ["a.jsonl", "b.txt", "c.csv"]
    assert any("notes.pdf" in line for line in report.skipped)


# --- ids --------------------------------------------------------------------------------------


def test_papers_without_an_id_get_short_tappable_content_ids(tmp_path: Path) -> None:
    write(tmp_path / "s.txt", seed_text(ABSTRACTS))
    ids = [p.id for p in load_corpus([tmp_path]).papers]
    assert all(re.fullmatch(r"[a-z2-7]{8}", paper_id) for paper_id in ids)
    assert len(set(ids)) == len(ABSTRACTS)


def test_a_source_id_is_kept_and_content_ids_do_not_depend_on_it(tmp_path: Path) -> None:
    rows = [{"abstract": ABSTRACTS[0], "id": 2}] + [{"abstract": a} for a in ABSTRACTS[1:4]]
    write_format(tmp_path / "c.jsonl", rows)
    with_id = [p.id for p in load_corpus([tmp_path]).papers]
    write_format(tmp_path / "c.jsonl", rows[1:])
    assert with_id[0] == "2" and with_id[1:] == [p.id for p in load_corpus([tmp_path]).papers]


def test_inserting_a_paper_at_the_top_keeps_every_other_id(tmp_path: Path) -> None:
    write(tmp_path / "s.txt", seed_text(ABSTRACTS[1:]))
    before = {p.abstract: p.id for p in load_corpus([tmp_path]).papers}
    write(tmp_path / "s.txt", seed_text(ABSTRACTS))
    after = {p.abstract: p.id for p in load_corpus([tmp_path]).papers}
    assert len(after) == len(before) + 1
    assert {abstract: after[abstract] for abstract in before} == before


def test_ids_are_stable_across_rereads(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", seed_text(ABSTRACTS[:3]))
    write(tmp_path / "b.txt", seed_text(ABSTRACTS[3:]))
    first = [(p.id, p.abstract) for p in load_corpus([tmp_path]).papers]
    second = [(p.id, p.abstract) for p in load_corpus([tmp_path]).papers]
    assert first == second


def test_a_repeated_source_id_keeps_the_first_and_lengthens_the_later(tmp_path: Path) -> None:
    rows = [{"abstract": ABSTRACTS[0], "id": "x"}, {"abstract": ABSTRACTS[1], "id": "x"}]
    write_format(tmp_path / "c.jsonl", rows)
    first, second = load_corpus([tmp_path]).papers
    assert first.id == "x" and second.id.startswith("x_") and is_tappable_id(second.id)


@pytest.mark.parametrize(
    ("paper_id", "safe"),
    [
        ("12", True),
        ("p_3", True),
        ("2401.01234", False),
        ("a-b", False),
        ("", False),
        ("x" * 33, False),
        pytest.param("x" * 26, True, id="fits-after-paper_"),
        pytest.param("x" * 27, False, id="too-long-after-paper_"),
    ],
)
def test_is_tappable_id(paper_id: str, safe: bool) -> None:
    assert is_tappable_id(paper_id) is safe


@pytest.mark.parametrize(
    ("text", "paper_id"),
    [
        pytest.param("/paper_12", "12", id="plain"),
        pytest.param("/paper_p_3@IcmlBot", "p_3", id="addressed"),
        pytest.param("/paper_12 and more", "12", id="then-words"),
        pytest.param("/paper_" + "x" * 26, "x" * 26, id="longest"),
        pytest.param("/paper_" + "x" * 27, None, id="too-long"),
        pytest.param("/paper_", None, id="no-id"),
        pytest.param("/paper_a-b", None, id="not-command-safe"),
        pytest.param("/papers_12", None, id="other-command"),
    ],
)
def test_paper_command_gives_its_id(text: str, paper_id: str | None) -> None:
    parsed = parse_paper_command(text)
    assert (parsed[0] if parsed else None) == paper_id


# --- bad input --------------------------------------------------------------------------------


def test_duplicate_abstracts_are_loaded_once_and_reported(tmp_path: Path) -> None:
    write(tmp_path / "s.txt", seed_text([ABSTRACTS[0], ABSTRACTS[1], ABSTRACTS[0].upper()]))
    report = load_corpus([tmp_path])
    assert [p.abstract for p in report.papers] == ABSTRACTS[:2]
    assert len(report.skipped) == 1
    assert "s.txt:7" in report.skipped[0] and "duplicate" in report.skipped[0]


@pytest.mark.parametrize(
    ("name", "content", "line", "reason"),
    [
        pytest.param("bad.txt", b"Header\n\nok abstract\n\nbad \xff byte\n", 5, "UTF-8", id="undecodable"),
        pytest.param("e.txt", b"", 1, "empty", id="empty-text"),
        pytest.param("h.txt", b"ICML 2026\n\n", 1, "no abstracts", id="header-only"),
        pytest.param("e.jsonl", b"\n\n", 1, "empty", id="empty-jsonl"),
        pytest.param("m.json", b'[\n  {"abstract": "a b"},\n  {"abstract": "c d",,}\n]', 3, "malformed JSON", id="malformed-json"),
        pytest.param("o.json", b'{"meta": {"count": 0}, "group_by": []}', 1, "a JSON object with keys meta, group_by \u2014 no list of records", id="json-object-without-records"),
        pytest.param("e.json", b"[]", 1, "empty", id="json-empty-array"),
        pytest.param("h.csv", b"name,url\nt,u\n", 1, "columns found: 'name', 'url'", id="csv-no-column"),
        pytest.param("e.csv", b"abstract\n", 1, "empty", id="csv-header-only"),
        pytest.param("w.jsonl", b'{"abstract": "a b", "title": {"x": 1}}\n', 1, "'title'", id="only-record-bad"),
    ],
)  # fmt: skip
def test_bad_file_names_file_and_line(
    tmp_path: Path, name: str, content: bytes, line: int, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(CorpusError) as info:
        load_corpus([path])
    assert info.value.path == str(path)
    assert info.value.line == line
    assert reason in info.value.reason


@pytest.mark.parametrize(
    ("name", "content", "line", "reason"),
    [
        pytest.param("m.jsonl", b'{"abstract": "a b"}\n{"abstract": \n', 2, "malformed JSON", id="malformed-jsonl"),
        pytest.param("n.jsonl", b'{"abstract": "a b"}\n{"authors": "t"}\n', 2, "no title and no abstract", id="jsonl-no-text"),
        pytest.param("s.jsonl", b'{"abstract": "a b"}\n["x"]\n', 2, "JSON object", id="jsonl-not-object"),
        pytest.param("w.jsonl", b'{"abstract": "a b"}\n{"abstract": "c", "title": {"x": 1}}\n', 2, "'title'", id="jsonl-bad-field"),
        pytest.param("n.json", b'[\n  {"abstract": "a b"},\n  {"abstract": ""}\n]', 3, "no title and no abstract", id="json-empty-abstract"),
        pytest.param("n.csv", b"abstract,title,url\na b,t,\n,,https://x.io\n", 3, "no title and no abstract", id="csv-no-text"),
        pytest.param("x.csv", b"abstract\n\"a b\"\n\"c d\",extra\n", 3, "2 cells, the header has 1", id="csv-extra-field"),
    ],
)  # fmt: skip
def test_bad_record_is_skipped_naming_file_line_and_reason(
    tmp_path: Path, name: str, content: bytes, line: int, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    report = load_corpus([path])
    assert len(report.papers) == 1 and report.bad_records == 1
    [skipped] = report.skipped
    assert skipped.startswith(f"{path}:{line}: ") and reason in skipped
    assert report.summary() == "1 paper from 1 file; 1 skipped (1 bad record)"
    with pytest.raises(StrictCorpusError) as info:
        load_corpus([path], strict=True)
    assert info.value.problems == (skipped,)
    assert skipped in str(info.value)


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no such file"):
        load_corpus([tmp_path / "nope"])


def test_unsupported_file_given_directly_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="unsupported file type"):
        load_corpus([write(tmp_path / "x.pdf", "x")])


def test_empty_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no corpus files"):
        load_corpus([tmp_path])


# --- the real corpus --------------------------------------------------------------------------

RAW_MARKUP = re.compile(
    r"\$|\\[A-Za-z]|\\|\*\*|\]\(|\{\}|(?<![\w*])\*\w[^*]*\w\*(?![\w*])|(?<!\w)_\w[^_]*_(?!\w)"
)


@pytest.fixture(scope="module")
def seed_report():
    return load_corpus([CORPUS_DIR])


def test_real_corpus_has_57_papers_and_nothing_skipped(seed_report) -> None:
    assert len(seed_report.papers) == 57
    assert len(seed_report.sources) == 3
    assert seed_report.skipped == ()
    assert len({p.id for p in seed_report.papers}) == 57


def test_real_corpus_has_no_raw_markup(seed_report) -> None:
    leftovers = [
        (p.id, field, match.group(0))
        for p in seed_report.papers
        for field, text in (("title", p.title), ("abstract", p.abstract))
        for match in RAW_MARKUP.finditer(text)
    ]
    assert leftovers == []


def test_real_corpus_braces_only_where_the_source_escaped_them(seed_report) -> None:
    for paper in seed_report.papers:
        if "{" in paper.abstract:
            raw = Path(paper.source).read_text(encoding="utf-8").splitlines()[paper.line - 1]
            assert "\\{" in raw, paper.id


def test_real_corpus_titles_are_short_and_mostly_named(seed_report) -> None:
    titles = [p.title for p in seed_report.papers]
    assert all(0 < len(t) <= MAX_TITLE_CHARS == 90 for t in titles)
    assert not any(t.endswith("…") for t in titles)
    named = [t for t in titles if re.match(r"^[^\s:]+(?: [^\s:]+){0,5}: ", t)]
    assert len(named) >= 30  # about 60% of the seed abstracts name their method
    assert "ArbNN: Arboreal Neural Networks" in titles
    assert "R³-Bench: Benchmark of over 600 expert-annotated instances" in titles


def test_real_corpus_links(seed_report) -> None:
    links = {p.id: p.links for p in seed_report.papers if p.links}
    assert len(links) == 13
    every = [url for pairs in links.values() for _label, url in pairs]
    assert "https://github.com/tmlr-group/COCA" in every
    assert "https://github.com/daiheng-zhang/STRIDE" in every
    assert "https://prithvitarale.github.io/biopm-site/" in every
    assert all(not url.endswith((".", ")", "}", ",")) for url in every)


def test_real_corpus_math_is_readable(seed_report) -> None:
    text = " ".join(p.abstract for p in seed_report.papers)
    for readable in ("R³-Refiner", "ε accuracy", "O(d²)", "ξ ∈ ℝ", "Trap²", "(L₀,L₁)-smoothness"):
        assert readable in text


@pytest.mark.parametrize(
    ("name", "content"),
    [
        pytest.param("c.txt", b"\x00\n\x00", id="text-block-of-nul"),
        pytest.param("c.jsonl", b'{"abstract": "\\u0000\\u0001"}\n', id="jsonl-controls-only"),
    ],
)
def test_abstract_of_only_control_characters_is_an_error(
    tmp_path: Path, name: str, content: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(CorpusError, match="no title and no abstract") as raised:
        load_corpus([path])
    assert raised.value.path == str(path)
