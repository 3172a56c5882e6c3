"""MCP over stdio: the SDK's own client launches ``python -m ai_memory.entrypoints.cli
mcp`` on a temporary data directory and drives every tool, as an agent host would.

``exercise`` is the shared scenario (also run over streamable HTTP in ``test_mcp_http``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

TOOLS = {
    "memory_write": {"type", "content", "scope", "source_agent"},
    "memory_search": {"query"},
    "memory_read": {"id"},
    "memory_forget": {"id", "confirm"},
    "memory_export": {"scope"},
    "notes_save": {"agent", "topic", "note"},
    "notes_recall": {"agent"},
}


def text(result: CallToolResult) -> str:
    """The first text block of a tool result."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_code(result: CallToolResult) -> str:
    """The stable error code of an ``isError`` result (and a readable, trace-free text)."""
    assert result.is_error, text(result)
    assert "Traceback" not in text(result)
    assert isinstance(result.structured_content, dict)
    code = result.structured_content["error"]["code"]
    assert text(result).startswith(f"Error {code}: ")
    return str(code)


async def exercise(client: Client) -> None:
    """List, write, search, read, guarded forget, secret refusal, export, notes."""
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == set(TOOLS)
    for name, required in TOOLS.items():
        schema = listed[name].input_schema
        assert set(schema["required"]) == required, name
        assert schema["additionalProperties"] is False
        assert listed[name].description

    content = "Alice prefers answers as short bullet lists, no tables."
    memory = {"type": "preference", "content": content, "scope": "user:alice"}
    written = ok(await client.call_tool("memory_write", memory | {"source_agent": "mcp-test"}))
    memory_id = written["id"]
    assert written["status"] == "created"

    query = {"query": "how should replies be formatted", "scope": "user:alice"}
    found = ok(await client.call_tool("memory_search", query))
    assert found["results"][0]["id"] == memory_id
    assert ok(await client.call_tool("memory_read", {"id": memory_id}))["content"] == content

    refused = await client.call_tool("memory_forget", {"id": memory_id})
    assert error_code(refused) == "confirmation_required"
    assert "confirm" in text(refused) and "nothing was deleted" in text(refused)
    unconfirmed = await client.call_tool("memory_forget", {"id": memory_id, "confirm": False})
    assert error_code(unconfirmed) == "confirmation_required"
    assert ok(await client.call_tool("memory_read", {"id": memory_id}))["content"] == content

    forgotten = {"id": memory_id, "confirm": True, "reason": "test"}
    assert ok(await client.call_tool("memory_forget", forgotten))["forgotten"] is True
    gone = await client.call_tool("memory_read", {"id": memory_id})
    assert error_code(gone) == "memory_forgotten"

    leaked = "The deploy key is AKIAIOSFODNN7EXAMPLE for the billing bucket."
    secret = memory | {"content": leaked, "source_agent": "mcp-test", "id": "leak-1"}
    refusal = await client.call_tool("memory_write", secret)
    assert error_code(refusal) == "secret_detected"
    assert "AWS access key" in text(refusal) and "nothing was stored" in text(refusal)
    assert error_code(await client.call_tool("memory_read", {"id": "leak-1"})) == (
        "memory_not_found"
    )

    bundle = await client.call_tool("memory_export", {"scope": "user:alice"})
    assert ok(bundle)["truncated"] is False
    kinds = [json.loads(line)["kind"] for line in text(bundle).splitlines()]
    assert kinds == ["header", "tombstone", "trailer"]

    bad = await client.call_tool("memory_search", {"query": "x", "top_k": 0})
    assert error_code(bad) == "invalid_input"
    with pytest.raises(MCPError, match="unknown tool"):
        await client.call_tool("memory_delete_everything", {})

    await notes(client)


async def notes(client: Client) -> None:
    """Save a note, recall it three times: read counts go 0, 1, 2."""
    note = {"agent": "neo", "topic": "jobs, billing", "note": "Neo owes Alice a plain answer."}
    saved = ok(await client.call_tool("notes_save", note))
    assert saved["status"] == "created" and saved["topic"] == ["jobs", "billing"]
    counts = []
    for _ in range(3):
        page = ok(await client.call_tool("notes_recall", {"agent": "neo", "topic": "jobs"}))
        assert page["topic_notes"][0]["note"] == note["note"]
        counts.append(page["topic_notes"][0]["read_count"])
    assert counts == [0, 1, 2]
    secret = note | {"note": "login with password=hunter2"}
    assert error_code(await client.call_tool("notes_save", secret)) == "secret_detected"
    page = ok(await client.call_tool("notes_recall", {"agent": "neo", "topic": "jobs"}))
    assert page["topic_notes"][0]["note"] == note["note"]  # the refused save changed nothing


