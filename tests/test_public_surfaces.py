"""Public surfaces: each package's `__all__` is exactly what other packages (and the tests and
benchmarks) take from it, and packages meet only through their roots."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(p.parent.name for p in (ROOT / "bot").glob("*/__init__.py"))
USERS = ("bot", "tests", "benchmarks", "testkit")


def _used_from(package: str) -> set[str]:
    """Names taken from `bot.<package>` outside it: `from bot.<package> import n`, or
    `<package>.n` after `from bot import <package>`."""
    used: set[str] = set()
    own = ROOT / "bot" / package
    for folder in USERS:
        for path in (ROOT / folder).rglob("*.py"):
            if own in path.parents:
                continue
            tree = ast.parse(path.read_text("utf-8"))
            aliases = {
                alias.asname or alias.name
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module == "bot"
                for alias in node.names
                if alias.name == package
            }
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == f"bot.{package}":
                    used.update(alias.name for alias in node.names)
                elif (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id in aliases
                ):
                    used.add(node.attr)
    return used


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_exports_what_the_others_use(package: str) -> None:
    module = importlib.import_module(f"bot.{package}")
    exported = set(getattr(module, "__all__", ()))
    folder = ROOT / "bot" / package
    submodules = {p.stem for p in folder.glob("*.py")} | {
        p.parent.name for p in folder.glob("*/__init__.py")
    }
    used = {  # a submodule reached as an attribute is not an export (unless it is one too)
        name
        for name in _used_from(package)
        if not name.startswith("__") and (name in exported or name not in submodules)
    }
    assert sorted(used - exported) == [], "used from the package but not in its __all__"
    assert sorted(exported - used) == [], "exported but used by no other package"


ENTRY_POINTS = {"bot.tg.serve"}  # the CLI starts the bot here; `tg` is the top, used by no one


def test_packages_meet_through_their_roots() -> None:
    """No module of `bot/` reaches into another package's modules: what it takes from a
    package comes through the package's `__init__` (its surface, pinned above)."""
    reaching = []
    for path in (ROOT / "bot").rglob("*.py"):
        parts = path.relative_to(ROOT / "bot").parts
        own = parts[0] if len(parts) > 1 else None
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            module = node.module.split(".")
            inward = module[0] == "bot" and len(module) > 2 and module[1] != own
            if inward and node.module not in ENTRY_POINTS:
                reaching.append(f"{path.relative_to(ROOT)}: from {node.module}")
    assert reaching == []
