"""Writes ``async_client.py`` from ``client.py``: the async client is generated, never
edited by hand (``python services/ai_memory/sdk/_generate_async.py``; ``--check`` only compares).

The rewrite is syntactic (``ast``), as qdrant-client generates ``AsyncQdrantClient``:

* every method of ``MemoryClient`` but ``__init__`` becomes ``async def``; a call of one
  of them on ``self`` is awaited, unless it is a generator (an async generator is
  iterated with ``async for``, never awaited); ``yield from x`` becomes a loop;
* httpx's blocking calls become their async twins (``send``, ``aread``, ``aclose``,
  ``aiter_lines``) and the retry sleep ``async_sleep``;
* names map to their async twins (``NAMES``): ``Iterator`` → ``AsyncIterator``,
  ``httpx.Client`` → ``httpx.AsyncClient``, ``w.import_body`` → ``w.async_import_body``…
* what ``client.py`` defines beside the class (``DEFAULT_URL``, ``with_api_key``, …) is
  imported from it, not copied.

Comments do not survive ``ast``; docstrings do (they are written once, in
``client.py``). The output is formatted with ``ruff format``, the repository's formatter,
so the committed file is byte for byte what this module produces (a test checks it).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

__all__ = ["generate", "main"]

HERE = Path(__file__).parent
SOURCE = HERE / "client.py"
TARGET = HERE / "async_client.py"

#: Names (``ast.Name`` ids and attribute names) and their async twins.
NAMES = {
    "MemoryClient": "AsyncMemoryClient",
    "Iterator": "AsyncIterator",
    "Client": "AsyncClient",
    "BaseTransport": "AsyncBaseTransport",
    "ImportSource": "AsyncImportSource",
    "import_body": "async_import_body",
    "__enter__": "__aenter__",
    "__exit__": "__aexit__",
    "close": "aclose",
    "read": "aread",
    "iter_lines": "aiter_lines",
    "sleep": "async_sleep",
}
#: Calls (by attribute name, after renaming) that answer an awaitable in the async client.
AWAITED = frozenset({"send", "aread", "aclose", "async_sleep"})
#: Calls that answer an async iterator.
ASYNC_ITERATORS = frozenset({"aiter_lines"})

HEADER = '''"""``AsyncMemoryClient``: the asyncio twin of ``MemoryClient`` (same methods, awaited).

Generated from ``client.py`` by ``_generate_async``: do not edit; change ``client.py`` and
run ``python services/ai_memory/sdk/_generate_async.py``. Docstrings come from there.
"""
'''


def _is_generator(node: ast.FunctionDef) -> bool:
    """Whether ``node`` itself yields (a nested function's yield is its own)."""
    stack: list[ast.AST] = list(node.body)
    while stack:
        child = stack.pop()
        if isinstance(child, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(child))
    return False


class _ToAsync(ast.NodeTransformer):
    """Rewrites the body of ``MemoryClient`` (see the module docstring)."""

    def __init__(self, coroutines: set[str], generators: set[str]) -> None:
        self.coroutines = {NAMES.get(n, n) for n in coroutines}
        self.generators = {NAMES.get(n, n) for n in generators}

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = NAMES.get(node.id, node.id)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.Attribute:
        self.generic_visit(node)
        node.attr = NAMES.get(node.attr, node.attr)
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        if not isinstance(func, ast.Attribute):
            return node
        on_self = isinstance(func.value, ast.Name) and func.value.id == "self"
        if func.attr in AWAITED or (on_self and func.attr in self.coroutines):
            return ast.Await(node)
        return node

    def visit_For(self, node: ast.For) -> ast.stmt:
        self.generic_visit(node)
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute):
            name = it.func.attr
            if name in ASYNC_ITERATORS or name in self.generators:
                return ast.AsyncFor(node.target, it, node.body, node.orelse)
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        self.generic_visit(node)
        if isinstance(node.value, ast.YieldFrom):
            # ``yield from`` is not allowed in an async generator: yield one by one.
            item = ast.Name("item", ast.Store())
            loop = ast.Expr(ast.Yield(ast.Name("item", ast.Load())))
            return ast.For(item, node.value.value, [loop], [])
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.stmt:
        self.generic_visit(node)
        if node.name == "__init__":
            return node
        node.name = NAMES.get(node.name, node.name)
        twin = ast.AsyncFunctionDef(**{field: getattr(node, field) for field in node._fields})
        return ast.copy_location(twin, node)


def _rewrite_import(node: ast.ImportFrom) -> ast.ImportFrom:
    for alias in node.names:
        alias.name = NAMES.get(alias.name, alias.name)
    return node


def generate(source: str) -> str:
    """The async client's module for ``source`` (the text of ``client.py``), formatted."""
    tree = ast.parse(source)
    body: list[ast.stmt] = []
    shared: list[str] = []
    for node in tree.body[1:]:  # [0] is the module docstring: the twin has its own
        if isinstance(node, ast.ImportFrom):
            body.append(_rewrite_import(node))
        elif isinstance(node, ast.Import):
            body.append(node)
        elif isinstance(node, ast.ClassDef):
            methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
            generators = {m.name for m in methods if _is_generator(m)}
            coroutines = {m.name for m in methods} - generators - {"__init__"}
            node.name = NAMES.get(node.name, node.name)
            node.body = [_ToAsync(coroutines, generators).visit(n) for n in node.body]
            body.append(node)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            continue
        elif isinstance(node, ast.FunctionDef | ast.Assign | ast.AnnAssign):
            shared += [t.id for t in _defined(node)]
    imports = [n for n in body if isinstance(n, ast.Import | ast.ImportFrom)]
    classes = [n for n in body if not isinstance(n, ast.Import | ast.ImportFrom)]
    if shared:
        imports.append(ast.ImportFrom("client", [ast.alias(n) for n in sorted(shared)], 1))
    exports = ast.parse(f"__all__ = {[c.name for c in classes if isinstance(c, ast.ClassDef)]!r}")
    module = ast.Module([*imports, *exports.body, *classes], [])
    return _format(HEADER + "\n" + ast.unparse(ast.fix_missing_locations(module)) + "\n")


def _defined(node: ast.stmt) -> list[ast.Name]:
    if isinstance(node, ast.FunctionDef):
        return [ast.Name(node.name)]
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return [t for t in targets if isinstance(t, ast.Name)]


def _format(code: str) -> str:
    """``ruff format``, imports sorted and the unused dropped, as the repository sets it."""
    for command in (["check", "--select", "I,F401", "--fix-only", "--quiet"], ["format"]):
        code = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--stdin-filename", str(TARGET), "-"],
            input=code,
            capture_output=True,
            text=True,
            check=True,
            cwd=HERE,
        ).stdout
    return code


def main(argv: list[str] | None = None) -> int:
    """Write ``async_client.py``; with ``--check``, exit 1 if it differs instead."""
    expected = generate(SOURCE.read_text(encoding="utf-8"))
    if "--check" in (argv if argv is not None else sys.argv[1:]):
        if TARGET.read_text(encoding="utf-8") != expected:
            print(f"{TARGET} is stale: run python services/ai_memory/sdk/_generate_async.py")
            return 1
        return 0
    TARGET.write_text(expected, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
