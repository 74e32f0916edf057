"""Command line: the --json contract, --queries, readable output, exit codes, lazy wiring."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from bot import answers, cli, loading
from bot.cli.console import styled
from bot.cli.search import json_line
from bot.config import load_settings
from bot.corpus import Paper
from bot.render import Doc
from bot.render.console import ANSI_MARKS, PLAIN_MARKS, to_console
from bot.render.paper import snippet_block
from bot.search import Hit
from bot.search.snippets.sentences import Snippet
from testkit.devset import load_seed_papers
from testkit.process import run_bot

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULT_KEYS = {
    *("id", "title", "score", "snippet", "abstract", "links", "authors", "title_derived"),
    *("year", "venue", "status", "presentations", "institutions"),
}


def search_json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict]:
    """Run `search --json ARGV` in-process; the parsed objects, one per stdout line."""
    assert cli.main(["search", "--json", *argv]) == 0
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines()]


def test_a_json_line_is_one_line_that_reads_back_and_keeps_its_script() -> None:
    value = {"query": "图神经网络\nover-smoothing", "score": 12.3456, "year": None, "ok": True}
    line = json_line(value)
    assert "\n" not in line and "图神经网络" in line  # readable, not \\u-escaped
    assert json.loads(line) == value


def test_a_json_line_with_broken_unicode_is_written_escaped_not_a_traceback() -> None:
    value = {"title": "half a pair \ud83d here", "authors": ["Ada"]}
    line = json_line(value)
    assert "\\ud83d" in line and line.isascii()
    assert json.loads(line) == value


def test_json_is_exactly_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    [answer] = search_json(capsys, "--limit", "3", "arboreal neural networks for tabular data")
    assert set(answer) == {"query", "confident", "margin", "cut", "semantic", "results"}
    assert answer["query"] == "arboreal neural networks for tabular data"
    assert answer["confident"] is True
    assert answer["margin"] >= answer["cut"] == 0.4  # BM25 alone: coverage against its cut
    assert answer["semantic"] is False  # SEMANTIC=off: BM25 alone
    assert 1 <= len(answer["results"]) <= 3
    for result in answer["results"]:
        assert set(result) == RESULT_KEYS
        assert isinstance(result["id"], str) and isinstance(result["title"], str)
        assert isinstance(result["score"], float)
        assert isinstance(result["snippet"], str) and isinstance(result["abstract"], str)
        assert isinstance(result["links"], list)
        assert result["authors"] == []  # the seed corpus names no authors
        assert result["title_derived"] is True  # nor titles: each is derived, and says so
    assert answer["results"][0]["title"] == "ArbNN: Arboreal Neural Networks"


def test_json_results_carry_plain_text_and_links(capsys: pytest.CaptureFixture[str]) -> None:
    [answer] = search_json(capsys, "--limit", "1", "seizure semiology videos benchmark")
    top = answer["results"][0]
    assert top["links"] == ["https://github.com/LinaZhangUCLA/SeizureSemiologySuite"]
    assert "\\href" not in top["abstract"] and "$" not in top["abstract"]
    assert top["snippet"] and top["snippet"].replace("…", "").strip() in top["abstract"]
    scores = [r["score"] for r in answer["results"]]
    assert scores == sorted(scores, reverse=True)


def test_off_topic_query_is_not_confident(capsys: pytest.CaptureFixture[str]) -> None:
    [answer] = search_json(capsys, "best recipe for lasagna with spinach")
    assert answer["confident"] is False


@pytest.mark.slow
def test_a_chinese_question_is_answered_by_bm25_alone_through_its_gloss(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # SEMANTIC=off: no model reads it, but its CC-CEDICT gloss ("knowledge distill") matches.
    [answer] = search_json(capsys, "--limit", "3", "知识蒸馏")
    assert answer["semantic"] is False and answer["query"] == "知识蒸馏"
    assert answer["results"] and "distillation" in answer["results"][0]["snippet"].lower()


def test_queries_file_gives_one_object_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "q.txt"
    queries.write_text("sponge tool attack on agents\n\n  \nshapley values on graphs\n🙂\n")
    answers = search_json(capsys, "--limit", "2", "--queries", str(queries))
    assert [a["query"] for a in answers] == [
        "sponge tool attack on agents",
        "shapley values on graphs",
        "🙂",
    ]
    assert answers[0]["results"][0]["title"] == "STA: Sponge Tool Attack"
    assert answers[2]["results"] == [] or answers[2]["confident"] is False


def test_queries_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("tree structured lora aggregation\n"))
    [answer] = search_json(capsys, "--limit", "1", "--queries", "-")
    assert answer["results"][0]["title"].startswith("FedTreeLoRA")


def test_readable_output_shows_title_id_and_marks_but_no_score(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["search", "--limit", "1", "arboreal neural networks"]) == 0
    out = capsys.readouterr().out
    assert "1. ArbNN: Arboreal Neural Networks" in out
    assert "id 3rmh7qdh" in out
    assert "score" not in out  # a fused rank score means nothing to a reader
    assert "«Arboreal Neural Networks»" in out  # not a TTY: guillemets, no ANSI codes
    assert "\x1b[" not in out


def test_readable_output_says_when_nothing_matched_well(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["search", "quantum chromodynamics lattice gluon"]) == 0
    out = capsys.readouterr().out
    assert "The closest matches (none is a clear match)" in out or "No papers matched" in out


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_is_styled_unless_no_color_is_set() -> None:
    assert styled(FakeTty(), {}) and styled(FakeTty(), {"NO_COLOR": ""})
    assert not styled(FakeTty(), {"NO_COLOR": "1"})
    assert not styled(io.StringIO(), {})  # a pipe or a file gets «guillemets»
    assert ANSI_MARKS == ("\x1b[1m", "\x1b[0m") and PLAIN_MARKS == ("«", "»")


@pytest.mark.parametrize(
    ("marks", "expected"),
    [
        pytest.param(((0, 3), (4, 7)), "[one two] three", id="adjacent-merged"),
        pytest.param(((8, 13),), "one two [three]", id="single"),
        # One rule with the bot (bot.textutil.merge_marks): overlaps merge, out-of-range is clipped.
        pytest.param(((0, 3), (2, 5), (8, 99)), "[one t]wo [three]", id="overlap-and-out-of-range"),
        pytest.param((), "one two three", id="none"),
    ],
)
def test_marks_become_emphasis(marks: tuple[tuple[int, int], ...], expected: str) -> None:
    paper = Paper(id="1", title="t", abstract="one two three")
    hit = Hit(paper=paper, score=1.0, snippet=Snippet(text="one two three", marks=marks))
    assert to_console(Doc((snippet_block(hit),)), marks=("[", "]")) == expected


def test_corpus_option_reads_another_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"id": "alpha_1", "title": "Gravel roads", "abstract": "Gravel roads erode under rain."},
        {"id": "beta_2", "title": "Orchids", "abstract": "Orchids bloom in humid forests."},
        {"id": "gamma_3", "title": "Comets", "abstract": "Comets shed dust near the sun."},
        {"id": "delta_4", "title": "Bees", "abstract": "Bees dance to share food sites."},
        {"id": "eps_5", "title": "Tides", "abstract": "Tides follow the moon's pull."},
    ]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(row) + "\n" for row in rows))
    [answer] = search_json(capsys, "--corpus", str(corpus), "orchids humid forests")
    assert answer["results"][0]["id"] == "beta_2"


def test_corpus_env_var_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CORPUS", str(tmp_path / "missing"))
    assert cli.main(["search", "anything"]) == 2
    assert "missing: no such file or directory" in capsys.readouterr().err


def test_default_corpus_is_the_bundled_programme(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CORPUS", raising=False)
    paths = loading.corpus_paths(load_settings(), None)
    assert paths == [REPO_ROOT / "corpus" / "icml-2026"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["search", "--corpus", "/nope", "x"], "no such file", id="missing-corpus"),
        pytest.param(["search"], "missing QUERY", id="no-query"),
        pytest.param(["search", "--queries", "/nope.txt"], "cannot read", id="missing-queries"),
        pytest.param(["search", "--queries", "-", "x"], "not both", id="query-and-queries"),
    ],
)  # fmt: skip
def test_input_errors_exit_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""


def test_undecodable_corpus_file_exits_2_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Header\n\nfine abstract\n\nbroken \xff\n")
    assert cli.main(["search", "--corpus", str(bad), "x"]) == 2
    assert f"{bad}:5: not valid UTF-8" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["search", "--limit", "0", "x"], id="limit-zero"),
        pytest.param(["search", "--limit", "many", "x"], id="limit-not-a-number"),
        pytest.param(["frobnicate"], id="unknown-command"),
        pytest.param(["search", "--jsn", "x"], id="unknown-option"),
    ],
)
def test_bad_arguments_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
    assert "usage:" in capsys.readouterr().err


@pytest.fixture
def fake_app(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """Replace bot.tg.serve with a module whose `run` records its calls."""
    calls: list[dict[str, object]] = []
    module = types.ModuleType("bot.tg.serve")

    def run(*, webhook: bool = False) -> int:
        calls.append({"webhook": webhook})
        return 0

    module.run = run  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bot.tg.serve", module)
    return calls


@pytest.mark.parametrize(
    ("argv", "webhook"),
    [pytest.param([], False, id="no-command"), pytest.param(["run", "--webhook"], True, id="run")],
)
def test_run_starts_the_bot(fake_app: list[dict[str, object]], argv: list[str], webhook: bool):
    assert cli.main(argv) == 0
    assert fake_app == [{"webhook": webhook}]


def test_console_gets_the_corpus_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []
    module = types.ModuleType("bot.cli.console")
    module.run_console = lambda paths, lang=None: seen.append(paths) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bot.cli.console", module)
    assert cli.main(["console", "--corpus", "a.jsonl", "--corpus", "b"]) == 0
    assert cli.main(["console"]) == 0
    assert seen == [["a.jsonl", "b"], None]


@pytest.mark.parametrize(
    ("code", "lang"),
    [
        pytest.param("zh", "zh_Hans", id="zh"),
        pytest.param("zh-TW", "zh_Hant", id="zh-TW"),
        pytest.param("zh_CN", "zh_Hans", id="zh_CN"),
        pytest.param("zh-hant", "zh_Hant", id="zh-hant"),
        pytest.param("zh_hans", "zh_Hans", id="catalogue-name-any-case"),
        pytest.param("en-GB", "en", id="en-GB"),
    ],
)
def test_console_lang_accepts_what_telegrams_language_code_does(
    monkeypatch: pytest.MonkeyPatch, code: str, lang: str
) -> None:
    seen: list[object] = []
    module = types.ModuleType("bot.cli.console")
    module.run_console = lambda paths, lang=None: seen.append(lang) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bot.cli.console", module)
    assert cli.main(["console", "--lang", code]) == 0
    assert seen == [lang]


def test_console_lang_refuses_a_language_it_does_not_speak(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        cli.main(["console", "--lang", "fr"])
    assert "unknown language 'fr'" in capsys.readouterr().err


@pytest.mark.slow
def test_python_m_bot_search_runs_without_telegram() -> None:
    code = (
        "import sys; from bot.cli import main; rc = main(['search', '--json', 'attention']); "
        "assert 'telegram' not in sys.modules, 'search imported telegram'; raise SystemExit(rc)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"]


@pytest.mark.slow
def test_python_m_bot_exit_code_and_stderr_for_missing_corpus() -> None:
    done = run_bot("search", "--corpus", "/no/such/corpus", "graphs")
    assert done.returncode == 2
    assert "/no/such/corpus: no such file or directory" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_search_reads_corpus_from_dotenv_like_console_and_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"id": "alpha_1", "title": "Gravel roads", "abstract": "Gravel roads erode under rain."},
        {"id": "beta_2", "title": "Orchids", "abstract": "Orchids bloom in humid forests."},
        {"id": "gamma_3", "title": "Comets", "abstract": "Comets shed dust near the sun."},
        {"id": "delta_4", "title": "Bees", "abstract": "Bees dance to share food sites."},
        {"id": "eps_5", "title": "Tides", "abstract": "Tides follow the moon's pull."},
    ]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(row) + "\n" for row in rows))
    (tmp_path / ".env").write_text(f"CORPUS={corpus}\n")
    monkeypatch.delenv("CORPUS", raising=False)
    monkeypatch.chdir(tmp_path)
    [answer] = search_json(capsys, "orchids humid forests")
    assert answer["results"][0]["id"] == "beta_2"


def test_search_reports_a_bad_setting_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RESULTS_PER_PAGE", "many")
    assert cli.main(["search", "anything"]) == 2
    err = capsys.readouterr().err
    assert "RESULTS_PER_PAGE" in err and "Traceback" not in err


def test_run_leaves_tornado_to_ptb(fake_app: list[dict[str, object]]) -> None:
    before = sys.modules.get("tornado", "absent")
    assert cli.main([]) == 0
    assert sys.modules.get("tornado", "absent") is before  # no sys.modules patching


@pytest.mark.slow
def test_polling_does_not_import_the_webhook_server() -> None:
    code = "import sys, bot.tg.serve; assert 'bot.tg.webhook' not in sys.modules"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_a_bad_console_option_prints_the_console_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["console", "--bogus"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m bot console")
    assert "unrecognized arguments: --bogus" in err


def test_each_query_argument_is_its_own_query(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["search", "--json", "--limit", "1", "graph mixup", "sponge tool attack"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["query"] for line in lines] == ["graph mixup", "sponge tool attack"]


# ------------------------------------------------------------------ typos (SEMANTIC=on)

SEIZURE = "Seizure-Semiology-Suite"  # abstract text of the seed paper on seizures


@pytest.fixture(scope="module")
def typo_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six seed papers, one on seizures, as JSONL (embedded in seconds)."""
    seeds = load_seed_papers()
    papers = dict.fromkeys([*seeds[:5], *(p for p in seeds if SEIZURE in p.abstract)])
    path = tmp_path_factory.mktemp("typos") / "papers.jsonl"
    records = [{"id": p.id, "title": p.title, "abstract": p.abstract} for p in papers]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def semantic_on(monkeypatch: pytest.MonkeyPatch, typo_corpus: Path) -> list[str]:
    """SEMANTIC=on, the vectors prepared next to the corpus (once: later calls find them)."""
    monkeypatch.setenv("SEMANTIC", "on")
    monkeypatch.setenv("INDEX_CACHE_DIR", str(typo_corpus.parent / "cache"))
    assert cli.main(["prepare", "--corpus", str(typo_corpus)]) == 0
    return ["search", "--corpus", str(typo_corpus), "--limit", "1"]


