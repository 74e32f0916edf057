"""The test tiers hold (tests/README.md): the slow tier is tests/process/ and marked tests.

A file that starts bot processes lives in tests/process/ or marks its tests `slow`; one that
loads the model marks them `semantic`; every `semantic` test is also `slow`; and no test
module imports another (shared helpers live in testkit/).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PROCESS = TESTS / "process"
# Text that means a test file starts a bot process, or loads the embedding model.
STARTS_PROCESSES = re.compile(r'bot_env\(|"-m", "bot"|Popen\(|start_bot\(|run_bot\(')
LOADS_MODEL = re.compile(r'load_default_embedder\(|"SEMANTIC", "on"|SEMANTIC="on"')
IMPORTS_A_TEST = re.compile(r"^\s*(from|import) (tests\b|test_|conftest)", re.M)


def _test_files() -> list[Path]:
    return [p for p in sorted(TESTS.rglob("test_*.py")) if p != Path(__file__).resolve()]


def test_files_that_start_processes_are_in_the_slow_tier() -> None:
    files = [p for p in _test_files() if STARTS_PROCESSES.search(p.read_text("utf-8"))]
    assert files  # the pattern still finds what it looks for
    outside = [
        str(p.relative_to(TESTS))
        for p in files
        if PROCESS not in p.parents and "pytest.mark.slow" not in p.read_text("utf-8")
    ]
    assert not outside, f"move them to tests/process/ or mark them slow: {outside}"


def test_files_that_load_the_model_carry_the_semantic_mark() -> None:
    files = [p for p in _test_files() if LOADS_MODEL.search(p.read_text("utf-8"))]
    assert files
    unmarked = [
        str(p.relative_to(TESTS)) for p in files if "pytest.mark.semantic" not in p.read_text()
    ]
    assert not unmarked, f"mark their model tests @pytest.mark.semantic: {unmarked}"


def test_every_semantic_test_is_also_slow(request: pytest.FixtureRequest) -> None:
    semantic = [i for i in request.session.items if i.get_closest_marker("semantic")]
    fast = [i.nodeid for i in semantic if not i.get_closest_marker("slow")]
    assert not fast, f"semantic tests outside the slow tier: {fast}"


def test_no_test_module_imports_another() -> None:
    importing = [
        str(p.relative_to(TESTS)) for p in _test_files() if IMPORTS_A_TEST.search(p.read_text())
    ]
    assert not importing, f"move what they share to testkit/: {importing}"
