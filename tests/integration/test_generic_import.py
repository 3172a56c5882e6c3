"""A messy 10,000-row export (JSON + SQLite + CSV; Unix s/ms, naive and offset times;
preferences mixed with system logs; vectors; malformed rows) → doctor → generic import
through ``ImportSession`` into a fresh embedded container. Every row is accounted for."""

from __future__ import annotations

import csv
import json
import random
import sqlite3
import struct
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import chain
from pathlib import Path
from typing import Any

from ai_memory.bootstrap import Container
from ai_memory.migration import Converted, SourceReport, import_items
from ai_memory.migration.doctor import diagnose
from ai_memory.migration.generic import GenericImporter, GenericOptions, convert_file
from ai_memory.service.transfer import ImportSession
from tests.factories import T0, writing_of

ROWS = 10_000
SPLIT = {"json": (0, 4000), "sqlite": (4000, 7000), "csv": (7000, 10_000)}
_BASE = datetime(2025, 1, 1, tzinfo=UTC)
_TYPES = [
    ("pref", "User {u} prefers {x} replies, note {i}."),
    ("fact", "The {x} service of user {u} runs on PostgreSQL, note {i}."),
    ("todo", "Project {x} for {u}: next step is the pricing table, item {i}."),
    ("lesson", "When the {x} export times out for {u}, split it by month (case {i})."),
    ("chat", "Helped {u} draft the {x} summary, session {i}."),
]
_LOGS = [
    "[INFO] worker {i} started",
    "2025-01-01 10:00:{s:02d},123 ERROR app.db connection reset (#{i})",
    'Traceback (most recent call last):\n  File "job.py", line {i}, in run',
    '10.0.0.{s} - - [01/Jan/2025:10:00:00 +0000] "GET /v1/health HTTP/1.1" 200 {i}',
    "heartbeat ok",
]
_WORDS = ["short", "formal", "atlas", "billing", "green", "weekly", "compact", "nova"]


def _stamp(i: int) -> object:
    at = _BASE + timedelta(minutes=i)
    kind = i % 4
    if kind == 0:
        return int(at.timestamp())
    if kind == 1:
        return int(at.timestamp() * 1000)
    if kind == 2:
        return at.strftime("%Y-%m-%d %H:%M:%S")
    return at.astimezone(UTC).replace(tzinfo=None).isoformat() + "+00:00"


def _row(i: int, rng: random.Random, memories: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """(expected category, row) for row ``i``."""
    slot = i % 100
    if 60 <= slot < 75:
        text = _LOGS[i % len(_LOGS)].format(i=i, s=i % 60)
        return "system_log", {"text": text, "user_id": "svc", "type": "event", "ts": _stamp(i)}
    if 75 <= slot < 78:
        return "vector_ignored", {"text": None, "user_id": "u1", "embedding": True, "ts": _stamp(i)}
    if 78 <= slot < 81:
        bad = ["not-a-date", "2999-01-01T00:00:00Z", 86_400][slot - 78]
        return "rejected", {"text": f"Note {i} about the {rng.choice(_WORDS)} plan.", "ts": bad}
    if 81 <= slot < 83 and memories:
        return "duplicate", dict(memories[-1])
    label, template = _TYPES[i % len(_TYPES)]
    u = f"u{i % 37}"
    text = template.format(u=u, x=rng.choice(_WORDS), i=i)
    row = {"text": text, "user_id": u, "type": label, "ts": _stamp(i), "embedding": i % 2 == 0}
    memories.append(row)
    return "record", row


def build_messy_export(directory: Path) -> tuple[list[Path], Counter[str]]:
    """Write the three files; return them and the expected outcome per category."""
    rng = random.Random(7)
    expected: Counter[str] = Counter()
    files: list[Path] = []
    for fmt, (start, end) in SPLIT.items():
        memories: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        for i in range(start, end):
            category, row = _row(i, rng, memories)
            expected[category] += 1
            rows.append(row)
        files.append(_write(directory, fmt, rows))
    return files, expected


def _vector(flag: object) -> list[float] | None:
    return [0.25] * 32 if flag else None


def _write(directory: Path, fmt: str, rows: list[dict[str, Any]]) -> Path:
    if fmt == "json":
        path = directory / "agent_a.json"
        out = [{**r, "embedding": _vector(r["embedding"])} if "embedding" in r else r for r in rows]
        path.write_text(json.dumps({"memories": out}), encoding="utf-8")
        return path
    if fmt == "sqlite":
        path = directory / "agent_a.db"
        db = sqlite3.connect(path)
        db.execute(
            "CREATE TABLE memory_chunks (content TEXT, uid TEXT, kind TEXT, created_at, embed BLOB)"
        )
        db.executemany(
            "INSERT INTO memory_chunks VALUES (?, ?, ?, ?, ?)",
            [
                (
                    r["text"],
                    r.get("user_id"),
                    r.get("type"),
                    r["ts"],
                    struct.pack("32f", *v) if (v := _vector(r.get("embedding"))) else None,
                )
                for r in rows
            ],
        )
        db.commit()
        db.close()
        return path
    path = directory / "agent_a.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "user_id", "type", "ts", "embedding"])
        for r in rows:
            vector = _vector(r.get("embedding"))
            writer.writerow(
                [
                    r["text"] or "",
                    r.get("user_id") or "",
                    r.get("type") or "",
                    r["ts"],
                    json.dumps(vector) if vector else "",
                ]
            )
    return path


def converted(
    files: list[Path], options: GenericOptions, report: SourceReport
) -> Iterator[Converted]:
    importer = GenericImporter(options, notes=report.notes)
    return chain.from_iterable(convert_file(p, importer=importer) for p in files)


def test_messy_export_doctor_and_import(tmp_path: Path, container: Container) -> None:
    files, expected = build_messy_export(tmp_path)
    assert sum(expected.values()) == ROWS
    options = GenericOptions(now=T0)

    doctored = [diagnose(p, options) for p in files]
    assert sum(r.rows for r in doctored) == ROWS
    for report in doctored:
        assert report.outcome.total == report.rows
        assert report.types["preference"] > 0
        text = " | ".join(report.warnings)
        assert "system logs" in text and "mixed Unix units" in text and "rejected" in text
    assert sum(r.vector_columns["embedding"] + r.vector_columns["embed"] for r in doctored) > 0

    report = SourceReport(source="agent_a")
    session = ImportSession(writing_of(container.service), "default", source="generic")
    result = import_items(session, converted(files, options, report), report)

    assert report.total == ROWS
    assert report.converted["record"] == expected["record"]
    for category in ("system_log", "vector_ignored", "rejected", "duplicate"):
        assert report.unimported[category] == expected[category], category
    assert result.rejected == 0, result.errors[:3]
    assert result.written == expected["record"]
    accounted = result.written + result.unchanged + sum(report.unimported.values())
    assert accounted == ROWS
    assert report.notes["vector_column_dropped"] > 0
    stored = list(container.store.scan_records("default"))
    assert len(stored) == expected["record"]
    assert all(s.record.created_at.tzinfo is not None for s in stored)
    assert {s.record.type.value for s in stored} == {
        "preference",
        "fact",
        "task",
        "skill",
        "interaction",
    }

    second = SourceReport()
    again = import_items(
        ImportSession(writing_of(container.service), "default", source="generic"),
        converted(files, options, second),
        second,
    )
    assert (again.written, again.unchanged, again.rejected) == (0, expected["record"], 0)
