"""Access is decided in the service layer: no entry point judges a caller.

An entry point may name the caller's type and turn a credential into one
(``service.access``: ``Caller``, ``Embedded``, ``Who``, ``caller_of``); it may not
import the policy's decisions (``core.access.policy``) nor ask the service layer's
checks itself (``require``, ``readable``, ``reveal``, …): those are the use cases' to ask.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .import_graph import edges

ROOT = Path(__file__).resolve().parents[2] / "services"
ENTRYPOINTS = "ai_memory.entrypoints"
# What a door may take from service.access: the caller's type and how to name one.
CALLER_NAMES = frozenset({"Caller", "Embedded", "Who", "caller_of"})
DECISIONS = frozenset(
    {"authorize", "role_allows", "searchable_scopes", "require", "require_role"}
    | {"require_admin", "readable", "reveal", "judge", "audited_tenant", "search_scopes"}
    | {"reported_tenant"}
)


def judged_at_the_door(root: Path) -> list[str]:
    """Every place under ``entrypoints`` that imports or calls a decision."""
    found: list[str] = []
    for edge in edges(root):
        if not edge.source.startswith(ENTRYPOINTS):
            continue
        if edge.target == "ai_memory.core.access.policy" or (
            edge.target == "ai_memory.service.access" and set(edge.names) - CALLER_NAMES
        ):
            found.append(f"{edge.source}:{edge.line} imports {edge.target} {edge.names}")
        elif edge.target.startswith("ai_memory.core.access") and DECISIONS & set(edge.names):
            found.append(f"{edge.source}:{edge.line} imports {edge.names}")
    for path in sorted((root / "ai_memory" / "entrypoints").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                if name in DECISIONS:
                    found.append(f"{path.relative_to(root)}:{node.lineno} calls {name}")
    return found


def test_no_entry_point_judges_a_caller() -> None:
    assert judged_at_the_door(ROOT) == []


@pytest.mark.parametrize(
    "code",
    [
        "from ai_memory.core.access.policy import authorize\n",
        "from ai_memory.service.access import require\n",
        "from ai_memory.service import access\naccess.readable(None, None)\n",
        "def f(keys):\n    keys.require_role(None, 'read')\n",
    ],
)
def test_a_planted_check_is_caught(tmp_path: Path, code: str) -> None:
    package = tmp_path / "ai_memory"
    for folder in ("core/access", "service", "entrypoints/http"):
        (package / folder).mkdir(parents=True, exist_ok=True)
        (package / folder / "__init__.py").write_text("")
    (package / "core" / "access" / "policy.py").write_text("def authorize(): ...\n")
    (package / "service" / "access.py").write_text("def require(): ...\n")
    (package / "entrypoints" / "http" / "route.py").write_text(code)
    assert judged_at_the_door(tmp_path) != []
