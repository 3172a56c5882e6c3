"""Projections are disposable: replaying the log from 0 rebuilds identical state, and the
tailers resume from their stored checkpoints after a restart."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ai_memory.adapters.sealed_record_store import SealedRecordStore
from ai_memory.bootstrap import Container, build
from ai_memory.core.keywords import query_terms
from ai_memory.core.listing import ListQuery
from ai_memory.core.ports import IndexQuery
from ai_memory.core.projection import PutRecord
from ai_memory.core.record import MemoryType, StoredRecord
from ai_memory.entrypoints.cli.main import app
from ai_memory.service.memory_service import SearchRequest
from ai_memory.settings import Settings
from tests.factories import T0
from tests.integration.hunt_support import files_holding

QUERIES = ["what does alice drink", "rust toolchain", "trip to kyoto", "deploy checklist"]


def populate(c: Container) -> None:
    s = c.service
    texts = [
        ("preference", "Alice prefers green tea over coffee."),
        ("skill", "Pin the Rust toolchain to 1.80 to stop flaky CI builds."),
        ("task", "Book the Kyoto trip for October; the hotel is still pending."),
        ("fact", "The deploy checklist lives in the ops wiki under 'Release'."),
        ("interaction", "Alice asked about the weather in Wellington."),
    ]
    for i in range(40):
        type_, text = texts[i % len(texts)]
        s.write(
            "default",
            {
                "id": f"m{i}",
                "type": type_,
                "content": f"{text} (note {i})",
                "scope": "user:alice" if i % 2 else "team:core",
                "source_agent": "agent-a",
                "tags": [f"t{i % 3}"],
            },
        )
    for i in range(0, 40, 7):
        s.write(
            "default",
            {
                "id": f"m{i}",
                "type": "fact",
                "content": f"Rewritten note {i}.",
                "scope": "user:alice" if i % 2 else "team:core",
                "source_agent": "agent-b",
            },
        )
    for i in range(3, 40, 9):
        s.delete("default", f"m{i}", actor="test")
    for q in QUERIES:  # reads are reinforcement events on the log: replay must count them
        s.search("default", SearchRequest(q, top_k=5))
    assert s.recalls is not None and s.recalls.flush() > 0
    s.wait_for(c.log.last_position())


def snapshot(c: Container) -> dict[str, Any]:
    # Compacting first purges superseded vectors, which otherwise still count in the
    # engine's keyword IDF statistics: rankings then depend only on the live memories.
    c.index.optimize()
    # Index-level queries: searching through the service would itself append reads.
    search = {
        q: [
            (h.memory_id, round(h.score, 6))
            for h in c.index.search(
                IndexQuery("default", c.embedder.embed([q])[0], query_terms(q), T0, limit=10)
            )
        ]
        for q in QUERIES
    }
    return {
        "records": list(c.store.scan_records("default")),
        "tombstones": list(c.store.scan_tombstones("default")),
        "index_count": c.index.count("default"),
        "search": search,
        "checkpoints": (c.store.checkpoint(), c.index.checkpoint()),
    }


def test_replay_rebuilds_identical_projections(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    c = build(settings)
    c.start()
    populate(c)
    before = snapshot(c)
    c.close()

    rebuilt = build(settings)  # not started: replay is offline
    try:
        for tailer in rebuilt.projections.tailers:
            applied = tailer.rebuild()
            assert applied == rebuilt.log.last_position()
        after = snapshot(rebuilt)
    finally:
        rebuilt.close()
    assert after == before
    assert before["index_count"] == len(before["records"]) == 35


def test_tailers_resume_from_their_checkpoint_after_restart(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    c = build(settings)
    c.start()
    populate(c)
    checkpoints = (c.store.checkpoint(), c.index.checkpoint())
    c.close()
    reopened = build(settings)
    try:
        assert [t.position for t in reopened.projections.tailers] == list(checkpoints)
        # Nothing left to apply: a restart does not re-project the whole log.
        assert all(t.catch_up() == 0 for t in reopened.projections.tailers)
        reopened.start()
        r = reopened.service.write(
            "default",
            {
                "type": MemoryType.FACT.value,
                "content": "new",
                "scope": "public",
                "source_agent": "a",
            },
            wait=True,
        )
        assert reopened.service.get("default", r.record.id).record.content == "new"
    finally:
        reopened.close()


def test_cli_replay_reports_progress_and_rate(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    c = build(settings)
    c.start()
    populate(c)
    c.close()
    result = CliRunner().invoke(app, ["replay", "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    assert "records:" in result.output and "index:" in result.output
    assert "events/s" in result.output
    # What a rebuild costs per event, start-up left out (loadtest/bench_cost.py reads it)
    costs = re.findall(r"([\d.]+) ms of CPU per event here", result.output)
    assert len(costs) == 2 and all(float(c) > 0 for c in costs), result.output


def test_a_records_replay_seals_rows_written_in_clear(tmp_path: Path) -> None:
    """A records view written before it was sealed at rest (rows in clear) still reads
    as it is, and ``ai-memory replay --projection records`` rewrites it sealed."""
    settings = Settings(data_dir=tmp_path / "data", encryption="on")
    data, secret = settings.data_dir, f"Canary{uuid.uuid4().hex}"
    c = build(settings)
    c.start()
    try:
        body = {"type": "fact", "content": f"Alice hides {secret}.", "scope": "user:alice"}
        c.service.write("default", body | {"id": "m1", "source_agent": "a", "tags": [secret]})
        c.service.wait_for(c.log.last_position())
        store = c.store
        assert isinstance(store, SealedRecordStore)
        opened = store.get("default", "m1")
        assert isinstance(opened, StoredRecord) and secret in opened.record.content
        assert files_holding(data, [secret], "records.db*") == {}  # sealed as written
        # The rows as the store wrote them before sealing: in clear, same positions.
        store.inner.reset()
        store.inner.apply([PutRecord(opened)], checkpoint=c.log.last_position())
        assert files_holding(data, [secret], "records.db*")
        assert store.get("default", "m1") == opened  # a clear row reads, migration-free
        assert store.list_records(ListQuery("default", tag=secret)).items == []  # until replayed
    finally:
        c.close()
    result = CliRunner().invoke(app, ["replay", "--projection", "records", "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    assert files_holding(data, [secret], "records.db*") == {}
    c = build(settings)
    try:
        again = c.store.get("default", "m1")
        assert isinstance(again, StoredRecord) and secret in again.record.content
        assert [
            s.record.id for s in c.store.list_records(ListQuery("default", tag=secret)).items
        ] == ["m1"]
    finally:
        c.close()
