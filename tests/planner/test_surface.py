"""The planner is pure: it imports only the standard library, `icalendar` and the corpus."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import bot.planner

PACKAGE = Path(bot.planner.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
ALLOWED = ("bot.planner", "bot.corpus", "icalendar")


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
