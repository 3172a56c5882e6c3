"""The Mem0 importer on artefacts written by the real mem0ai 2.2.1, compared memory by
memory with Mem0's own view of them (``mem0_real/truth.json``, see its README)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ai_memory.core.timeparse import format_timestamp, parse_timestamp
from ai_memory.migration.importers import RowError, mem0

from .conftest import FIXTURES, run

REAL = FIXTURES / "mem0_real"
ARTEFACTS = REAL / "artefacts"
TRUTH: dict[str, dict[str, Any]] = json.loads((REAL / "truth.json").read_text("utf-8"))


def _utc(value: str) -> str:
    return format_timestamp(parse_timestamp(value))


def test_the_fixture_is_what_mem0_was_asked_to_write() -> None:
    events = [row["event"] for m in TRUTH.values() for row in m["history"]]
    assert len(TRUTH) == 60
    assert (events.count("ADD"), events.count("UPDATE"), events.count("DELETE")) == (60, 12, 9)
    assert {m["user_id"] for m in TRUTH.values()} == {"alice", "bob", "chen"}


def test_every_memory_matches_mem0s_own_view() -> None:
    records, lines, report = run(mem0.convert, ARTEFACTS)
    tombstones = {line["id"]: line for line in lines if line["kind"] == "tombstone"}
    for memory_id, truth in TRUTH.items():
        history = truth["history"]
        if truth["deleted"]:
            assert memory_id not in records
            delete = history[-1]
            assert delete["event"] == "DELETE"
            stone = tombstones[memory_id]
            # the deletion time is the DELETE row's updated_at, not its created_at (which
            # Mem0 fills with the memory's creation time)
            assert stone["deleted_at"] == _utc(delete["updated_at"])
            assert stone["deleted_at"] != _utc(history[0]["created_at"])
            assert stone["reason"] == "mem0_delete"
            continue
        record = records[memory_id]["record"]
        assert record["content"] == truth["memory"]
        assert record["content"] == history[-1]["new_memory"]  # updates applied
        assert record["scope"] == f"user:{truth['user_id']}"
        assert record["created_at"] == _utc(history[0]["created_at"])
    survivors = sum(1 for t in TRUTH.values() if not t["deleted"])
    assert (len(records), len(tombstones)) == (survivors, 60 - survivors)
    rows = sum(len(t["history"]) for t in TRUTH.values())
    assert report.unimported["system_log"] == rows - len(tombstones)
    assert report.unimported["rejected"] == 0
    assert report.total == rows + survivors  # every history row and every get_all row


def test_updated_memories_keep_mem0s_update_time() -> None:
    records, _, _ = run(mem0.convert, ARTEFACTS)
    updated = [
        (mid, t)
        for mid, t in TRUTH.items()
        if not t["deleted"] and any(r["event"] == "UPDATE" for r in t["history"])
    ]
    assert len(updated) == 6
    for memory_id, truth in updated:
        meta = records[memory_id]["record"]["meta"]
        assert _utc(meta["updated_at"]) == _utc(truth["history"][-1]["updated_at"])


def test_history_alone_is_refused_naming_its_companions(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    shutil.copy(ARTEFACTS / "history.db", db)
    with pytest.raises(RowError, match=r"get_all JSON files .* --scope-map mem0:unknown-owner"):
        run(mem0.convert, db)


def test_history_with_one_users_get_all_refuses_the_others_row_by_row(tmp_path: Path) -> None:
    for name in ("history.db", "get_all_alice.json"):
        shutil.copy(ARTEFACTS / name, tmp_path / name)
    records, _, report = run(mem0.convert, tmp_path)
    assert {r["record"]["scope"] for r in records.values()} == {"user:alice"}
    assert report.unimported["rejected"] == 34  # bob's and chen's survivors, named
    reason = report.examples["rejected"][0]["reason"]
    assert "in none of the get_all files given" in reason
