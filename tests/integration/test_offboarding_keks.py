"""Tenant offboarding destroys the tenant's KEKs (docs/design/FORGETTING.md, "Rotation and
offboarding"): after an ``everything`` erasure the vault holds no KEK of the tenant — no
file of the data directory holds a byte of its wrapped KEK — its receipt names the KEK
versions and each key's own destruction time, a new write of the tenant gets a fresh KEK
with a higher version, and a vault backup restored afterwards is brought back in line by
``vault reconcile``, which destroys the offboarded versions again (and only those)."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from ai_memory.adapters.sqlite_data_key_vault import SqliteVaultRows
from ai_memory.bootstrap import Container, build
from ai_memory.core.data_keys import memory_key_id
from ai_memory.core.errors import Unavailable
from ai_memory.entrypoints.cli.main import app
from ai_memory.entrypoints.http.app import create_app
from ai_memory.sdk.receipts import load_public_key, verify_document
from ai_memory.settings import Settings

TENANT = "leaving"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", encryption="on")


@pytest.fixture
def started(settings: Settings) -> Iterator[tuple[Container, TestClient]]:
    c = build(settings)
    c.start()
    with TestClient(create_app(c.services)) as client:
        yield c, client
    c.close()


def _put(client: TestClient, headers: dict[str, str], memory_id: str, content: str) -> None:
    body = {"type": "fact", "content": content, "scope": "user:x", "source_agent": "a"}
    r = client.put(f"/v1/memories/{memory_id}?wait=true", json=body, headers=headers)
    assert r.status_code in (200, 201), r.text


def _kek_bytes(data: Path) -> list[bytes]:
    rows = SqliteVaultRows(data / "vault.db")
    try:
        return [k.wrapped for k in rows.keks(TENANT) if k.wrapped is not None]
    finally:
        rows.close()


def _files_holding(data: Path, needles: list[bytes]) -> list[str]:
    return [
        str(f)
        for f in sorted(data.glob("**/*"))
        if f.is_file() and any(n in f.read_bytes() for n in needles)
    ]


def test_offboarding_destroys_every_kek_of_the_tenant(
    started: tuple[Container, TestClient], settings: Settings, tmp_path: Path
) -> None:
    c, client = started
    keys = c.services.keys
    assert keys is not None and c.sealer is not None
    vault = c.sealer.vault
    token = keys.create(tenant=TENANT, role="admin", scopes=["*"], name="admin").token
    leaving = {"Authorization": f"Bearer {token}"}
    _put(client, leaving, "l-1", "before the rotation")
    vault.add_kek_version(TENANT)  # two live versions: a rotation under way
    _put(client, leaving, "l-2", "after it")
    turn = {"scope": "team:ops", "source_agent": "b", "text": "Hello there"}
    r = client.post("/v1/interactions?wait=true", json=turn, headers=leaving)
    assert r.status_code == 201, r.text
    wrapped = _kek_bytes(settings.data_dir)
    assert len(wrapped) == 2 and _files_holding(settings.data_dir, wrapped)
    backup = tmp_path / "vault-backup.db"
    live, copy = sqlite3.connect(settings.data_dir / "vault.db"), sqlite3.connect(backup)
    live.backup(copy)  # taken before the offboarding
    live.close()
    copy.close()

    r = client.post(
        "/v1/erasures?wait=true",
        json={"everything": True, "reason": "tenant offboarded", "erasure_id": "era-off"},
        headers=leaving,
    )
    assert r.status_code == 201, r.text
    c.service.wait_for(c.log.last_position())
    assert vault.kek_versions(TENANT) == []
    assert vault.kek_versions(TENANT, include_destroyed=True) == [1, 2]
    needles = [w[12:28] for w in wrapped]  # not even a part of a wrapped KEK
    assert _files_holding(settings.data_dir, needles) == []

    document = client.get("/v1/erasures/era-off", headers=leaving).json()
    pem = client.get("/v1/erasures/public-key", headers=leaving).json()["pem"]
    receipt = verify_document(document, load_public_key(pem))
    assert receipt["keys"]["kek_versions_destroyed"] == [1, 2]
    assert receipt["verification"]["passed"] is True
    assert receipt["verification"]["kek_versions_live"] == []
    per_key: list[dict[str, Any]] = receipt["keys"]["destroyed"]
    assert [k["key_id"] for k in per_key] == receipt["keys"]["key_ids"]
    assert memory_key_id("l-1") in receipt["keys"]["key_ids"]
    for entry in per_key:  # each key's own time, no later than the time all were gone
        assert entry["destroyed_at"] is not None, entry
        assert entry["destroyed_at"] <= receipt["keys"]["destroyed_at"], entry

    # The tenant writes again: a fresh KEK, numbered above the destroyed ones.
    _put(client, leaving, "l-3", "a new start")
    assert client.get("/v1/memories/l-3", headers=leaving).json()["content"] == "a new start"
    assert vault.kek_versions(TENANT) == [3]

    # A vault backup restored after the offboarding holds the wrapped KEKs again …
    c.close()
    for suffix in ("", "-wal", "-shm"):
        (settings.data_dir / f"vault.db{suffix}").unlink(missing_ok=True)
    shutil.copy(backup, settings.data_dir / "vault.db")
    assert _kek_bytes(settings.data_dir) == wrapped
    result = CliRunner().invoke(
        app,
        ["vault", "reconcile", "--data-dir", str(settings.data_dir)],
        env={"AIMEM_ENCRYPTION": "on"},
    )
    assert result.exit_code == 0, result.output
    assert "leaving KEK v1" in result.output and "leaving KEK v2" in result.output
    # … until reconcile destroys the versions the offboarding named.
    assert _kek_bytes(settings.data_dir) == []
    assert _files_holding(settings.data_dir, needles) == []


def test_an_offboarding_killed_between_two_kek_destroys_finishes_when_asked_again(
    settings: Settings,
) -> None:
    c = build(settings)
    c.start()
    try:
        erasures, keys = c.services.erasures, c.services.keys
        assert erasures is not None and erasures.vault is not None and keys is not None
        assert c.sealer is not None
        vault, real = c.sealer.vault, erasures.vault
        token = keys.create(tenant=TENANT, role="admin", scopes=["*"], name="admin").token
        leaving = {"Authorization": f"Bearer {token}"}

        def destroy_once_then_die(tenant: str, version: int) -> None:
            real.destroy_kek(tenant, version)
            raise Unavailable("killed after the first KEK destroy")

        request = {"everything": True, "reason": "offboarded", "erasure_id": "era-kill"}
        with TestClient(create_app(c.services), raise_server_exceptions=False) as client:
            _put(client, leaving, "l-1", "one")
            vault.add_kek_version(TENANT)
            _put(client, leaving, "l-2", "two")
            erasures.vault = dataclasses.replace(real, destroy_kek=destroy_once_then_die)
            first = client.post("/v1/erasures", json=request, headers=leaving)
            assert first.status_code == 503, first.text
            assert vault.kek_versions(TENANT) == [2]
            erasures.vault = real
            again = client.post("/v1/erasures?wait=true", json=request, headers=leaving)
            assert again.status_code == 201, again.text
            receipt = client.get("/v1/erasures/era-kill", headers=leaving).json()["receipt"]
        assert vault.kek_versions(TENANT) == []
        # The run that finished names the version the killed one destroyed too.
        assert receipt["keys"]["kek_versions_destroyed"] == [1, 2]
        assert receipt["verification"]["passed"] is True
    finally:
        c.close()
