"""The Zep/Graphiti importer on a graph written and read back by the real graphiti-core
0.31.2 (Kuzu driver), compared model by model with Graphiti's own view."""

from __future__ import annotations

import json
from typing import Any

from ai_memory.core.timeparse import format_timestamp, parse_timestamp
from ai_memory.migration.importers import ImportOptions, zep

from .conftest import FIXTURES, run

REAL = FIXTURES / "zep_real"
TRUTH: dict[str, dict[str, Any]] = json.loads((REAL / "truth.json").read_text("utf-8"))


def _utc(value: str) -> str:
    return format_timestamp(parse_timestamp(value))


def test_every_model_matches_graphitis_own_view() -> None:
    options = ImportOptions(scope_map={"group:": "user:"})
    records, lines, report = run(zep.convert, REAL / "artefacts" / "graph.json", options)
    for uuid, truth in TRUTH.items():
        if truth["kind"] == "nodes" and not truth["summary"]:
            assert uuid not in records  # its name lives on in the facts
            continue
        line = records[uuid]
        record = line["record"]
        assert record["scope"] == f"user:{truth['group_id']}"
        if truth["kind"] == "episodes":
            assert (record["type"], record["content"]) == ("interaction", truth["content"])
            assert record["created_at"] == _utc(truth["valid_at"])
        elif truth["kind"] == "edges":
            assert (record["type"], record["content"]) == ("fact", truth["fact"])
            assert record["created_at"] == _utc(truth["valid_at"])
            invalidated = truth["invalid_at"] is not None
            assert line.get("state", "active") == ("historical" if invalidated else "active")
        else:
            assert truth["summary"] in record["content"]
    assert report.total == len(TRUTH)
    assert report.unimported["system_log"] == 1 and report.unimported["rejected"] == 0
    assert not [line for line in lines if line["kind"] == "tombstone"]
