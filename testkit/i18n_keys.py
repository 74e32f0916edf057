"""Where `bot/` uses each catalogue key, read from its source, and `bot/i18n/KEYS.md` written
from it (by `python -m testkit.i18n_build`, so the page never goes stale).

A key is used where it appears as a string literal, or where a key is built from its head
(`f"command.{name}"`, `"hint." + kind`): every key with that head is used there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

import bot

__all__ = ["KEYS_MD", "key_sites", "keys_md"]

BOT = Path(bot.__file__).parent
KEYS_MD = BOT / "i18n" / "KEYS.md"
HEADER = """# Catalogue keys and where each is used

Written by `uv run python -m testkit.i18n_build` from the catalogues and `bot/`'s source (a
key used as a literal, or built from its head such as `f"command.{name}"`); the tests fail
while it is stale, and on a key no code uses.

| key | used in |
|---|---|
"""


def key_sites(keys: Iterable[str], root: Path = BOT) -> dict[str, list[str]]:
    """Each key and the places (`module.function`) of `root`'s source that use it: where it is
    a literal, else where a key is built from its head."""
    keys = list(keys)
    literal: dict[str, list[str]] = {key: [] for key in keys}
    built: dict[str, list[str]] = {key: [] for key in keys}
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        for where, node in _walk(ast.parse(path.read_text(encoding="utf-8")), module, module):
            if isinstance(node, ast.Constant) and node.value in literal:
                _add(literal[node.value], where)
            elif (head := _head(node)) is not None:
                for key in keys:
                    if key.startswith(head):
                        _add(built[key], where)
    return {key: literal[key] or built[key] for key in keys}


def _add(places: list[str], where: str) -> None:
    if where not in places:
        places.append(where)


def keys_md(keys: Iterable[str]) -> str:
    """The text of KEYS.md for `keys` (in catalogue order)."""
    rows = [f"| `{key}` | {', '.join(where) or '—'} |" for key, where in key_sites(keys).items()]
    return HEADER + "\n".join(rows) + "\n"


def _head(node: ast.AST) -> str | None:
    """The constant head of a key built from parts (`f"date.month_{m}"`, `"hint." + kind`)."""
    first: ast.AST | None = None
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        first = node.left
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value if first.value.endswith((".", "_")) else None
    return None


def _walk(node: ast.AST, where: str, module: str) -> Iterator[tuple[str, ast.AST]]:
    """Every node under `node`, in source order, with the place it is in: `module.Class.f`,
    or `module.NAME` for a module-level assignment, else `module`."""
    for child in ast.iter_child_nodes(node):
        inner = where
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            inner = f"{where}.{child.name}"
        elif where == module and isinstance(child, ast.Assign | ast.AnnAssign):
            target = child.targets[0] if isinstance(child, ast.Assign) else child.target
            if isinstance(target, ast.Name):
                inner = f"{module}.{target.id}"
        yield inner, child
        yield from _walk(child, inner, module)
