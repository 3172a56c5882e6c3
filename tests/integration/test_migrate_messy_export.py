"""The story that started the project: a 10,000-row messy export (JSON + SQLite + CSV, Unix
seconds and milliseconds, naive and offset timestamps, preferences mixed with system logs,
vectors, malformed rows) migrates with one command, and the report accounts for every
row. Timing is measured in loadtest/RESULTS.md, not asserted here."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ai_memory.entrypoints.cli.main import app
from tests.integration.test_generic_import import ROWS, build_messy_export


def test_a_messy_export_migrates_with_one_command(tmp_path: Path) -> None:
    export = tmp_path / "agent-a-export"
    export.mkdir()
    files, expected = build_messy_export(export)
    assert len(files) == 3 and sum(expected.values()) == ROWS

    result = CliRunner().invoke(
        app, ["migrate", "--from", str(export), "--to", str(tmp_path / "target")]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout[result.stdout.index("{") :])
    accounting = report["accounting"]
    assert report["format"] == "generic"
    assert accounting["source_items"] == ROWS and accounting["balanced"]
    outcomes = accounting["import_outcomes"]
    assert outcomes["written"] == expected["record"] and outcomes["rejected"] == 0
    not_imported = accounting["not_imported"]
    for category in ("system_log", "vector_ignored", "rejected", "duplicate"):
        assert not_imported.get(category, 0) == expected[category], category
    assert [c["result"] for c in report["checks"]] == ["pass"] * 5, report["checks"]
