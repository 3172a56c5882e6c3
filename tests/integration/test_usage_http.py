"""``GET /v1/usage`` on the real app over an embedded (SQLite) container: the counts
follow writes, updates and forgets exactly; the tenant's quota is reported; who may read
whose usage is enforced; the SDK and ``/metrics`` say the same."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from ai_memory.bootstrap import Container, build
from ai_memory.entrypoints.http.app import create_app
from ai_memory.sdk import AsyncMemoryClient
from ai_memory.sdk.in_process import AsyncInProcessClient, InProcessClient
from ai_memory.settings import Settings
from ai_memory.wire.usage import UsageOut
from tests.factories import FixedClock
from tests.integration.test_api_keys_http import auth, key, refused

LIMITS = '{"acme": {"max_memories": 50}}'


@pytest.fixture
def container(tmp_path: Path) -> Iterator[Container]:
    settings = Settings(data_dir=tmp_path / "data", tenant_limits=LIMITS)
    c = build(settings, clock=FixedClock())
    c.start()
    yield c
    c.close()


@pytest.fixture
def client(container: Container) -> Iterator[TestClient]:
    with TestClient(create_app(container.services)) as c:
        yield c


def usage(client: TestClient, token: str | None = None, **params: Any) -> dict[str, Any]:
    r = client.get("/v1/usage", params=params, headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = UsageOut.model_validate(r.json()).model_dump()
    return body


def put(client: TestClient, token: str | None, memory_id: str, content: str) -> int:
    body = {"type": "fact", "content": content, "scope": "user:alice", "source_agent": "a"}
    r = client.put(
        f"/v1/memories/{memory_id}?wait=true", json=body, headers=auth(token) if token else {}
    )
    assert r.status_code in (200, 201), r.text
    position: int = r.json()["position"]
    return position


def forget(client: TestClient, token: str | None, memory_id: str) -> int:
    r = client.delete(f"/v1/memories/{memory_id}?wait=true", headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    position: int = r.json()["position"]
    return position


def counted(body: dict[str, Any], position: int) -> bool:
    return any(p["position"] >= position for p in body["as_of"])


def test_usage_follows_writes_updates_and_forgets_exactly(client: TestClient) -> None:
    """Open development mode (no key yet): the deployment reads ``default``'s usage."""
    assert usage(client) == {
        "tenant": "default",
        "memories": 0,
        "bytes": 0,
        "quota": {"max_memories": None},
        "as_of": [],
    }
    contents = {"a": "tea", "b": "二十 🦜", "c": "x" * 300}
    for memory_id, content in contents.items():
        position = put(client, None, memory_id, content)
    body = usage(client)
    assert (body["memories"], body["bytes"]) == (3, sum(len(c.encode()) for c in contents.values()))
    assert counted(body, position)

    contents["b"] = "longer than before, 二"
    position = put(client, None, "b", contents["b"])
    put(client, None, "a", contents["a"])  # unchanged: nothing moves
    body = usage(client)
    assert (body["memories"], body["bytes"]) == (3, sum(len(c.encode()) for c in contents.values()))
    assert counted(body, position)

    position = forget(client, None, "c")
    del contents["c"]
    body = usage(client)
    assert (body["memories"], body["bytes"]) == (2, sum(len(c.encode()) for c in contents.values()))
    assert counted(body, position)
    assert usage(client, tenant="globex")["memories"] == 0  # the deployment may name one


def test_roles_are_enforced_and_the_quota_reported(
    client: TestClient, container: Container
) -> None:
    admin, operator = key(container, "acme", "admin"), key(container, "*", "operator")
    bound = key(container, "acme", "operator")  # an operator of acme alone
    reader, writer = key(container, "acme", "reader"), key(container, "acme", "writer")
    globex = key(container, "globex", "admin")
    put(client, writer, "a1", "abcd")
    put(client, globex, "g1", "efghij")

    own = usage(client, admin)
    assert (own["tenant"], own["memories"], own["bytes"], own["quota"]) == (
        "acme",
        1,
        4,
        {"max_memories": 50},
    )
    assert usage(client, admin, tenant="acme") == own
    assert usage(client, operator, tenant="acme") == own
    other = usage(client, operator, tenant="globex")
    assert (other["memories"], other["bytes"], other["quota"]) == (1, 6, {"max_memories": None})
    assert usage(client, bound) == own and usage(client, bound, tenant="acme") == own
    refused(client.get("/v1/usage?tenant=globex", headers=auth(bound)), 403, "tenant_forbidden")

    for token in (reader, writer):
        refused(client.get("/v1/usage", headers=auth(token)), 403, "role_forbidden")
        refused(client.get("/v1/usage?tenant=globex", headers=auth(token)), 403, "role_forbidden")
    # Another tenant: refused alike whether it exists or not.
    there = refused(
        client.get("/v1/usage?tenant=globex", headers=auth(admin)), 403, "tenant_forbidden"
    )
    nowhere = refused(
        client.get("/v1/usage?tenant=nobody", headers=auth(admin)), 403, "tenant_forbidden"
    )
    assert there["detail"] == nowhere["detail"]
    refused(client.get("/v1/usage"), 401, "api_key_required")


@pytest.mark.parametrize("tenant", ["", "Acme", "a" * 64, "-x", "a b", "*"])
def test_a_bad_tenant_is_refused_naming_the_field(
    client: TestClient, container: Container, tenant: str
) -> None:
    operator = key(container, "*", "operator")
    r = client.get("/v1/usage", params={"tenant": tenant}, headers=auth(operator))
    assert refused(r, 422, "invalid_input")["field"] == "tenant"


def test_an_operator_must_name_the_tenant(client: TestClient, container: Container) -> None:
    operator = key(container, "*", "operator")
    r = client.get("/v1/usage", headers=auth(operator))
    assert refused(r, 422, "invalid_input")["field"] == "tenant"


def test_the_sdk_and_metrics_say_the_same(client: TestClient, container: Container) -> None:
    put(client, None, "m1", "hello")
    put(client, None, "m2", "wörld")
    with InProcessClient(container) as sdk:
        got = sdk.usage()
    assert isinstance(got, UsageOut) and (got.memories, got.bytes) == (2, 5 + 6)

    text = client.get("/metrics").text
    samples = {
        (f.name, s.labels["tenant"]): s.value
        for f in text_string_to_metric_families(text)
        if f.name.startswith("aimem_tenant_")
        for s in f.samples
    }
    assert samples == {
        ("aimem_tenant_memories", "default"): 2,
        ("aimem_tenant_bytes", "default"): 11,
    }


def test_the_async_sdk_reads_usage(client: TestClient, container: Container) -> None:
    put(client, None, "m1", "hello")

    async def read() -> UsageOut:
        async with AsyncInProcessClient(container) as sdk:
            assert isinstance(sdk, AsyncMemoryClient)
            return await sdk.usage(tenant="default")

    got = anyio.run(read)
    assert (got.tenant, got.memories, got.bytes) == ("default", 1, 5)
