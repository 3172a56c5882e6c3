"""One secret policy, every door: the same inputs get the same decision through HTTP PUT,
the HTTP batch, the HTTP import, an MCP tool call and the in-process SDK — refused with
``secret_detected`` naming the same field, stored with the same redactions, or stored as
sent — because each of them reaches the same service gate."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from ai_memory.bootstrap import Container
from ai_memory.core.secrets import SecretPolicy
from ai_memory.entrypoints.mcp.server import build_server
from ai_memory.sdk import InvalidInputError, MemoryIn
from ai_memory.sdk.in_process import InProcessClient
from tests.factories import use_secret_policy

BASE = {"type": "fact", "scope": "user:alice", "source_agent": "parity"}
INPUTS: dict[str, dict[str, Any]] = {
    "clean": {"content": "Alice prefers green tea.", "tags": ["drinks"]},
    "key in content": {"content": "deploy key AKIAIOSFODNN7EXAMPLE, bucket logs"},
    "dsn in content": {"content": "db is postgres://app:Sup3rS3cret@db.internal/prod"},
    "token in tags": {"content": "CI setup", "tags": ["ci", "glpat-xYz12AbC3dEf45GhIj6K"]},
    "password assignment": {"content": "login with password=hunter22 on staging"},
}
SECRETS = ("AKIAIOSFODNN7EXAMPLE", "Sup3rS3cret", "glpat-xYz12AbC3dEf45GhIj6K", "hunter22")

# A decision: ("refused", field) or ("stored", content, tags, redacted fields).
Decision = tuple[Any, ...]


def stored(container: Container, memory_id: str, redacted: Any) -> Decision:
    record = container.service.get("default", memory_id).record
    return ("stored", record.content, record.tags, tuple(redacted or ()))


def via_put(
    container: Container, http: TestClient, memory_id: str, body: dict[str, Any]
) -> Decision:
    r = http.put(f"/v1/memories/{memory_id}?wait=true", json=body)
    if r.status_code == 422:
        problem = r.json()
        assert problem["code"] == "secret_detected", problem
        return ("refused", problem["field"])
    assert r.status_code in (200, 201), r.text
    return stored(container, memory_id, r.json().get("redacted"))


def via_batch(
    container: Container, http: TestClient, memory_id: str, body: dict[str, Any]
) -> Decision:
    r = http.post("/v1/memories:batch?wait=true", json={"items": [{**body, "id": memory_id}]})
    assert r.status_code == 200, r.text
    (item,) = r.json()["results"]
    if item["status"] == 422:
        assert item["problem"]["code"] == "secret_detected", item
        return ("refused", item["problem"]["field"].removeprefix("items[0]."))
    return stored(container, memory_id, item.get("redacted"))


def via_import(
    container: Container, http: TestClient, memory_id: str, body: dict[str, Any]
) -> Decision:
    line = json.dumps({**body, "id": memory_id})
    headers = {"content-type": "application/x-ndjson"}
    r = http.post("/v1/import?wait=true", content=line.encode(), headers=headers)
    assert r.status_code == 200, r.text
    report = r.json()
    if report["rejected"]:
        (error,) = report["errors"]
        assert error["code"] == "secret_detected", error
        return ("refused", error["field"])
    # An import reports how many lines were redacted, not which fields: the stored record
    # says which (compared with what the other doors answered below).
    got = stored(container, memory_id, None)
    return (*got[:3], _redacted_fields(got[1], got[2])) if report["redacted"] else got


def via_mcp(
    container: Container, http: TestClient, memory_id: str, body: dict[str, Any]
) -> Decision:
    async def call() -> Any:
        async with Client(build_server(container.services), mode="legacy") as client:
            return await client.call_tool("memory_write", {**body, "id": memory_id})

    result = anyio.run(call)
    data = result.structured_content
    assert isinstance(data, dict)
    if result.is_error:
        assert data["error"]["code"] == "secret_detected", data
        return ("refused", data["error"]["field"])
    return stored(container, memory_id, data.get("redacted"))


def via_sdk(
    container: Container, http: TestClient, memory_id: str, body: dict[str, Any]
) -> Decision:
    sdk = InProcessClient(container)
    try:
        out = sdk.upsert(memory_id, MemoryIn.model_validate(body), wait=True)
    except InvalidInputError as e:
        assert e.code == "secret_detected"
        return ("refused", e.field)
    return stored(container, memory_id, out.redacted)


def _redacted_fields(content: str, tags: tuple[str, ...]) -> tuple[str, ...]:
    fields = ["content"] if "[REDACTED:" in content else []
    return (*fields, *(["tags"] if any("[REDACTED:" in t for t in tags) else []))


DOORS: dict[str, Callable[[Container, TestClient, str, dict[str, Any]], Decision]] = {
    "http_put": via_put,
    "http_batch": via_batch,
    "http_import": via_import,
    "mcp": via_mcp,
    "sdk": via_sdk,
}


@pytest.mark.parametrize("policy", ["refuse", "redact", "allow"])
def test_every_door_decides_alike(
    container: Container, client: TestClient, policy: SecretPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_secret_policy(monkeypatch, container, policy)
    for i, (name, fields) in enumerate(INPUTS.items()):
        body = BASE | fields
        decisions = {
            door: call(container, client, f"{policy}-{door}-{i}", body)
            for door, call in DOORS.items()
        }
        assert len(set(decisions.values())) == 1, (policy, name, decisions)
        (decision,) = set(decisions.values())
        if name == "clean" or policy == "allow":
            assert decision[0] == "stored" and decision[3] == (), (name, decision)
        elif policy == "refuse":
            assert decision == ("refused", "tags" if name == "token in tags" else "content")
        else:
            assert decision[0] == "stored" and decision[3], (name, decision)
            assert not any(s in json.dumps(decision) for s in SECRETS), decision
