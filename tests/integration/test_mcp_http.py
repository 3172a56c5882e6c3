"""MCP over streamable HTTP: the real server process (``ai-memory serve``) serves the
tools at ``/mcp`` next to the REST API; the SDK's streamable HTTP client drives them."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
from mcp import Client

from tests.e2e import test_server_and_cli as e2e
from tests.integration.test_mcp_stdio import exercise, ok


def test_tools_over_streamable_http(tmp_path: Path) -> None:
    server = e2e.Server(tmp_path / "data")
    try:

        async def main() -> str:
            async with Client(f"{server.url}/mcp") as client:
                await exercise(client)
                note = {"agent": "trinity", "topic": "ops", "note": "Pager rota is weekly."}
                return str(ok(await client.call_tool("notes_save", note))["id"])

        note_id = anyio.run(main)
        # The same service layer: what MCP wrote, the REST API reads.
        rest = httpx.get(f"{server.url}/v1/memories/{note_id}", timeout=10)
        assert rest.status_code == 200 and rest.json()["content"] == "Pager rota is weekly."
        assert httpx.get(f"{server.url}/healthz", timeout=10).status_code == 200
    finally:
        server.stop()
    assert "Traceback" not in server.log_path.read_text()
