"""The docs stay true: the code map names every module of the tree (one row per module or
package), and the entry points' usage examples run."""

from __future__ import annotations

import doctest
import importlib
import io
import re
from pathlib import Path

import pytest

from bot import render
from bot.i18n import translator
from bot.search import Index
from testkit.docs import REPO, documentation

# Packages documented as a whole by one row (their modules are one job's parts).
WHOLE_PACKAGES = ("bot/store/", "bot/i18n/", "bot/tg/handlers/", "bot/corpus/readers/")


def layout_rows() -> str:
    docs = documentation()
    start = docs.index("| module | holds |")
    return docs[start : docs.index("\n\n", start)]


def documented(module: str, rows: str) -> bool:
    """`bot/x/y.py` is named in the rows, in full or as `y.py` beside a sibling in its row."""
    if module.startswith(WHOLE_PACKAGES):
        return True
    for row in rows.splitlines():
        paths = re.findall(r"`([\w/.]+)`", row)
        if module in paths:
            return True
        folder, name = module.rsplit("/", 1)
        if name in paths and any(p.startswith(folder + "/") for p in paths):
            return True
    return False


def test_readme_layout_names_every_module() -> None:
    rows = layout_rows()
    modules = sorted(
        str(path.relative_to(REPO))
        for path in (REPO / "bot").rglob("*.py")
        if path.name not in ("__init__.py", "__main__.py")
    )
    assert [m for m in modules if not documented(m, rows)] == []


def test_readme_layout_names_no_missing_module() -> None:
    rows = layout_rows()
    named = [p for p in re.findall(r"`(bot/[\w/.]+)`", rows)]
    assert [p for p in named if not (REPO / p).exists()] == []


@pytest.mark.parametrize(
    "name",
    [
        "bot.search",
        "bot.answers.questions",
        "bot.loading",
        "bot.corpus.loader",
        "bot.corpus.readers",
    ],
)
def test_usage_examples_give_what_they_show(name: str, index: Index, monkeypatch) -> None:
    """The entry points a newcomer calls first show their use in `>>>` lines; those run, on
    the seed papers (`index`), and print what the docstring says."""
    monkeypatch.chdir(REPO)
    module = importlib.import_module(name)
    names = {"Path": Path, "index": index, "render": render, "translator": translator}
    tests = doctest.DocTestFinder().find(module, name, globs={**vars(module), **names})
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test, out=out.write)
    assert runner.tries > 0, "no usage example"
    assert runner.failures == 0, out.getvalue()
