"""``POST /v1/memories:batch`` over HTTP on the embedded adapters (SQLite log and store,
Qdrant Edge): per-item results, hostile items, request-level refusals, read-your-writes,
and the OpenAPI document."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container

PROBLEM = "application/problem+json"
BATCH = "/v1/memories:batch"


def memory(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "preference",
        "content": "Alice prefers green tea over coffee.",
        "scope": "user:alice",
        "source_agent": "agent-a",
    }
    base.update(kw)
    return base


def batch(client: TestClient, items: Any, *, wait: bool = True) -> dict[str, Any]:
    r = client.post(f"{BATCH}?wait={'true' if wait else 'false'}", json={"items": items})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    return r.json()  # type: ignore[no-any-return]


def refused(client: TestClient, response: Any, status: int, field: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    problem: dict[str, Any] = response.json()
    assert problem["status"] == status and problem["field"] == field and problem["rule"]
    return problem


def test_a_mixed_batch_answers_200_with_a_result_per_item(
    client: TestClient, container: Container
) -> None:
    out = batch(
        client,
        [
            memory(id="tea"),
            memory(id="bad", scope="Not A Scope"),
            memory(id="coffee", content="Alice dislikes coffee."),
            42,
            memory(id="typo", tipe="fact"),
        ],
    )
    assert (out["written"], out["unchanged"], out["rejected"]) == (2, 0, 3)
    results = out["results"]
    assert [r["index"] for r in results] == [0, 1, 2, 3, 4]
    assert [r["status"] for r in results] == [201, 422, 201, 422, 422]
    assert results[0] == {
        "index": 0,
        "status": 201,
        "id": "tea",
        "version": 1,
        "changed": True,
        "position": results[0]["position"],
    }
    bad = [results[1], results[3], results[4]]
    assert [(r["problem"]["field"], r["problem"]["rule"]) for r in bad] == [
        ("scope", bad[0]["problem"]["rule"]),
        ("item", "json_object"),
        ("tipe", "unknown_field"),
    ]
    for r in bad:
        assert "version" not in r and r["problem"]["status"] == r["status"]
        assert r["problem"]["type"].startswith("urn:ai-memory:problem:")
    # The batch's token is that of its items' highest log position.
    logged = [
        container.services.positions.taken("default", r["position"])
        for r in out["results"]
        if "position" in r
    ]
    assert container.services.positions.taken("default", out["position"]) == max(logged)
    # wait=true: every written item is readable now.
    assert client.get("/v1/memories/tea").json()["version"] == 1
    assert client.get("/v1/memories/coffee").json()["content"] == "Alice dislikes coffee."
    assert client.get("/v1/memories/bad").status_code == 404


def test_one_memory_twice_gets_versions_1_and_2_and_a_repeat_changes_nothing(
    client: TestClient, container: Container
) -> None:
    items = [memory(id="tea"), memory(id="tea", content="Alice now prefers oolong tea.")]
    first = batch(client, items)["results"]
    assert [(r["status"], r["version"], r["changed"]) for r in first] == [
        (201, 1, True),
        (200, 2, True),
    ]
    logged = [container.services.positions.taken("default", r["position"]) for r in first]
    assert logged[1] > logged[0]  # tokens are not ordered; the log positions behind them are
    lineage = client.get("/v1/memories/tea/lineage").json()
    assert [e.get("version") for e in lineage["events"] if e["kind"] == "written"] == [1, 2]
    got = client.get("/v1/memories/tea").json()
    assert got["version"] == 2 and got["content"] == "Alice now prefers oolong tea."
    # Items apply in order, as PUTs would: the newest content again changes nothing, and
    # a batch naming each memory once can be retried without writing anything twice.
    repeat = [items[1], memory(id="milk", content="Alice takes no milk.")]
    batch(client, repeat)
    again = batch(client, repeat)
    assert (again["written"], again["unchanged"]) == (0, 2)
    assert [(r["status"], r["version"], r["changed"]) for r in again["results"]] == [
        (200, 2, False),
        (200, 1, False),
    ]
    # The older content after the newer is a new version, as a second PUT would make it.
    older = batch(client, [items[0]])["results"][0]
    assert (older["status"], older["version"], older["changed"]) == (200, 3, True)


def test_forgotten_ids_and_scope_changes_are_refused_per_item(client: TestClient) -> None:
    batch(client, [memory(id="old"), memory(id="home", scope="user:alice")])
    assert client.delete("/v1/memories/old?wait=true").status_code == 200
    out = batch(
        client,
        [
            memory(id="old", content="Back again?"),
            memory(id="home", scope="team:elsewhere"),
            memory(id="fresh"),
        ],
    )
    statuses = [(r["status"], r.get("problem", {}).get("code")) for r in out["results"]]
    assert statuses == [(410, "memory_forgotten"), (409, "scope_immutable"), (201, None)]
    assert out["results"][0]["id"] == "old" and out["results"][1]["id"] == "home"
    assert client.get("/v1/memories/old").status_code == 410
    assert client.get("/v1/memories/home").json()["scope"] == "user:alice"


def test_hostile_strings_in_one_item_refuse_that_item_only(client: TestClient) -> None:
    items = [
        memory(id="ok-1"),
        memory(id="nul", content="a NUL \u0000 inside"),
        memory(id="nul-tag", tags=["a\u0000b"]),
        memory(id="ok-2"),
    ]
    raw = json.dumps({"items": items})
    # A lone surrogate as a JSON escape, in content, in an id and in a meta key.
    surrogates = [
        '{"type":"fact","content":"lone \\ud800","scope":"user:alice","source_agent":"a"}',
        '{"id":"x\\udfff","type":"fact","content":"c","scope":"user:alice","source_agent":"a"}',
        '{"type":"fact","content":"c","scope":"user:alice","source_agent":"a",'
        '"meta":{"\\udc00":1}}',
    ]
    raw = raw[:-2] + "," + ",".join(surrogates) + "]}"
    r = client.post(
        f"{BATCH}?wait=true", content=raw.encode(), headers={"content-type": "application/json"}
    )
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["status"] for x in results] == [201, 422, 422, 201, 422, 422, 422]
    assert [x["problem"]["rule"] for x in results[4:]] == ["utf8", "utf8", "utf8"]
    assert {x["problem"]["field"] for x in results[1:3]} == {"content", "tags"}
    assert client.get("/v1/memories/ok-2").status_code == 200
    assert client.get("/v1/memories/nul").status_code == 404


def test_more_than_1000_items_is_refused_as_a_whole_naming_items(client: TestClient) -> None:
    items = [{"content": "x"}] * 1001
    problem = refused(client, client.post(BATCH, json={"items": items}), 422, "items")
    assert problem["code"] == "batch_too_large" and problem["rule"] == "max_items"


def test_a_body_over_the_byte_limit_is_413_before_anything_is_written(
    client: TestClient, container: Container
) -> None:
    limit = container.settings.max_body_bytes
    content = "Long memory. " * 1200  # ≈ 15 kB, under the content limit
    count = limit // len(content) + 2
    items = [memory(id=f"big-{i}", content=content) for i in range(count)]
    head = container.log.last_position()
    r = client.post(BATCH, json={"items": items})
    assert r.status_code == 413 and r.headers["content-type"].startswith(PROBLEM)
    assert r.json()["code"] == "body_too_large"
    assert container.log.last_position() == head
    assert client.get("/v1/memories/big-0").status_code == 404


def test_an_empty_batch_writes_nothing(client: TestClient, container: Container) -> None:
    head = container.log.last_position()
    out = batch(client, [])
    assert out == {"results": [], "written": 0, "unchanged": 0, "rejected": 0, "position": 0}
    assert container.log.last_position() == head


def test_a_request_that_is_not_a_batch_is_a_problem(client: TestClient) -> None:
    refused(client, client.post(BATCH, json={"items": {"a": 1}}), 422, "items")
    refused(client, client.post(BATCH, json={"items": "many"}), 422, "items")
    refused(client, client.post(BATCH, json={}), 422, "items")
    refused(client, client.post(BATCH, json=[memory()]), 422, "body")
    extra = client.post(BATCH, json={"items": [], "wait": True})
    assert refused(client, extra, 422, "wait")["code"] == "unknown_field"
    r = client.post(BATCH, content=b'{"items": [', headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "malformed_json"
    r = client.get(BATCH)
    assert r.status_code == 405 and r.headers["content-type"].startswith(PROBLEM)


def test_nothing_stored_is_lost_when_a_batch_has_rejected_items(client: TestClient) -> None:
    stored = batch(client, [memory(id=f"keep-{i}", content=f"Kept fact {i}.") for i in range(3)])
    before = {f"keep-{i}": client.get(f"/v1/memories/keep-{i}").json() for i in range(3)}
    out = batch(
        client,
        [
            memory(id="keep-0", content=""),  # empty content
            memory(id="keep-1", scope="team:moved"),  # would move scope
            memory(id="keep-2", ttl=-1),  # bad ttl
            memory(id="keep-2", created_at="9999-12-31T23:00:00-05:00"),  # out of range
        ],
    )
    assert out["rejected"] == 4 and out["written"] == 0 and out["position"] == 0
    for memory_id, record in before.items():
        assert client.get(f"/v1/memories/{memory_id}").json() == record
    export = client.get("/v1/export", params={"scope": "user:alice"}).text
    assert sum('"keep-' in line for line in export.splitlines()) == 3
    assert stored["written"] == 3


def test_batch_writes_are_searchable_after_wait(client: TestClient) -> None:
    out = batch(
        client,
        [
            memory(id="k1", content="Kafka consumers lag when max.poll.records is too high."),
            memory(id="k2", content="Cassandra compaction runs nightly.", type="fact"),
        ],
    )
    hits = client.post(
        f"/v1/memories/search?min_position={out['position']}",
        json={"query": "max.poll.records", "mode": "keyword"},
    ).json()["results"]
    assert hits and hits[0]["record"]["id"] == "k1"


def test_the_openapi_document_shows_the_batch_operation(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    op = doc["paths"][BATCH]["post"]
    body = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    items = doc["components"]["schemas"][body.rsplit("/", 1)[1]]["properties"]["items"]
    assert items["maxItems"] == 1000
    assert items["items"] == {"$ref": "#/components/schemas/MemoryIn"}
    ok = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ok.endswith("/BatchWriteOut")
    for status in ("413", "422", "4XX", "5XX"):
        assert PROBLEM in op["responses"][status]["content"], status
    assert any(p["name"] == "wait" for p in op["parameters"])


def test_with_api_keys_a_batch_writes_in_the_keys_tenant_and_only_where_it_may(
    client: TestClient, container: Container
) -> None:
    keys = container.services.keys
    assert keys is not None
    admin = keys.create(tenant="acme", role="admin", scopes=["*"], name="t").token
    writer = keys.create(tenant="acme", role="writer", scopes=["user:*"], name="t").token
    reader = keys.create(tenant="acme", role="reader", scopes=["*"], name="t").token
    items = [memory(id="acme-1"), memory(id="acme-ops", scope="team:ops")]
    assert client.post(BATCH, json={"items": items}).status_code == 401  # no key
    r = client.post(f"{BATCH}?wait=true", json={"items": items}, headers=bearer(admin))
    assert [x["status"] for x in r.json()["results"]] == [201, 201]
    assert client.get("/v1/memories/acme-1", headers=bearer(admin)).status_code == 200
    assert container.service.store.get("default", "acme-1") is None  # the key's tenant
    assert client.post(BATCH, json={"items": items}, headers=bearer(reader)).status_code == 403
    # A writer limited to user scopes never lands a team memory: refused on that item.
    items = [memory(id="acme-2"), memory(id="acme-dev", scope="team:dev")]
    r = client.post(f"{BATCH}?wait=true", json={"items": items}, headers=bearer(writer))
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["status"] for x in results] == [201, 403]
    assert results[1]["problem"]["code"] == "scope_forbidden"
    assert client.get("/v1/memories/acme-dev", headers=bearer(admin)).status_code == 404


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_writer_key_lands_the_items_in_its_scopes_and_no_other(
    client: TestClient, container: Container
) -> None:
    keys = container.services.keys
    assert keys is not None
    writer = keys.create(tenant="acme", role="writer", scopes=["user:*"], name="t").token
    items = [memory(id="w-1"), memory(id="w-ops", scope="team:ops"), memory(id="w-2")]
    r = client.post(f"{BATCH}?wait=true", json={"items": items}, headers=bearer(writer))
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["status"] for x in results] == [201, 403, 201]
    assert results[1]["problem"]["code"] == "scope_forbidden" and results[1]["id"] == "w-ops"
    assert client.get("/v1/memories/w-ops", headers=bearer(writer)).status_code in (403, 404)
    assert container.service.store.get("acme", "w-ops") is None
    assert container.service.store.get("acme", "w-1") is not None
