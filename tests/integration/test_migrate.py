"""``ai-memory migrate`` end to end into embedded data dirs, and verification that fails
loudly in both directions (a forgotten memory resurfacing, a preference lost)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ai_memory.bootstrap import Container
from ai_memory.entrypoints.cli.main import app
from ai_memory.migration.cogx import export_cogx
from ai_memory.migration.importers import ImportOptions
from ai_memory.migration.migrate import convert_source, import_lines, migrate
from ai_memory.migration.verify import ClientTarget, verify
from ai_memory.sdk.in_process import InProcessClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "migration"
DELETED = "8f8c1b9e-2b1d-4c59-9d9e-0a1b2c3d4e09"
PREF = "8f8c1b9e-2b1d-4c59-9d9e-0a1b2c3d4e01"


@pytest.mark.parametrize(
    "source",
    [
        "mem0",
        "letta/helper.af",
        "zep/graph.json",
        "langmem/store_items.json",
        "cognee/cogx_archive",
    ],
)
def test_migrate_each_format_into_a_data_dir(tmp_path: Path, source: str) -> None:
    report = migrate(FIXTURES / source, to=str(tmp_path / "data"))
    body = report.to_json()
    assert report.ok, json.dumps(body["checks"], indent=2)
    acc = body["accounting"]
    assert acc["balanced"]
    assert acc["import_outcomes"]["rejected"] == 0
    assert acc["source_items"] == acc["converted"] + sum(acc["not_imported"].values())
    assert [c["check"] for c in body["checks"]] == [
        "preferences",
        "tasks",
        "lessons",
        "history",
        "forgetting",
    ]


def test_mem0_report_evidence_and_idempotent_rerun(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    first = migrate(FIXTURES / "mem0", to=data).to_json()
    checks = {c["check"]: c for c in first["checks"]}
    assert checks["forgetting"]["checked"] == 1
    assert checks["forgetting"]["evidence"] == "1 of 1 source deletions answer 410 on the target"
    assert checks["preferences"]["checked"] == 1
    # the history-only memory names no owner: refused at conversion, not placed anywhere
    assert first["import"]["written"] == 3 and first["import"]["tombstones_applied"] == 1
    again = migrate(FIXTURES / "mem0", to=data).to_json()
    assert again["ok"] and again["import"]["written"] == 0
    assert again["import"]["unchanged"] == 4


def _lines(source: str) -> list[dict[str, Any]]:
    _, _, lines, _ = convert_source(FIXTURES / source, "auto", ImportOptions())
    return lines


def test_a_forgotten_memory_that_resurfaces_fails_the_check(container: Container) -> None:
    lines = _lines("mem0")
    # A target that never got the tombstone and holds the deleted memory again.
    crafted = [line for line in lines if line["kind"] != "tombstone"]
    crafted.append(
        {
            "kind": "record",
            "record": {
                "id": DELETED,
                "type": "fact",
                "content": "Is allergic to peanuts",
                "scope": "user:alice",
                "source_agent": "old-tool",
            },
        }
    )
    import_lines(InProcessClient(container, actor="migrate"), crafted, "bundle", None)
    checks = {c.key: c for c in verify(ClientTarget(InProcessClient(container)), lines)}
    forgetting = checks["forgetting"]
    assert not forgetting.passed
    assert forgetting.failures[0]["id"] == DELETED
    assert forgetting.failures[0]["problem"] == "GET answered 200, expected 410"
    assert forgetting.failures[0]["content"] == "Is allergic to peanuts"
    assert checks["preferences"].passed


def test_a_lost_preference_fails_the_check(container: Container) -> None:
    lines = _lines("mem0")
    lossy = [line for line in lines if (line.get("record") or {}).get("id") != PREF]
    import_lines(InProcessClient(container, actor="migrate"), lossy, "bundle", None)
    checks = {c.key: c for c in verify(ClientTarget(InProcessClient(container)), lines)}
    preferences = checks["preferences"]
    assert not preferences.passed
    assert preferences.failures == [
        {
            "id": PREF,
            "problem": "GET answered 404",
            "content": "Prefers answers as short bullet lists, no tables",
        }
    ]
    assert preferences.to_json()["result"] == "fail"
    assert checks["forgetting"].passed


def test_cogx_round_trip_keeps_ids_types_and_forgetting(
    tmp_path: Path, container: Container
) -> None:
    lines = _lines("langmem/store_items.json")
    import_lines(InProcessClient(container, actor="migrate"), lines, "langmem", None)
    exported = export_cogx(container.service, "default", tmp_path / "out", pack=True)
    assert exported.counts == {"memory": 3, "ai_memory_tombstone": 1}
    assert exported.archive is not None
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["cogx_version"] == "0.1"
    report = migrate(exported.archive, to=str(tmp_path / "other"))
    assert report.ok, report.to_json()["checks"]
    ids = {line["record"]["id"] for line in lines if line["kind"] == "record"}
    _, _, back, _ = convert_source(exported.archive, "auto", ImportOptions())
    assert {line["record"]["id"] for line in back if line["kind"] == "record"} == ids
    assert [line["kind"] for line in back].count("tombstone") == 1


def test_cli_migrate_dry_run_and_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    data = str(tmp_path / "data")
    result = runner.invoke(
        app, ["migrate", "--from", str(FIXTURES / "letta" / "helper.af"), "--to", data]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] and report["format"] == "letta"
    dry = runner.invoke(
        app,
        [
            "migrate",
            "--from",
            str(FIXTURES / "zep" / "graph.json"),
            "--to",
            data,
            "--dry-run",
            "--scope-map",
            "group:=user:",
        ],
    )
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["doctor"]["types"] == {"interaction": 2, "fact": 3}
    bad = runner.invoke(app, ["migrate", "--from", str(tmp_path), "--to", data])
    assert bad.exit_code == 2
    assert (
        runner.invoke(app, ["migrate", "--from", ".", "--to", data, "--format", "x"]).exit_code == 2
    )
