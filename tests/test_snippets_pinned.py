"""Snippets stay the same while they get faster: the chosen sentences and marks are pinned.

`tests/data/devset_snippets.json` holds, for every dev-set question, the top 10 hits' ids,
snippet texts and marks as chosen before the snippet code was optimised (issue 13).
Regenerate only for an intended change of behaviour:
`PYTHONPATH=. uv run python tests/test_snippets_pinned.py --write`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bot.search import Index
from testkit.devset import DEVSET, load_seed_papers

PINNED = Path(__file__).with_name("data") / "devset_snippets.json"
SEED_DIR = Path(__file__).resolve().parent.parent / "corpus"


def questions() -> list[str]:
    """The dev set's questions, in file order."""
    return [json.loads(line)["question"] for line in DEVSET.read_text("utf-8").splitlines()]


def snippets(index: Index) -> dict[str, list[list[object]]]:
    """Per question: [paper id, snippet text, marks] of the top 10."""
    return {
        q: [[h.paper.id, h.snippet.text, [list(m) for m in h.snippet.marks]] for h in hits]
        for q in questions()
        for hits in [index.search(q, limit=10).hits]
    }


@pytest.fixture(scope="module")
def seed_index() -> Index:
    return Index.build(load_seed_papers(SEED_DIR))


def test_devset_snippets_are_unchanged(seed_index: Index) -> None:
    pinned = json.loads(PINNED.read_text("utf-8"))
    assert len(pinned) == len(questions())
    assert snippets(seed_index) == pinned


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    PINNED.write_text(
        json.dumps(snippets(Index.build(load_seed_papers(SEED_DIR))), ensure_ascii=False, indent=1)
        + "\n",
        encoding="utf-8",
    )
