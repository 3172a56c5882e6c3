"""The ``mcpServers`` entry in docs/API.md starts a working server as written: the
official MCP client launches it (its two paths replaced) and lists the tools."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.integration.test_mcp_stdio import TOOLS

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "API.md"


def documented_entries() -> list[dict[str, Any]]:
    """Every ``ai-memory`` entry of the ``mcpServers`` JSON blocks of docs/API.md."""
    blocks = re.findall(r"```json\n(.*?)```", API_DOC.read_text(), flags=re.DOTALL)
    entries = [json.loads(b)["mcpServers"]["ai-memory"] for b in blocks if "mcpServers" in b]
    assert len(entries) == 2, "docs/API.md shows a stdio and an HTTP entry"
    return entries


def test_the_documented_stdio_entry_starts_a_server(tmp_path: Path) -> None:
    stdio, http = documented_entries()
    assert http["url"] == "http://127.0.0.1:8080/mcp"  # the gateway's default address
    command = str(stdio["command"])
    assert command.endswith("/.venv/bin/ai-memory"), command
    script = Path(sys.executable).parent / "ai-memory"
    env = {str(k): str(v) for k, v in stdio["env"].items()}
    assert set(env) == {"AIMEM_DATA_DIR"}
    env["AIMEM_DATA_DIR"] = str(tmp_path / "data")
    params = StdioServerParameters(
        command=str(script),
        args=list(stdio["args"]),
        env={**os.environ, **env},
    )
    errlog = tmp_path / "stderr.log"

    async def main() -> set[str]:
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                return {t.name for t in (await client.list_tools()).tools}

    assert anyio.run(main) == set(TOOLS)
    assert (tmp_path / "data").is_dir()
