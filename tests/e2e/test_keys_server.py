"""End to end with API keys: keys created with ``ai-memory keys`` in a data directory,
the real server process on it, the CLI's client commands and ``migrate`` sending
``AIMEM_API_KEY``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest
from loadtest.cluster import free_port

from ai_memory.migration.migrate import migrate
from tests.e2e.test_server_and_cli import CLI, Server

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "migration"


def create_key(data: Path, *args: str) -> str:
    result = subprocess.run(
        [*CLI, "keys", "create", "--data-dir", str(data), "--name", "e2e", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout.strip()


def test_a_keyed_server_with_the_cli_and_migrate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    admin = create_key(data, "--tenant", "acme", "--role", "admin")
    reader = create_key(data, "--tenant", "acme", "--role", "reader", "--scopes", "user:*")
    metrics_port = free_port()
    # Keys exist before it starts: closed from the first request.
    server = Server(data, AIMEM_METRICS_PORT=str(metrics_port))
    try:
        assert httpx.get(f"{server.url}/v1/memories/x", timeout=10).status_code == 401
        # /metrics: an operator key on the API port, none on the metrics port (for a
        # scraper on the internal network), which serves nothing but metrics.
        assert httpx.get(f"{server.url}/metrics", timeout=10).status_code == 401
        scraped = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10)
        assert scraped.status_code == 200 and "aimem_http_requests" in scraped.text
        monkeypatch.delenv("AIMEM_API_KEY", raising=False)
        refused = server.cli("search", "tea", "--scope", "user:alice", check=False)
        assert refused.returncode == 1 and "api_key_required" in refused.stderr

        monkeypatch.setenv("AIMEM_API_KEY", admin)
        server.cli("write", "Alice drinks green tea.", "--scope", "user:alice", "--type", "fact")
        monkeypatch.setenv("AIMEM_API_KEY", reader)
        found = server.cli("search", "green tea", "--scope", "user:alice")
        assert "Alice drinks green tea." in found.stdout
        denied = server.cli("write", "x", "--scope", "user:alice", "--type", "fact", check=False)
        assert denied.returncode == 1 and "role_forbidden" in denied.stderr

        report = migrate(FIXTURES / "mem0", to=server.url, api_key=admin)
        assert report.imported is not None and report.ok, json.dumps(report.to_json())[:2000]
        with pytest.raises(Exception, match="HTTP 401: an API key is required"):
            migrate(FIXTURES / "mem0", to=server.url)
    finally:
        server.stop()
    assert "Traceback" not in server.log_path.read_text()
