"""``doctor`` and ``migrate`` read every fixture with the same reader, so they agree:
same format, same row accounting, same refusal (both CLIs run on each fixture)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ai_memory.entrypoints.cli.main import app

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "migration"
SOURCES = [
    "mem0",
    "mem0/memories.json",
    "mem0_real/artefacts",
    "mem0_real/artefacts/get_all_bob.json",
    "letta/helper.af",
    "zep/graph.json",
    "zep_real/artefacts/graph.json",
    "langmem/store_items.json",
    "langgraph_real/artefacts/store_items.json",
    "cognee/cogx_archive",
    "cognee_real/artefacts",
]


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _both(source: Path, *extra: str) -> tuple[dict[str, Any], dict[str, Any]]:
    code, doctor_out, err = _run("doctor", str(source), "--json", *extra)
    assert code == 0, err
    code, migrate_out, err = _run(
        "migrate", "--from", str(source), "--to", "unused", "--dry-run", *extra
    )
    assert code == 0, err
    return json.loads(doctor_out), json.loads(migrate_out)


@pytest.mark.parametrize("name", SOURCES)
def test_doctor_and_migrate_agree_on_every_fixture(name: str) -> None:
    doctor, migrate = _both(FIXTURES / name)
    conversion = migrate["conversion"]
    assert doctor["format"].split(" ")[0] == migrate["format"]
    assert doctor["rows"] == conversion["total"]
    assert doctor["outcome"]["converted"] == conversion["converted"]
    assert doctor["outcome"]["unimported"] == conversion["unimported"]
    assert doctor["memories"] == migrate["doctor"]["records"]
    assert doctor["tombstones"] == migrate["doctor"]["tombstones"]
    assert doctor["types"] == migrate["doctor"]["types"]


def test_a_directory_of_mem0_get_all_files_is_mem0(tmp_path: Path) -> None:
    for user in ("alice", "bob"):
        name = f"get_all_{user}.json"
        shutil.copy(FIXTURES / "mem0_real" / "artefacts" / name, tmp_path / name)
    doctor, migrate = _both(tmp_path)
    assert migrate["format"] == "mem0" and doctor["format"].startswith("mem0")
    assert migrate["conversion"]["converted"] == {"record": 34}


def test_both_refuse_a_mem0_history_without_its_owners_alike(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    shutil.copy(FIXTURES / "mem0_real" / "artefacts" / "history.db", db)
    d_code, _, d_err = _run("doctor", str(db), "--json")
    m_code, _, m_err = _run("migrate", "--from", str(db), "--to", "unused", "--dry-run")
    assert (d_code, m_code) == (2, 2)
    for err in (d_err, m_err):
        flat = " ".join(err.split())
        assert "get_all JSON files" in flat and "mem0:unknown-owner" in flat
    # and agree again once the owner is named
    doctor, migrate = _both(db, "--scope-map", "mem0:unknown-owner=user:alice")
    assert doctor["outcome"]["converted"] == migrate["conversion"]["converted"]
    assert migrate["conversion"]["converted"] == {"record": 51, "tombstone": 9}


@pytest.mark.parametrize(
    "name",
    [
        "mem0_real/artefacts",
        "langgraph_real/artefacts/store_items.json",
        "zep_real/artefacts/graph.json",
        "cognee_real/artefacts",
    ],
)
def test_artefacts_of_the_real_tools_migrate_and_verify(tmp_path: Path, name: str) -> None:
    code, out, err = _run("migrate", "--from", str(FIXTURES / name), "--to", str(tmp_path))
    assert code == 0, err
    report = json.loads(out)
    assert report["ok"] and report["accounting"]["balanced"]
    assert report["import"]["rejected"] == 0


def test_doctor_format_knows_every_importer() -> None:
    for fmt in ("mem0", "letta", "zep", "langmem", "cognee", "generic", "bundle"):
        code, _, err = _run("doctor", str(FIXTURES / "nope"), "--format", fmt)
        assert "unknown --format" not in err and code == 4  # only the path is missing
    code, _, err = _run("doctor", str(FIXTURES / "mem0"), "--format", "nonsense")
    assert code == 2 and "unknown --format" in err


def test_a_redacted_copy_is_what_migrate_would_import(tmp_path: Path) -> None:
    out = tmp_path / "redacted.ndjson"
    code, _, err = _run("doctor", str(FIXTURES / "mem0_real" / "artefacts"), "--redact", str(out))
    assert code == 0, err
    doctor, migrate = _both(out)
    assert migrate["format"] == "bundle"
    assert migrate["conversion"]["converted"] == {"record": 51, "tombstone": 9}
    assert doctor["outcome"]["converted"] == migrate["conversion"]["converted"]
