"""An erasure whose key destroy failed after its tombstone, asked again, destroys it.

The tombstone is durable before the key is destroyed (docs/design/FORGETTING.md), so a vault
that fails in between leaves a forgotten memory whose key outlives it. The same request
(same ``erasure_id``) must destroy that key too — the memory is already forgotten, so
the ordinary forget appends nothing and would not — and its receipt then reports every
key destroyed and no byte of the canary left in the data directory.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import build
from ai_memory.core.data_keys import memory_key_id
from ai_memory.core.errors import Unavailable
from ai_memory.entrypoints.http.app import create_app
from ai_memory.settings import Settings
from tests.integration.hunt_support import files_holding


def test_a_retried_erasure_destroys_the_key_a_failed_destroy_left(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", encryption="on")
    c = build(settings)
    c.start()
    assert c.sealer is not None
    vault = c.sealer.vault
    canaries = {f"m-{i}": f"RetryCanary{uuid.uuid4().hex}" for i in range(3)}
    real_destroy = vault.destroy
    failing = {memory_key_id("m-1")}

    def destroy(tenant: str, key_id: str) -> None:
        if key_id in failing:
            failing.discard(key_id)
            raise Unavailable("the vault is down")
        real_destroy(tenant, key_id)

    vault.destroy = destroy  # type: ignore[method-assign]
    request: dict[str, Any] = {"scope": "user:x", "reason": "asked", "erasure_id": "era-retry"}
    try:
        with TestClient(create_app(c.services), raise_server_exceptions=False) as client:
            for memory_id, text in canaries.items():
                body = {"type": "fact", "content": text, "scope": "user:x", "source_agent": "a"}
                r = client.put(f"/v1/memories/{memory_id}?wait=true", json=body)
                assert r.status_code == 201, r.text
            first = client.post("/v1/erasures", json=request)
            assert first.status_code == 503, first.text
            assert first.headers["content-type"].startswith("application/problem+json")
            assert not vault.destroyed("default", memory_key_id("m-1"))

            again = client.post("/v1/erasures?wait=true", json=request)
            assert again.status_code == 201, again.text
            assert again.json()["memories"] == 3, again.json()
            receipt = client.get("/v1/erasures/era-retry").json()["receipt"]
            assert receipt["verification"]["keys_live"] == []
            assert receipt["verification"]["passed"] is True
            assert sorted(receipt["erased"]["memory_ids"]) == sorted(canaries)
        c.service.wait_for(c.log.last_position())
        c.index.flush()
    finally:
        c.close()
    assert files_holding(settings.data_dir, list(canaries.values())) == {}


def test_an_erasure_reaches_writes_no_projection_has_applied_yet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The subject is read from the log: memories acknowledged before the erasure but
    not yet applied by the record projection (a projector worker far behind, or a write
    parked as a dead letter; here the projection's scan answers nothing) are erased."""
    settings = Settings(data_dir=tmp_path / "data", encryption="on")
    c = build(settings)
    c.start()
    canaries = {f"fresh-{i}": f"FreshCanary{uuid.uuid4().hex}" for i in range(40)}
    try:
        with TestClient(create_app(c.services)) as client:
            items = [
                {"id": m, "type": "fact", "content": t, "scope": "user:new", "source_agent": "a"}
                for m, t in canaries.items()
            ]
            r = client.post("/v1/memories:batch?wait=true", json={"items": items})
            assert r.status_code == 200 and r.json()["written"] == 40, r.text
            with monkeypatch.context() as lagging:
                lagging.setattr(c.store, "scan_records", lambda *a, **k: iter(()))
                erased = client.post(
                    "/v1/erasures",
                    json={"scope": "user:new", "reason": "asked", "erasure_id": "era-fresh"},
                )
            assert erased.status_code == 201, erased.text
            assert erased.json()["memories"] == 40, erased.json()
            c.service.wait_for(c.log.last_position())
            for memory_id in canaries:
                assert client.get(f"/v1/memories/{memory_id}").status_code in (404, 410)
        c.index.flush()
    finally:
        c.close()
    assert files_holding(settings.data_dir, list(canaries.values())) == {}
