"""The planner's surface: each module's `__all__` names its public API, and the package is
pure (it imports only the standard library, `icalendar` and the corpus's model)."""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from pathlib import Path

import pytest

import bot.planner

PACKAGE = Path(bot.planner.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
ALLOWED = ("bot.planner", "bot.corpus", "icalendar")


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_the_public_api(name: str) -> None:
    module = importlib.import_module(f"bot.planner.{name}")
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and (inspect.isfunction(value) or inspect.isclass(value))
        and value.__module__ == module.__name__
    }
    assert public <= set(module.__all__)
    assert all(hasattr(module, attr) for attr in module.__all__)


@pytest.mark.parametrize("name", MODULES)
def test_imports_nothing_upwards(name: str) -> None:
    tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
    imported = [
        alias.name if isinstance(node, ast.Import) else node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    outside = [
        m for m in imported
        if m.split(".")[0] not in sys.stdlib_module_names and not m.startswith(ALLOWED)
    ]  # fmt: skip
    assert outside == []


def test_the_package_exports_every_modules_main_names() -> None:
    exported = set(bot.planner.__all__)
    assert {"schedule", "calendar_file", "due_reminders", "next_due", "now_and_next",
            "build_programme", "presentation_key", "start_payload",
            "paper_from_payload"} <= exported  # fmt: skip
    assert all(hasattr(bot.planner, name) for name in exported)