def server_params(data_dir: Path) -> StdioServerParameters:
    env = {**os.environ, "AIMEM_DATA_DIR": str(data_dir)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "ai_memory.entrypoints.cli", "mcp"], env=env
    )


def test_tools_over_stdio(tmp_path: Path) -> None:
    errlog = tmp_path / "mcp-stderr.log"

    async def main() -> None:
        with errlog.open("w") as err:
            async with Client(stdio_client(server_params(tmp_path / "data"), errlog=err)) as c:
                await exercise(c)

    anyio.run(main)
    assert "Traceback" not in errlog.read_text()


def test_stdio_server_exits_cleanly_on_eof(tmp_path: Path) -> None:
    params = server_params(tmp_path / "data")
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "eof-test", "version": "0"},
        },
    }
    proc = subprocess.run(
        [params.command, *params.args],
        input=json.dumps(init) + "\n",
        env=params.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    reply = json.loads(proc.stdout.splitlines()[0])  # stdout carries only MCP messages
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "ai-memory"


# --- API keys over stdio: AIMEM_API_KEY is the session's key ----------------------------
def keyed_params(data_dir: Path, token: str | None) -> StdioServerParameters:
    params = server_params(data_dir)
    env = {k: v for k, v in (params.env or {}).items() if k != "AIMEM_API_KEY"}
    if token is not None:
        env["AIMEM_API_KEY"] = token
    return StdioServerParameters(command=params.command, args=params.args, env=env)


def test_a_keyed_deployment_needs_a_valid_key_to_start_stdio(tmp_path: Path) -> None:
    from ai_memory.bootstrap.security import build_key_service
    from ai_memory.settings import Settings

    data = tmp_path / "data"
    keys = build_key_service(Settings(data_dir=data))
    try:
        issued = keys.create(tenant="acme", role="reader", scopes=["user:*"], name="r")
    finally:
        keys.close()
    wrong = f"aimem_{issued.key.key_id}_{'A' * 43}"
    for token in (None, "garbage", wrong):
        params = keyed_params(data, token)
        proc = subprocess.run(
            [params.command, *params.args],
            input="",
            env=params.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == ""  # no MCP session was offered
        assert "AIMEM_API_KEY" in proc.stderr and "Traceback" not in proc.stderr


def test_stdio_tools_run_as_the_key_and_a_revocation_ends_its_rights(tmp_path: Path) -> None:
    from ai_memory.adapters.sqlite_event_log import SqliteEventLog
    from ai_memory.bootstrap.security import build_key_service
    from ai_memory.serialization import AvroEventSerializer
    from ai_memory.settings import Settings

    data = tmp_path / "data"
    keys = build_key_service(Settings(data_dir=data))
    writer = keys.create(tenant="acme", role="writer", scopes=["user:alice"], name="w")
    reader = keys.create(tenant="acme", role="reader", scopes=["user:alice"], name="r")
    errlog = tmp_path / "mcp-stderr.log"
    memory = {"type": "fact", "scope": "user:alice", "source_agent": "claims-to-be-bob"}

    async def as_writer() -> None:
        with errlog.open("a") as err:
            async with Client(stdio_client(keyed_params(data, writer.token), errlog=err)) as c:
                ok(await c.call_tool("memory_write", memory | {"content": "Alice rows."}))
                outside = memory | {"scope": "team:data", "content": "Team data."}
                assert error_code(await c.call_tool("memory_write", outside)) == ("scope_forbidden")

    async def as_reader() -> None:
        with errlog.open("a") as err:
            async with Client(stdio_client(keyed_params(data, reader.token), errlog=err)) as c:
                query = {"query": "rows", "scope": "user:alice"}
                found = ok(await c.call_tool("memory_search", query))
                assert [r["content"] for r in found["results"]] == ["Alice rows."]
                denied = await c.call_tool("memory_write", memory | {"content": "x"})
                assert error_code(denied) == "role_forbidden"
                keys.revoke(reader.key.key_id)  # from another process, in effect
                await anyio.sleep(6)  # past any gateway's key cache (at most 5 s)
                gone = await c.call_tool("memory_search", query)
                assert error_code(gone) == "invalid_api_key"

    try:
        anyio.run(as_writer)
        anyio.run(as_reader)
    finally:
        keys.close()
    assert "Traceback" not in errlog.read_text()
    log = SqliteEventLog(data / "events.db", AvroEventSerializer())
    try:
        acme = [e.event for e in log.read(after=0, limit=100) if e.event.header.tenant == "acme"]
    finally:
        log.close()
    # What the writer caused records its key; a search's reinforcement is the system's.
    written = [e for e in acme if type(e).__name__ == "MemoryWritten"]
    assert written and {e.header.actor for e in written} == {f"key:{writer.key.key_id}"}
    assert all(e.record.source_agent == "claims-to-be-bob" for e in written)
