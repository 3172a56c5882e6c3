"""``docs/API.md`` names every operation the server's OpenAPI document lists, so a new
route cannot ship undocumented (path parameters are compared by position, not name)."""

from __future__ import annotations

import re
from pathlib import Path

from ai_memory.bootstrap import build
from ai_memory.entrypoints.http.app import create_app
from ai_memory.settings import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "API.md"


def shape(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def test_every_operation_is_in_the_api_reference(tmp_path: Path) -> None:
    container = build(Settings(data_dir=tmp_path / "data"))
    try:
        spec = create_app(container.services).openapi()
    finally:
        container.close()
    documented = {shape(p) for p in re.findall(r"`(?:[A-Z]+ )?(/[^`?\s]*)", DOC.read_text())}
    operations = {(m.upper(), shape(p)) for p, ops in spec["paths"].items() for m in ops}
    assert len(operations) > 20  # the document was really read
    assert sorted(op for op in operations if op[1] not in documented) == []
