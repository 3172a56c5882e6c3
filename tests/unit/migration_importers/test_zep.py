"""Zep / Graphiti dumps."""

from __future__ import annotations

from ai_memory.migration.importers import ImportOptions, zep

from .conftest import FIXTURES, run

GRAPH = FIXTURES / "zep" / "graph.json"


def test_episodes_edges_and_validity() -> None:
    records, _, report = run(zep.convert, GRAPH)
    episode = records["ep-0001"]["record"]
    assert episode["type"] == "interaction"
    assert episode["created_at"] == "2025-04-02T10:00:00Z"  # when it happened (valid_at)
    old, new = records["edge-0001"], records["edge-0002"]
    assert old["state"] == "historical"
    assert old["record"]["meta"]["invalid_at"] == "2025-03-01T00:00:00Z"
    assert old["record"]["meta"]["subject"] == "Alice"
    assert "state" not in new
    assert records["node-alice"]["record"]["content"].startswith("Alice: ")
    assert report.unimported["vector_ignored"] == 2
    assert report.unimported["system_log"] == 2


def test_malformed_episode_and_edge_rejected_others_import() -> None:
    records, _, report = run(zep.convert, GRAPH)
    reasons = {e["source_ref"]: e["reason"] for e in report.examples["rejected"]}
    assert "episode without content" in reasons["graph.json:episodes[2]"]
    assert "not a recognised timestamp" in reasons["graph.json:edges[2]"]
    assert len(records) == 5


def test_group_kind_mapping() -> None:
    records, _, _ = run(zep.convert, GRAPH, ImportOptions(scope_map={"group:": "user:"}))
    assert {r["record"]["scope"] for r in records.values()} == {"user:alice"}