@pytest.mark.slow
@pytest.mark.semantic
def test_readable_output_says_what_was_searched_after_a_typo(
    semantic_on: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([*semantic_on, "siezure detection"]) == 0
    header, first, *_ = capsys.readouterr().out.split("\n\n")
    lines = header.splitlines()  # confident or not (six papers): the correction is said last
    assert lines[0] == "Query: siezure detection"
    assert lines[-1] == "Showing results for seizure detection"
    assert first.startswith("1. S³: Seizure-Semiology-Suite\n")


@pytest.mark.slow
@pytest.mark.semantic
def test_json_carries_the_corrected_query_only_after_a_typo(
    semantic_on: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([*semantic_on, "--json", "siezure detection", "seizure detection"]) == 0
    typo, spelt = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert typo["corrected"] == "seizure detection"
    assert typo["results"][0]["title"] == "S³: Seizure-Semiology-Suite"
    assert set(spelt) == {"query", "confident", "margin", "cut", "semantic", "results"}
    assert typo["semantic"] is spelt["semantic"] is True  # prepared: fused
    assert spelt["confident"] is (spelt["margin"] >= spelt["cut"])  # the flag is the margin


@pytest.mark.slow
@pytest.mark.semantic
def test_piped_console_answers_as_the_bot_once_ready(
    semantic_on: list[str], typo_corpus: Path
) -> None:
    """Questions piped into the console wait for cached vectors: typos corrected, Chinese
    read."""
    from bot.cli.console import run_console

    stdout = io.StringIO()
    stdin = io.StringIO("siezure detection\n癫痫发作 症状 分类\n")
    assert run_console([typo_corpus], stdin=stdin, stdout=stdout, lang="en") == 0
    out = stdout.getvalue()
    assert "Showing results for seizure detection" in out
    chinese = out.split("癫痫发作 症状 分类", 1)[1]
    assert "please ask in English" not in chinese
    assert "1. S³: Seizure-Semiology-Suite" in chinese


def test_search_serves_the_fetched_list_by_default(tmp_path, monkeypatch, capsys) -> None:
    from bot.config import PROGRAMME_FOLDER
    from testkit.week import load_week

    monkeypatch.delenv("CORPUS", raising=False)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("INDEX_CACHE_DIR", str(tmp_path / "cache"))
    load_week(tmp_path / PROGRAMME_FOLDER)  # as `fetch icml 2026` saves it
    assert cli.main(["search", "--json", "speculative decoding"]) == 0
    [first, *_] = json.loads(capsys.readouterr().out)["results"]
    assert first["title"] == "Speculative decoding for long contexts"
    settings = load_settings()
    papers = loading.load_index(settings.corpus)[1].papers
    line = answers.serving(settings.corpus, papers)
    assert line == f"13 ICML 2026 papers from {tmp_path / PROGRAMME_FOLDER}"
