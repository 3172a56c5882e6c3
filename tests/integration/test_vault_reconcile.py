"""``ai-memory vault reconcile``: a restored vault backup, which holds keys destroyed
since it was taken, is brought back in line with the log — the forgotten memory and the
turn it was extracted from become unreadable again; nothing else changes."""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from ai_memory.bootstrap import build
from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.entrypoints.cli.main import app
from ai_memory.entrypoints.http.app import create_app
from ai_memory.settings import Settings
from tests.integration.test_plaintext_hunt import files_holding, memory, put


def test_a_restored_vault_backup_forgets_again(tmp_path: Path) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data, encryption="on")
    c = build(settings)
    c.start()
    place = f"Canary{uuid.uuid4().hex}"
    with TestClient(create_app(c.services)) as client:
        put(client, "keep", memory("kept", "t", "n"))
        put(client, "gone", memory("to be forgotten", "t", "n"))
        turn = {"scope": "user:alice", "source_agent": "planner", "text": f"I live in {place}."}
        r = client.post("/v1/interactions?wait=true", json=turn)
        assert r.status_code == 201, r.text
        interaction, extracted = r.json()["interaction_id"], r.json()["memories"][0]["id"]
        c.service.wait_for(c.log.last_position())
        backup = tmp_path / "vault-backup.db"
        live, copy = sqlite3.connect(data / "vault.db"), sqlite3.connect(backup)
        live.backup(copy)  # an online backup, taken before the forgets
        live.close()
        copy.close()
        assert client.delete("/v1/memories/gone?wait=true").status_code == 200
        assert client.delete(f"/v1/memories/{extracted}?wait=true").status_code == 200
    c.close()

    # Restore the backup: the destroyed keys are live again.
    for suffix in ("", "-wal", "-shm"):
        (data / f"vault.db{suffix}").unlink(missing_ok=True)
    shutil.copy(backup, data / "vault.db")
    restored = build(settings)
    assert restored.sealer is not None
    vault = restored.sealer.vault
    assert vault.get("default", memory_key_id("gone")) is not None
    restored.close()

    result = CliRunner().invoke(
        app, ["vault", "reconcile", "--data-dir", str(data)], env={"AIMEM_ENCRYPTION": "on"}
    )
    assert result.exit_code == 0, result.output
    assert "3 keys destroyed again" in result.output
    again = CliRunner().invoke(
        app, ["vault", "reconcile", "--data-dir", str(data)], env={"AIMEM_ENCRYPTION": "on"}
    )
    assert "0 keys destroyed again" in again.output  # idempotent

    after = build(settings)
    try:
        assert after.sealer is not None
        v = after.sealer.vault
        for key_id in (
            memory_key_id("gone"),
            memory_key_id(extracted),
            interaction_key_id(interaction),
        ):
            assert v.destroyed("default", key_id) and v.get("default", key_id) is None
        assert v.get("default", memory_key_id("keep")) is not None
        for tailer in after.projections.tailers:  # a replay: the forgotten stay forgotten
            tailer.rebuild()
        assert after.service.get("default", "keep").record.content == "kept"
    finally:
        after.close()
    assert files_holding(data, [place, place.lower()]) == {}


def test_a_restored_vault_backup_forgets_again_the_turns_an_erasure_named(tmp_path: Path) -> None:
    """A turn that yielded no memory has no tombstone to say its key must go: the
    erasure's ``SubjectErased`` does."""
    data = tmp_path / "data"
    settings = Settings(data_dir=data, encryption="on")
    c = build(settings)
    c.start()
    with TestClient(create_app(c.services)) as client:
        turn = {"scope": "user:bob", "source_agent": "planner", "text": "Hello, how are you?"}
        r = client.post("/v1/interactions?wait=true", json=turn)
        assert r.status_code == 201 and r.json()["memories"] == [], r.text
        interaction = r.json()["interaction_id"]
        backup = tmp_path / "vault-backup.db"
        live, copy = sqlite3.connect(data / "vault.db"), sqlite3.connect(backup)
        live.backup(copy)
        live.close()
        copy.close()
        erase = {"scope": "user:bob", "reason": "asked"}
        assert client.post("/v1/erasures?wait=true", json=erase).status_code == 201
    c.close()
    for suffix in ("", "-wal", "-shm"):
        (data / f"vault.db{suffix}").unlink(missing_ok=True)
    shutil.copy(backup, data / "vault.db")
    result = CliRunner().invoke(
        app, ["vault", "reconcile", "--data-dir", str(data)], env={"AIMEM_ENCRYPTION": "on"}
    )
    assert result.exit_code == 0, result.output
    assert "1 keys destroyed again" in result.output
    after = build(settings)
    try:
        assert after.sealer is not None
        assert after.sealer.vault.destroyed("default", interaction_key_id(interaction))
    finally:
        after.close()
