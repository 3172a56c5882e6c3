"""The LangGraph/LangMem importer on items written by the real langgraph 1.2.24 and
langmem 0.0.30, compared item by item with the store's own view (``truth.json``)."""

from __future__ import annotations

import json
from typing import Any

from ai_memory.core.timeparse import format_timestamp, parse_timestamp
from ai_memory.migration.importers import langmem

from .conftest import FIXTURES, run

REAL = FIXTURES / "langgraph_real"
TRUTH: dict[str, dict[str, Any]] = json.loads((REAL / "truth.json").read_text("utf-8"))


def test_every_live_item_matches_the_stores_own_view() -> None:
    records, lines, report = run(langmem.convert, REAL / "artefacts" / "store_items.json")
    by_key = {r["record"]["meta"]["key"]: r["record"] for r in records.values()}
    live = {t["key"]: t for t in TRUTH.values() if not t["deleted"]}
    assert set(by_key) == set(live)
    for key, truth in live.items():
        record = by_key[key]
        value = truth["value"]
        assert record["content"] == (value.get("content") or value.get("text"))
        namespace = truth["namespace"]
        want = f"user:{namespace[1]}" if namespace[0] == "memories" else "team:data-platform"
        assert record["scope"] == want
        # SqliteStore's naive CURRENT_TIMESTAMP is UTC
        utc = format_timestamp(parse_timestamp(truth["created_at"]))
        assert record["created_at"] == utc
        assert record["meta"]["updated_at"] == format_timestamp(
            parse_timestamp(truth["updated_at"])
        )
    assert by_key["runbook-bob"]["content"].startswith("Bob's runbook: restart only")
    assert by_key["runbook-bob"]["type"] == "skill"
    # deleted items are absent from a store listing: nothing to tombstone, nothing revived
    assert not [line for line in lines if line["kind"] == "tombstone"]
    assert report.total == len(live) and report.unimported["rejected"] == 0
