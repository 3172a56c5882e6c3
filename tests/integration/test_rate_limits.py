"""Rates and quotas per tenant and per key, over the real HTTP app on an embedded
container. The buckets run on a hand-moved monotonic clock, so nothing here sleeps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container, build
from ai_memory.core.access.rate import NS, RateLimiter
from ai_memory.entrypoints.http.app import create_app
from ai_memory.sdk import MemoryClient, RetryPolicy
from ai_memory.service.quotas import MemoryQuota
from ai_memory.settings import Settings
from tests.factories import FixedClock

PROBLEM = "application/problem+json"
LIMITS = {
    "acme": {"rate": 5, "burst": 5, "key_rate": 1, "key_burst": 3},
    "globex": {"rate": 5, "burst": 5, "key_rate": 1, "key_burst": 3},
    "quota": {"max_memories": 2, "rate": 0, "key_rate": 0},
    "small": {"max_request_bytes": 2048, "rate": 0, "key_rate": 0},
}


class Ticker:
    """The buckets' monotonic clock (ns), moved by hand — or by the SDK's sleep."""

    def __init__(self) -> None:
        self.now = 1_000 * NS

    def __call__(self) -> int:
        return self.now

    def seconds(self) -> float:
        return self.now / NS

    def sleep(self, seconds: float) -> None:
        self.now += round(seconds * NS)


@pytest.fixture
def ticker() -> Ticker:
    return Ticker()


@pytest.fixture
def container(tmp_path: Path, clock: FixedClock) -> Iterator[Container]:
    settings = Settings(
        data_dir=tmp_path / "data",
        tenant_rate=3,
        tenant_burst=3,
        key_rate=100,
        key_burst=100,
        tenant_limits=json.dumps(LIMITS),
    )
    c = build(settings, clock=clock)
    c.start()
    yield c
    c.close()


@pytest.fixture
def client(container: Container, ticker: Ticker) -> Iterator[TestClient]:
    rates = container.services.rates
    assert rates is not None
    services = replace(container.services, rates=RateLimiter(rates.table, ticker))
    units = container.service.units
    assert units.quota is not None  # the "quota" tenant has one; its count reads the ticker
    units.quota = MemoryQuota(container.store.count, rates.table, monotonic=ticker.seconds)
    with TestClient(create_app(services)) as c:
        yield c


def key(container: Container, tenant: str, role: str = "writer") -> str:
    keys = container.services.keys
    assert keys is not None
    return keys.create(tenant=tenant, role=role, scopes=["*"], name="t").token


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def memory(memory_id: str, content: str = "Alice prefers green tea.") -> dict[str, Any]:
    return {
        "id": memory_id,
        "type": "preference",
        "content": content,
        "scope": "user:alice",
        "source_agent": "agent-a",
    }


def get(client: TestClient, token: str | None = None) -> Any:
    headers = auth(token) if token else {}
    return client.get("/v1/memories/nothing-here", headers=headers)


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status
    return body


def test_a_burst_then_429_with_retry_after(client: TestClient, ticker: Ticker) -> None:
    # Open development mode: tenant ``default``, its bucket (3/s, bursts of 3), no key's.
    assert [get(client).status_code for _ in range(3)] == [404, 404, 404]
    r = get(client)
    body = refused(r, 429, "rate_limited")
    assert body["limit"] == "tenant" and "this tenant" in body["detail"]
    assert r.headers["retry-after"] == "1"  # 1/3 s, rounded up to the header's seconds
    assert body["retry_after_ms"] == 334 and "request_id" in body
    ticker.sleep(body["retry_after_ms"] / 1000)  # the exact wait, to the ms
    assert get(client).status_code == 404
    assert client.get("/healthz").status_code == 200  # probes are never limited
    assert all(client.get("/healthz").status_code == 200 for _ in range(20))
    # Nor are the console's files: page loads without a key are no tenant's requests.
    assert all(client.get("/console/assets/app.js").status_code == 200 for _ in range(20))
    assert get(client).status_code == 429  # the tenant's bucket is still the API's


def test_one_key_spent_does_not_throttle_another_tenants_key(
    client: TestClient, container: Container, ticker: Ticker
) -> None:
    acme, globex = key(container, "acme"), key(container, "globex")
    assert [get(client, acme).status_code for _ in range(3)] == [404] * 3
    r = get(client, acme)
    body = refused(r, 429, "rate_limited")
    assert body["limit"] == "key" and "this API key" in body["detail"]
    assert "globex" not in r.text and "acme" not in r.text  # no tenant named, none leaked
    assert r.headers["retry-after"] == "1"
    assert get(client, globex).status_code == 404  # a key of another tenant: untouched
    ticker.sleep(1)
    assert get(client, acme).status_code == 404


def test_the_tenant_bucket_is_shared_by_its_keys(client: TestClient, container: Container) -> None:
    first, second, third = (key(container, "acme") for _ in range(3))
    for token in (first, first, first, second, second):  # acme's 5 (each key ≤ its 3)
        assert get(client, token).status_code == 404
    body = refused(get(client, third), 429, "rate_limited")  # a fresh key, a spent tenant
    assert body["limit"] == "tenant"
    assert get(client, key(container, "globex")).status_code == 404


def test_mcp_and_a2a_are_behind_the_same_buckets(client: TestClient, container: Container) -> None:
    token = key(container, "acme")
    for _ in range(3):
        get(client, token)
    refused(client.post("/mcp", json={}, headers=auth(token)), 429, "rate_limited")
    refused(client.post("/a2a", json={}, headers=auth(token)), 429, "rate_limited")


def test_the_sdk_waits_for_retry_after_and_succeeds(
    client: TestClient, container: Container, ticker: Ticker
) -> None:
    token = key(container, "acme")
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        ticker.sleep(seconds)

    def through_app(request: httpx.Request) -> httpx.Response:
        answer = client.request(
            request.method,
            request.url.raw_path.decode("ascii"),
            headers={k: v for k, v in request.headers.items() if k.lower() != "host"},
            content=request.read(),
        )
        headers = [
            (k, v)
            for k, v in answer.headers.multi_items()
            if k.lower() not in ("content-length", "content-encoding", "transfer-encoding")
        ]
        return httpx.Response(answer.status_code, headers=headers, content=answer.content)

    policy = RetryPolicy(max_retries=2, sleep=sleep, uniform=lambda a, b: a)
    transport = httpx.MockTransport(through_app)
    with MemoryClient(
        "http://testserver", transport=transport, retries=policy, api_key=token
    ) as sdk:
        for i in range(3):
            sdk.write(f"Note {i}.", scope="user:alice", source_agent="a", id=f"n{i}")
        out = sdk.write("Note 3.", scope="user:alice", source_agent="a", id="n3")
    assert out.record.id == "n3"
    assert slept == [1.0]  # told 1 s by Retry-After, waited exactly that (no jitter here)


def test_the_stored_memories_quota(
    client: TestClient, container: Container, ticker: Ticker
) -> None:
    token = key(container, "quota")
    for memory_id in ("a", "b"):
        r = client.put(
            f"/v1/memories/{memory_id}?wait=true", json=memory(memory_id), headers=auth(token)
        )
        assert r.status_code == 201, r.text
    r = client.put("/v1/memories/c", json=memory("c"), headers=auth(token))
    body = refused(r, 403, "quota_exceeded")
    assert "at most 2 memories" in body["detail"]
    update = memory("a", "Alice now prefers black tea.")
    assert client.put("/v1/memories/a", json=update, headers=auth(token)).status_code == 200
    # wait=true: the count the quota re-reads is the projection's, which must hold the forget
    forgotten = client.delete("/v1/memories/b?reason=cleanup&wait=true", headers=auth(token))
    assert forgotten.status_code == 200, forgotten.text  # forgetting is always allowed
    batch = client.post(
        "/v1/memories:batch", json={"items": [memory("d"), memory("e")]}, headers=auth(token)
    )
    assert batch.status_code in (200, 207), batch.text
    results = batch.json()["results"]
    assert [item["status"] for item in results] == [403, 403]  # the count said 2, just now
    assert {item["problem"]["code"] for item in results} == {"quota_exceeded"}
    ticker.sleep(1)  # a refusal may re-read the count once a second: b's room is back
    batch = client.post(
        "/v1/memories:batch", json={"items": [memory("d"), memory("e")]}, headers=auth(token)
    )
    assert [item["status"] for item in batch.json()["results"]] == [201, 403]
    other = key(container, "acme")  # another tenant's quota is its own
    assert client.put("/v1/memories/c", json=memory("c"), headers=auth(other)).status_code == 201


def test_a_tenants_byte_limit_is_413_and_stores_nothing(
    client: TestClient, container: Container
) -> None:
    small, roomy = key(container, "small"), key(container, "quota")
    big = memory("big", "x" * 3000)
    body = refused(
        client.put("/v1/memories/big", json=big, headers=auth(small)), 413, "body_too_large"
    )
    assert "a request of this tenant takes at most 2048 bytes" in body["detail"]
    refused(client.get("/v1/memories/big", headers=auth(small)), 404, "memory_not_found")
    assert client.put("/v1/memories/ok", json=memory("ok"), headers=auth(small)).status_code == 201

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while it streams
        yield json.dumps(big).encode()[:1500]
        yield json.dumps(big).encode()[1500:]

    streamed = client.put(
        "/v1/memories/big",
        content=chunks(),
        headers={**auth(small), "Content-Type": "application/json"},
    )
    refused(streamed, 413, "body_too_large")
    refused(client.get("/v1/memories/big", headers=auth(small)), 404, "memory_not_found")
    # Another tenant keeps the route's own limit.
    assert client.put("/v1/memories/big", json=big, headers=auth(roomy)).status_code == 201


def test_an_import_lands_the_lines_that_fit_and_reports_the_rest(
    client: TestClient, container: Container
) -> None:
    source, target = key(container, "small"), key(container, "quota")
    for memory_id in ("x", "y", "z"):
        r = client.put(
            f"/v1/memories/{memory_id}?wait=true", json=memory(memory_id), headers=auth(source)
        )
        assert r.status_code == 201, r.text
    bundle = client.get("/v1/export", headers=auth(source)).content
    ndjson = {"Content-Type": "application/x-ndjson"}
    r = client.post("/v1/import?wait=true", content=bundle, headers={**ndjson, **auth(target)})
    assert r.status_code == 200, r.text
    report = r.json()
    assert (report["written"], report["rejected"]) == (2, 1)
    assert [e["code"] for e in report["errors"]] == ["quota_exceeded"]
    # The small tenant's byte limit applies to its imports as well.
    r = client.post("/v1/import", content=bundle * 2, headers={**ndjson, **auth(source)})
    assert len(bundle) * 2 > 2048
    refused(r, 413, "body_too_large")
