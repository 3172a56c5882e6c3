"""Safe defaults: open development mode (no API key) is refused beyond loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ai_memory.adapters.memory import KeyBacking, MemoryKeyStore
from ai_memory.entrypoints.cli.main import app, open_bind_refusal
from ai_memory.service.keys import KeyService
from tests.factories import FixedClock


def keys(with_one: bool) -> KeyService:
    service = KeyService(MemoryKeyStore(KeyBacking()), FixedClock())
    if with_one:
        service.create(tenant="acme", role="admin", scopes=["*"], name="ops")
    return service


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "[::1]", "localhost", "127.9.9.9"])
def test_loopback_may_stay_open(host: str) -> None:
    assert open_bind_refusal(keys(False), host, insecure_open=False) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "gateway.internal"])
def test_beyond_loopback_needs_a_key_or_the_explicit_flag(host: str) -> None:
    refusal = open_bind_refusal(keys(False), host, insecure_open=False)
    assert refusal is not None and "keys create" in refusal and "--insecure-open" in refusal
    assert open_bind_refusal(keys(True), host, insecure_open=False) is None
    assert open_bind_refusal(keys(False), host, insecure_open=True) is None


def test_serve_exits_with_the_reason_before_listening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    started: list[object] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: started.append(a))
    monkeypatch.setenv("AIMEM_EMBEDDER", "static")
    result = CliRunner().invoke(
        app, ["serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path / "d")]
    )
    assert result.exit_code == 2, result.output
    assert "refusing to serve" in result.output and started == []
    result = CliRunner().invoke(
        app,
        ["serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path / "d"), "--insecure-open"],
    )
    assert result.exit_code == 0, result.output
    assert len(started) == 1


def test_a_deployment_secret_closes_the_server_before_it_listens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``AIMEM_ADMIN_KEY`` (from ``ai-memory keys generate``) is adopted at start: a
    manifest can bind every interface without the open mode, and the key works."""
    import uvicorn
    from fastapi.testclient import TestClient

    from ai_memory.core.access import generate_token

    token = generate_token()
    answers: list[int] = []

    def serve_once(asgi: Any, **_: object) -> None:  # the server as it would listen
        with TestClient(asgi, base_url="http://127.0.0.1") as http:
            answers.append(http.get("/v1/memories/x").status_code)
            own = http.get("/v1/memories/x", headers={"authorization": f"Bearer {token}"})
            answers.append(own.status_code)

    monkeypatch.setattr(uvicorn, "run", serve_once)
    monkeypatch.setenv("AIMEM_EMBEDDER", "static")
    monkeypatch.setenv("AIMEM_ADMIN_TENANT", "acme")
    monkeypatch.setenv("AIMEM_ADMIN_KEY", "not-a-key")
    data = str(tmp_path / "d")
    bad = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--data-dir", data])
    assert bad.exit_code == 5 and "AIMEM_ADMIN_KEY" in bad.output and answers == []  # a bad setting
    monkeypatch.setenv("AIMEM_ADMIN_KEY", token)
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--data-dir", data])
    assert result.exit_code == 0, result.output
    assert token.split("_", 2)[2] not in result.output  # the secret is never printed
    # No key: 401; the adopted key: an admin of acme, who finds no such memory.
    assert answers == [401, 404]
