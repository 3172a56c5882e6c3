"""The generic importer: one Converted item per row, every row accounted for."""

from __future__ import annotations

import csv
import json
import sqlite3
import struct
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from ai_memory.migration import SourceReport, Unimported, to_bundle_lines
from ai_memory.migration.generic import GenericImporter, GenericOptions, convert_file
from ai_memory.migration.mapping import parse_map_spec
from ai_memory.migration.sources import SourceRow, read_rows

NOW = datetime(2026, 3, 12, 9, 30, tzinfo=UTC)


def convert(*rows: dict[str, Any], **kw: Any) -> list[Any]:
    importer = GenericImporter(GenericOptions(now=NOW, **kw))
    return list(importer.convert(SourceRow(f"t:{i}", r) for i, r in enumerate(rows)))


def test_a_row_becomes_a_record_line() -> None:
    (line,) = convert(
        {"text": "Alice prefers tea.", "ts": 1710235800123, "user_id": "alice", "mood": "calm"}
    )
    assert line == {
        "kind": "record",
        "record": {
            "type": "preference",
            "content": "Alice prefers tea.",
            "scope": "user:alice",
            "source_agent": "generic-import",
            "created_at": "2024-03-12T09:30:00.123000Z",
            "meta": {"source_ref": "t:0", "source_fields": {"mood": "calm"}},
        },
        "source_ref": "t:0",
    }


def test_mapping_tz_and_defaults() -> None:
    (line,) = convert(
        {"body": "Deploy window is Friday.", "when": "2024-03-12 17:30:00", "cat": "kb"},
        mapping=parse_map_spec("content=body,created_at=when,type=cat"),
        naive_tz=ZoneInfo("Asia/Shanghai"),
        default_type=None,
    )
    assert line["record"]["created_at"] == "2024-03-12T09:30:00Z"
    assert line["record"]["type"] == "fact"  # unknown label 'kb' → guessed


def test_unimported_categories() -> None:
    items = convert(
        {"text": "[INFO] worker started"},
        {"embedding": [0.1] * 32},
        {"text": "", "ts": 1},
        {"text": "Bob likes jazz.", "ts": "yesterday"},
        {"text": "Bob likes jazz.", "scope": "Not A Scope:"},
        {"text": "Carol likes tea.", "vector": b"\x00" * 64},
        {"text": "Carol likes tea."},
    )
    kinds = [i.category if isinstance(i, Unimported) else i["kind"] for i in items]
    assert kinds == [
        "system_log",
        "vector_ignored",
        "rejected",
        "rejected",
        "rejected",
        "record",
        "duplicate",
    ]
    assert "not a recognised timestamp" in items[3].reason
    assert items[4].reason.startswith("scope:")
    assert items[6].reason == "same memory as t:5"
    assert "vector" not in json.dumps(items[5]["record"])


def test_report_accounts_for_every_row_and_strips_source_refs() -> None:
    report = SourceReport()
    rows = [SourceRow("r:1", None, "not valid JSON"), SourceRow("r:2", {"text": "Dan is 30."})]
    items = GenericImporter(GenericOptions(now=NOW)).convert(rows)
    lines = list(to_bundle_lines(items, report))
    assert report.total == 2
    assert report.unimported["rejected"] == 1
    assert report.line_refs == {1: "r:2"}
    (number, text) = lines[0]
    assert number == 1 and 'source_ref":"r:2"}' in text and text.count("source_ref") == 1


def test_bundle_lines_pass_through() -> None:
    items = convert(
        {"kind": "record", "record": {"type": "fact", "content": "x", "scope": "public"}},
        {"kind": "tombstone", "id": "m1", "scope": "public"},
    )
    assert [i["kind"] for i in items] == ["record", "tombstone"]


def test_each_source_format(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(
        json.dumps({"memories": [{"text": "J1 likes tea"}, "oops"]}), encoding="utf-8"
    )
    (tmp_path / "b.jsonl").write_text('{"text": "L1 likes tea"}\n{bad\n\n', encoding="utf-8")
    with (tmp_path / "c.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerows([["text", "ts"], ["C1 likes tea", "1710235800"], ["short"]])
    db = sqlite3.connect(tmp_path / "d.db")
    db.execute("CREATE TABLE mem (content TEXT, embedding BLOB)")
    db.execute("INSERT INTO mem VALUES (?, ?)", ("S1 likes tea", struct.pack("16f", *[0.0] * 16)))
    db.execute("INSERT INTO mem VALUES (NULL, ?)", (struct.pack("16f", *[0.0] * 16),))
    db.commit()
    db.close()
    outcomes: dict[str, list[str]] = {}
    for name in ("a.json", "b.jsonl", "c.csv", "d.db"):
        items = convert_file(tmp_path / name, GenericOptions(now=NOW))
        outcomes[name] = [i.category if isinstance(i, Unimported) else "record" for i in items]
    assert outcomes == {
        "a.json": ["record", "rejected"],
        "b.jsonl": ["record", "rejected"],
        "c.csv": ["record", "rejected"],
        "d.db": ["record", "vector_ignored"],
    }
    refs = [r.ref for r in read_rows(tmp_path / "d.db")]
    assert refs == ["d.db#mem:1", "d.db#mem:2"]
