"""``ai-memory vault rotate --tenant T`` on an embedded data directory: what was written
before the rotation still reads after it, and the old KEK version is gone from the
vault's files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from ai_memory.adapters.sqlite_data_key_vault import SqliteVaultRows
from ai_memory.bootstrap import build
from ai_memory.entrypoints.cli.main import app
from ai_memory.entrypoints.http.app import create_app
from ai_memory.settings import Settings


def _memory(content: str) -> dict[str, Any]:
    return {"type": "fact", "content": content, "scope": "user:alice", "source_agent": "a"}


def _rotate(data: Path, tenant: str = "default") -> Any:
    return CliRunner().invoke(
        app,
        ["vault", "rotate", "--tenant", tenant, "--data-dir", str(data)],
        env={"AIMEM_ENCRYPTION": "on"},
    )


def test_vault_rotate_keeps_every_memory_readable_and_destroys_the_old_kek(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data, encryption="on")
    c = build(settings)
    c.start()
    with TestClient(create_app(c.services)) as client:
        for i in range(3):
            r = client.put(f"/v1/memories/m{i}?wait=true", json=_memory(f"before {i}"))
            assert r.status_code in (200, 201), r.text
    c.close()
    rows = SqliteVaultRows(data / "vault.db")
    (old,) = rows.keks("default")
    rows.close()
    assert old.wrapped is not None

    result = _rotate(data)
    assert result.exit_code == 0, result.output
    assert "KEK v2" in result.output and "3 re-wrapped" in result.output, result.output
    assert "destroyed v1" in result.output, result.output
    for f in sorted(data.glob("vault.db*")):
        assert old.wrapped[12:28] not in f.read_bytes(), f

    after = build(settings)
    after.start()
    try:
        assert after.sealer is not None
        assert after.sealer.vault.kek_versions("default") == [2]
        for tailer in after.projections.tailers:  # a replay opens every old event
            tailer.rebuild()
        for i in range(3):
            assert after.service.get("default", f"m{i}").record.content == f"before {i}"
        with TestClient(create_app(after.services)) as client:
            r = client.put("/v1/memories/new?wait=true", json=_memory("after"))
            assert r.status_code in (200, 201), r.text
    finally:
        after.close()

    unknown = _rotate(data, "nobody")
    assert unknown.exit_code == 1 and "kek_not_found" in unknown.output
