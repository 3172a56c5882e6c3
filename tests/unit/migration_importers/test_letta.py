"""Letta agent files (.af), current and v1 schemas."""

from __future__ import annotations

import json
from pathlib import Path

from ai_memory.migration.importers import ImportOptions, letta

from .conftest import FIXTURES, run

AF = FIXTURES / "letta" / "helper.af"


def test_blocks_passages_and_messages() -> None:
    records, _, report = run(letta.convert, AF)
    types = {rid: line["record"]["type"] for rid, line in records.items()}
    assert types["letta:helper:block:human"] == "preference"
    assert types["letta:helper:block:persona"] == "fact"
    assert types["letta:helper:block:project_status"] == "task"
    assert types["letta:helper:block:lessons"] == "skill"
    assert types["letta:helper:passage:passage-0"] == "fact"
    reply = records["letta:helper:msg:message-2"]["record"]
    assert reply["content"] == "assistant: Got it - short answers from now on."
    assert reply["created_at"] == "2025-06-01T09:01:05Z"
    assert {r["record"]["scope"] for r in records.values()} == {"agent:helper"}
    assert report.unimported["vector_ignored"] == 1
    assert report.unimported["system_log"] == 4  # system + tool message, prompt, tool


def test_malformed_block_and_message_rejected_others_import() -> None:
    records, _, report = run(letta.convert, AF)
    reasons = {e["source_ref"]: e["reason"] for e in report.examples["rejected"]}
    assert "has no text value" in reasons["blocks[block-9]"]
    assert "unknown message role 'narrator'" in reasons["helper.af:agents[0].messages[4]"]
    assert len(records) == 7


def test_v1_single_agent_schema(tmp_path: Path) -> None:
    v1 = {
        "name": "old bot",
        "core_memory": [
            {"label": "human", "value": "Bob likes tea.", "created_at": "2024-01-01T00:00:00Z"}
        ],
        "messages": [],
        "created_at": "2024-01-01T00:00:00Z",
    }
    path = tmp_path / "old.af"
    path.write_text(json.dumps(v1))
    records, _, _ = run(letta.convert, path, ImportOptions(scope_map={"agent:old-bot": "user:bob"}))
    (line,) = records.values()
    assert line["record"]["scope"] == "user:bob"
    assert line["record"]["type"] == "preference"
