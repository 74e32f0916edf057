"""bot.tg.reload_guard: which loads look like a file still being copied."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.tg.reload_guard import cut_file, refusal

RECORD = '{"id": "a%d", "title": "T", "abstract": "An abstract."}'


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        pytest.param("\n".join(RECORD % n for n in range(3)) + "\n", False, id="jsonl-whole"),
        pytest.param("\n".join(RECORD % n for n in range(3))[:-9], True, id="jsonl-cut"),
        pytest.param('{"abstract": "one broken record\n', False, id="one-bad-record"),
        pytest.param("[" + ",\n".join(RECORD % n for n in range(3)) + "]", False, id="array"),
        pytest.param("[" + ",\n".join(RECORD % n for n in range(3))[:-20], True, id="array-cut"),
        pytest.param('[{"abstract": "unclosed\n', False, id="array-one-bad"),
        pytest.param('{\n  "papers": [\n    {"id": "x"}\n  ]\n}\n', False, id="pretty-object"),
        pytest.param("Title\n\nAn abstract, cut mid", False, id="plain-text"),
    ],
)
def test_cut_file(tmp_path: Path, text: str, cut: bool) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(text, encoding="utf-8")
    assert cut_file(path) is cut


def test_under_half_the_papers_is_refused_half_is_not() -> None:
    assert refusal(100, 49, []).key == "admin.reload_refused_shrunk"  # type: ignore[union-attr]
    assert refusal(100, 50, []) is None
    assert refusal(0, 5, []) is None  # nothing served yet
