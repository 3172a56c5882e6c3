"""``python -m ai_memory.entrypoints.cli.openapi_dump`` writes the document the server
serves, in a stable text (the TypeScript SDK's types are generated from it and a test
compares them byte for byte)."""

from __future__ import annotations

import json
from pathlib import Path

from ai_memory.bootstrap import build
from ai_memory.entrypoints.cli import openapi_dump
from ai_memory.entrypoints.http.app import create_app
from ai_memory.settings import Settings


def test_the_dump_is_the_served_document_in_a_stable_text(tmp_path: Path) -> None:
    out = tmp_path / "openapi.json"
    assert openapi_dump.main([str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    dumped = json.loads(text)
    container = build(Settings(data_dir=tmp_path / "data"))
    try:
        served = create_app(container.services).openapi()
    finally:
        container.close()
    assert dumped == served
    assert "/v1/memories/search" in dumped["paths"]
    assert text == json.dumps(served, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
