"""Format detection."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_memory.migration.importers.detect import detect

from .conftest import FIXTURES


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("mem0", "mem0"),
        ("mem0/memories.json", "mem0"),
        ("mem0/history.db", "mem0"),
        ("letta/helper.af", "letta"),
        ("zep/graph.json", "zep"),
        ("langmem/store_items.json", "langmem"),
        ("cognee/cogx_archive", "cognee"),
    ],
)
def test_fixtures_are_recognised(path: str, fmt: str) -> None:
    assert detect(FIXTURES / path)[0] == fmt


def test_bundle_and_generic(tmp_path: Path) -> None:
    bundle = tmp_path / "b.ndjson"
    bundle.write_text('{"kind":"header","format":"ai-memory.bundle","format_version":1}\n')
    assert detect(bundle)[0] == "bundle"
    rows = tmp_path / "rows.json"
    rows.write_text('[{"text": "hello", "ts": 1710207000}]')
    assert detect(rows)[0] == "generic"
