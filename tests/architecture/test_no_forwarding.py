"""No class in the package forwards unknown attributes (``__getattr__``) to another
object: a decorator that does hides which operations it stands in front of, and the
order of a pipeline built from such decorators is visible only where they are stacked.
Optional capabilities are declared on the ports (``core.ports``) instead."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "services"


def forwarders(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for cls in ast.walk(tree):
            if not isinstance(cls, ast.ClassDef):
                continue  # a module's own ``__getattr__`` (a lazy import) forwards nothing
            for node in cls.body:
                if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_class_forwards_attributes() -> None:
    assert forwarders(ROOT) == []


def test_a_forwarder_is_found(tmp_path: Path) -> None:
    method = "    def __getattr__(self, name: str) -> object:\n        return name\n"
    (tmp_path / "wrapper.py").write_text(f"class Wrapper:\n{method}", encoding="utf-8")
    lazy = "def __getattr__(name: str) -> object:\n    return name\n"
    (tmp_path / "lazy.py").write_text(lazy, encoding="utf-8")
    assert forwarders(tmp_path) == ["wrapper.py:2"]
