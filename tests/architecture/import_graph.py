"""The package's import graph, read from the source with ``ast`` (nothing is imported).

Every ``import`` and ``from … import`` counts, wherever it stands — inside functions and
``if TYPE_CHECKING:`` blocks too: a lazy import is still a dependency. ``from pkg import
name`` is an edge to ``pkg.name`` when that is a module, otherwise to ``pkg``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "ai_memory"


@dataclass(frozen=True)
class Edge:
    source: str  # importing module
    target: str  # imported module (or package), absolute
    line: int
    names: tuple[str, ...] = ()  # what a ``from`` import takes


def modules(root: Path) -> dict[str, Path]:
    """Module name → file, for every ``.py`` under ``root/ai_memory``."""
    found: dict[str, Path] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def edges(root: Path) -> list[Edge]:
    known = modules(root)
    out: list[Edge] = []
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            out.extend(_edges_of(node, name, is_package, known))
    return out


def _edges_of(
    node: ast.AST, module: str, is_package: bool, known: Mapping[str, Path]
) -> Iterator[Edge]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield Edge(module, alias.name, node.lineno)
    elif isinstance(node, ast.ImportFrom):
        base = _absolute(node, module, is_package)
        names = tuple(a.name for a in node.names)
        submodules = [f"{base}.{n}" for n in names if f"{base}.{n}" in known]
        if submodules:
            for target in submodules:
                yield Edge(module, target, node.lineno)
            rest = tuple(n for n in names if f"{base}.{n}" not in known)
            if rest:
                yield Edge(module, base, node.lineno, rest)
        else:
            yield Edge(module, base, node.lineno, names)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def within(name: str, prefixes: Sequence[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def is_stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names or name == "__future__"
