"""Mem0 export JSON and history.db."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ai_memory.migration.importers import ImportOptions, RowError, mem0

from .conftest import FIXTURES, run

PREF = "8f8c1b9e-2b1d-4c59-9d9e-0a1b2c3d4e01"
DELETED = "8f8c1b9e-2b1d-4c59-9d9e-0a1b2c3d4e09"


def test_export_and_history_convert_with_tombstones() -> None:
    records, lines, report = run(mem0.convert, FIXTURES / "mem0")
    pref = records[PREF]["record"]
    assert pref["type"] == "preference"
    assert pref["scope"] == "user:alice"
    assert pref["created_at"] == "2024-03-12T16:30:00.123456Z"  # offset → UTC, µs kept
    assert pref["meta"]["hash"] == "4d1f0c3a9b7e2f6d8c5a1b0e9f7d3c2a"
    assert records["8f8c1b9e-2b1d-4c59-9d9e-0a1b2c3d4e03"]["record"]["type"] == "skill"
    assert records["8f8c1b9e-2b1d-4c59-9d9e-0a1b2c3d4e03"]["record"]["scope"] == "agent:ops-bot"
    # a memory only the history knows has no owner in any file: refused, never placed
    assert "8f8c1b9e-2b1d-4c59-9d9e-0a1b2c3d4e10" not in records
    reasons = [e["reason"] for e in report.examples["rejected"]]
    assert any("in none of the get_all files given" in r for r in reasons)
    tombstones = [line for line in lines if line["kind"] == "tombstone"]
    assert [(t["id"], t["reason"]) for t in tombstones] == [(DELETED, "mem0_delete")]
    assert DELETED not in records
    assert report.unimported["system_log"] == 3  # change-log rows, accounted
    assert report.total == 5 + 2 + 3


def test_malformed_rows_are_rejected_clearly_and_others_import() -> None:
    _, _, report = run(mem0.convert, FIXTURES / "mem0")
    reasons = [e["reason"] for e in report.examples["rejected"]]
    assert any("'memory' (the memory text) is missing" in r for r in reasons)
    assert any("history row: no memory_id" in r for r in reasons)
    assert report.converted["record"] == 3


def test_scope_map_and_bare_list(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "mem0" / "memories.json").read_text())["results"]
    source = tmp_path / "list.json"
    source.write_text(json.dumps([*data[:2], {"id": "x", "memory": 5}]))
    options = ImportOptions(scope_map={"user:alice": "user:a.smith"})
    records, _, report = run(mem0.convert, source, options)
    assert {r["record"]["scope"] for r in records.values()} == {"user:a.smith"}
    assert report.unimported["rejected"] == 1


def test_history_only_database_is_refused_without_an_owner(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    shutil.copy(FIXTURES / "mem0" / "history.db", db)
    with pytest.raises(RowError, match="get_all JSON files"):
        run(mem0.convert, db)


def test_history_only_database_with_its_owner_mapped(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    shutil.copy(FIXTURES / "mem0" / "history.db", db)
    options = ImportOptions(scope_map={mem0.UNKNOWN_OWNER: "user:alice"})
    records, lines, _ = run(mem0.convert, db, options)
    assert records[PREF]["record"]["scope"] == "user:alice"
    assert PREF in records  # not in any export: rebuilt from its last UPDATE
    assert records[PREF]["record"]["content"] == "Prefers answers as short bullet lists, no tables"
    assert any(line["kind"] == "tombstone" for line in lines)


def test_not_a_mem0_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"results": ')
    try:
        list(mem0.convert(bad, ImportOptions()))
    except ValueError as e:
        assert "x.json is not valid JSON" in str(e)
    else:
        raise AssertionError("expected an error")
