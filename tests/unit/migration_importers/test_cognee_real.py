"""The cognee importer on a COGX archive written by the real cognee 1.6.5, compared
record by record with the archive cognee wrote (its own view of the graph)."""

from __future__ import annotations

import json

from ai_memory.migration.importers import ImportOptions, cognee

from .conftest import FIXTURES, run

ARCHIVE = FIXTURES / "cognee_real" / "artefacts"


def _rows(name: str) -> list[dict[str, object]]:
    return [json.loads(x) for x in (ARCHIVE / name).read_text("utf-8").splitlines() if x]


def test_every_record_matches_what_cognee_wrote() -> None:
    options = ImportOptions(default_scope="user:alice")
    records, _, report = run(cognee.convert, ARCHIVE, options)
    manifest = json.loads((ARCHIVE / "manifest.json").read_text("utf-8"))
    by_external = {r["record"]["meta"]["external_id"]: r for r in records.values()}
    for entity in _rows("entities.jsonl"):
        record = by_external[entity["external_id"]]["record"]
        assert record["content"] == f"{entity['name']}: {entity['description']}"
        assert record["scope"] == "user:alice"  # cognee wrote no owner: the chosen default
    for fact in _rows("facts.jsonl"):
        line = by_external[fact["external_id"]]
        assert line["record"]["content"] == fact["fact_text"]
        historical = fact.get("invalid_at") is not None
        assert line.get("state", "active") == ("historical" if historical else "active")
        if fact.get("valid_at"):  # no created_at in cognee's facts: dated by validity
            assert line["record"]["created_at"] == fact["valid_at"]
    counts = manifest["counts"]
    assert len(records) == counts["entity"] + counts["fact"]
    assert report.unimported["system_log"] == counts["raw_node"]
    assert report.unimported["rejected"] == 0
