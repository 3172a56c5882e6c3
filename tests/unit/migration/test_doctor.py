"""The pre-migration health check on a small, deliberately messy file."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from typer.testing import CliRunner

from ai_memory.entrypoints.cli.main import app
from ai_memory.migration.doctor import diagnose
from ai_memory.migration.generic import GenericOptions

NOW = datetime(2026, 3, 12, 9, 30, tzinfo=UTC)
ROWS = [
    {"text": "Talked with Alice about her trip.", "type": "chat", "ts": 1710235800},
    {"text": "Helped Bob fix that thing.", "type": "chat", "ts": 1710235800123},
    {"text": "Carol asked about the plan we discussed.", "type": "chat", "ts": "2024-03-12"},
    {"text": "Mail dave@example.com, key sk-abcdefghijklmnopqrstuvwx", "type": "chat"},
    {"text": "Erin wants the DB at 10.0.0.8.", "type": "chat", "ts": "2099-01-01T00:00:00Z"},
    {"text": "Talked with Alice about her trip.", "type": "chat", "ts": 1710235800},
    {"text": "[ERROR] worker crashed", "ts": "soon"},
    {"text": "Frank said hi.", "type": "chat", "ts": 86400},
]


def write(tmp_path: Path) -> Path:
    path = tmp_path / "dump.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n", encoding="utf-8")
    return path


def test_report(tmp_path: Path) -> None:
    report = diagnose(write(tmp_path), GenericOptions(now=NOW))
    assert report.rows == 8
    assert report.outcome.total == 8
    assert dict(report.types) == {"interaction": 4}
    assert report.outcome.unimported["system_log"] == 1
    assert report.outcome.unimported["duplicate"] == 1
    assert report.outcome.unimported["rejected"] == 2  # future, before 1990
    assert dict(report.secrets) == {"email": 1, "openai_key": 1, "private_ip": 1}
    assert report.secret_examples["email"] == ["dump.jsonl:4: d***@e***.com"]
    assert report.context_refs == 2
    counts = report.timestamps
    assert counts["unix_s"] == 3 and counts["unix_ms"] == 1 and counts["missing"] == 1
    assert counts["future"] == 1 and counts["before_1990"] == 1 and counts["unparseable"] == 1
    text = " | ".join(report.warnings)
    for fragment in (
        "interaction is 100% of memories",
        "no preferences",
        "system logs",
        "secrets or personal data",
        "lean on context",
        "mixed Unix units",
        "carry no timezone",
        "duplicate",
    ):
        assert fragment in text
    assert "sk-abcdefghijklmnopqrstuvwx" not in json.dumps(report.to_json())


def test_cli_json_and_redact(tmp_path: Path) -> None:
    out = tmp_path / "clean.jsonl"
    result = CliRunner().invoke(
        app, ["doctor", str(write(tmp_path)), "--json", "--redact", str(out)]
    )
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["rows"] == 8 and body["redacted_to"] == str(out)
    cleaned = out.read_text(encoding="utf-8")
    assert "[REDACTED:email]" in cleaned and "dave@example.com" not in cleaned
    assert len(cleaned.splitlines()) == 8


def test_cli_table_output(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["doctor", str(write(tmp_path)), "--tz", "Asia/Shanghai"])
    assert result.exit_code == 0, result.output
    assert "Memory types" in result.output and "warning" in result.output
    bad = CliRunner().invoke(app, ["doctor", str(tmp_path / "missing.json")])
    assert bad.exit_code == 4  # bad local input (docs/CLI.md)
