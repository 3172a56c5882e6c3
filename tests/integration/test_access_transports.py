"""Each transport passes its caller through to the services, which decide (the rules
themselves are attacked in tests/service/test_access_matrix.py): over REST, MCP over
HTTP, A2A and an MCP stdio session, a reader key cannot write, and a key of one tenant
does not find another tenant's memory (A2A has no read by id: its search).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from ai_memory.bootstrap import Container
from ai_memory.entrypoints.http.app import create_app
from ai_memory.entrypoints.mcp.server import build_server

FACT = {"type": "fact", "content": "acme's secret plan", "scope": "user:alice", "source_agent": "a"}


@pytest.fixture
def tokens(container: Container) -> dict[str, str]:
    """A reader of acme, and an admin of globex; acme holds the memory ``plan``."""
    keys = container.services.keys
    assert keys is not None
    container.service.write("acme", FACT, memory_id="plan", wait=True)
    reader = keys.create(tenant="acme", role="reader", scopes=["*"], name="r")
    other = keys.create(tenant="globex", role="admin", scopes=["*"], name="g")
    return {"reader": reader.token, "other": other.token}


@pytest.fixture
def http(container: Container) -> Iterator[TestClient]:
    with TestClient(create_app(container.services)) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def nothing_written(container: Container) -> None:
    assert [s.record.id for s in container.store.scan_records("acme")] == ["plan"]


def test_rest(http: TestClient, container: Container, tokens: dict[str, str]) -> None:
    r = http.post("/v1/memories", json=FACT, headers=bearer(tokens["reader"]))
    assert (r.status_code, r.json()["code"]) == (403, "role_forbidden")
    assert http.get("/v1/memories/plan", headers=bearer(tokens["reader"])).status_code == 200
    r = http.get("/v1/memories/plan", headers=bearer(tokens["other"]))
    assert (r.status_code, r.json()["code"]) == (404, "memory_not_found")
    nothing_written(container)


def mcp_tool(http: TestClient, token: str, name: str, arguments: dict[str, Any]) -> Any:
    headers = bearer(token) | {"Accept": "application/json, text/event-stream"}
    r = http.post(
        "/mcp", json=rpc("tools/call", {"name": name, "arguments": arguments}), headers=headers
    )
    assert r.status_code == 200, r.text
    return r.json()["result"]["structuredContent"]


def test_mcp_over_http(http: TestClient, container: Container, tokens: dict[str, str]) -> None:
    refused = mcp_tool(http, tokens["reader"], "memory_write", FACT)
    assert refused["error"]["code"] == "role_forbidden"
    assert mcp_tool(http, tokens["reader"], "memory_read", {"id": "plan"})["id"] == "plan"
    elsewhere = mcp_tool(http, tokens["other"], "memory_read", {"id": "plan"})
    assert elsewhere["error"]["code"] == "memory_not_found"
    nothing_written(container)


def a2a_skill(http: TestClient, token: str, data: dict[str, Any]) -> Any:
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"data": data}]}
    headers = bearer(token) | {"A2A-Version": "1.0"}
    r = http.post("/a2a", json=rpc("SendMessage", {"message": message}), headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["result"]["message"]["parts"][0]["data"]


def test_a2a(http: TestClient, container: Container, tokens: dict[str, str]) -> None:
    refused = a2a_skill(http, tokens["reader"], {"skill": "memory.write", **FACT})
    assert refused["error"]["code"] == "role_forbidden"
    search = {"skill": "memory.search", "query": "secret plan"}
    found = a2a_skill(http, tokens["reader"], search)
    assert [hit["id"] for hit in found["results"]] == ["plan"]
    elsewhere = a2a_skill(http, tokens["other"], search)
    assert elsewhere["results"] == [] and "acme" not in str(elsewhere)
    nothing_written(container)


def test_mcp_stdio_session(container: Container, tokens: dict[str, str]) -> None:
    keys = container.services.keys
    assert keys is not None

    def session_of(token: str) -> Any:
        return build_server(container.services, session_caller=lambda: keys.authenticate(token))

    async def main() -> None:
        async with Client(session_of(tokens["reader"])) as reader:
            refused = await reader.call_tool("memory_write", FACT)
            assert refused.is_error and refused.structured_content is not None
            assert refused.structured_content["error"]["code"] == "role_forbidden"
            read = await reader.call_tool("memory_read", {"id": "plan"})
            assert not read.is_error
        async with Client(session_of(tokens["other"])) as other:
            elsewhere = await other.call_tool("memory_read", {"id": "plan"})
            assert elsewhere.structured_content is not None
            assert elsewhere.structured_content["error"]["code"] == "memory_not_found"

    anyio.run(main)
    nothing_written(container)


def test_every_transport_answers_the_tenants_own_position_tokens(
    http: TestClient, container: Container
) -> None:
    """A write over REST, MCP or A2A answers acme's token of its log position — not the
    position, which counts every tenant's events — and a read with ``min_position`` of
    that token works over REST; globex giving acme's token is refused as beyond the head."""
    keys = container.services.keys
    assert keys is not None
    acme = keys.create(tenant="acme", role="writer", scopes=["*"], name="w").token
    globex = keys.create(tenant="globex", role="admin", scopes=["*"], name="g").token
    rest = http.post("/v1/memories?wait=true", json=FACT, headers=bearer(acme)).json()
    mcp = mcp_tool(http, acme, "memory_write", FACT)
    a2a = a2a_skill(http, acme, {"skill": "memory.write", **FACT})
    # A2A data parts are protobuf Structs: numbers arrive as doubles, exact below 2**53.
    tokens = [int(rest["position"]), int(mcp["position"]), int(a2a["position"])]
    positions = container.services.positions
    logged = [positions.taken("acme", t) for t in tokens]
    assert logged == sorted(logged) and len(set(logged)) == 3  # three writes, in order
    assert all(t != p for t, p in zip(tokens, logged, strict=True))  # never the position
    assert [positions.shown("acme", p) for p in logged] == tokens
    for token in tokens:
        read = http.get("/v1/memories", params={"min_position": token}, headers=bearer(acme))
        assert read.status_code == 200, read.text
        stolen = http.get("/v1/memories", params={"min_position": token}, headers=bearer(globex))
        assert (stolen.status_code, stolen.json()["code"]) == (422, "position_beyond_head")
