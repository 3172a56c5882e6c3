"""LangGraph / LangMem store items."""

from __future__ import annotations

from pathlib import Path

from ai_memory.migration.importers import langmem

from .conftest import FIXTURES, run

ITEMS = FIXTURES / "langmem" / "store_items.json"
KEY = "langgraph:memories.alice:2b3c4d5e-0000-4000-8000-00000000000"


def test_namespaces_kinds_and_deletes() -> None:
    records, lines, _ = run(langmem.convert, ITEMS)
    pref = records[KEY + "1"]["record"]
    assert (pref["type"], pref["scope"]) == ("preference", "user:alice")
    assert pref["content"] == "User prefers dark mode in every app."
    task = records[KEY + "2"]["record"]
    assert task["type"] == "task"
    assert "next_step: merge Bob's comments by Friday" in task["content"]
    skill = records["langgraph:team.data-platform:runbook-1"]["record"]
    assert (skill["type"], skill["scope"]) == ("skill", "team:data-platform")
    (tomb,) = [line for line in lines if line["kind"] == "tombstone"]
    assert tomb["id"] == KEY + "3"
    assert tomb["deleted_at"] == "2025-02-05T10:00:00Z"


def test_malformed_item_rejected_others_import(tmp_path: Path) -> None:
    records, _, report = run(langmem.convert, ITEMS)
    assert "namespace must be a non-empty list" in report.examples["rejected"][0]["reason"]
    assert len(records) == 3
    ndjson = tmp_path / "items.ndjson"
    ndjson.write_text(
        '{"namespace": ["memories", "bob"], "key": "k", "value": {"content": "Bob codes in Go."},'
        ' "created_at": "2025-01-01T00:00:00+00:00", "updated_at": "2025-01-01T00:00:00+00:00"}\n'
        "{not json\n"
    )
    records, _, report = run(langmem.convert, ndjson)
    assert list(records) == ["langgraph:memories.bob:k"]
    assert report.examples["rejected"][0]["source_ref"] == "items.ndjson:2"
