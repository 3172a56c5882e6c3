"""API keys at the HTTP door, on the real app over an embedded container.

Open development mode until the first key exists; then every request but ``/healthz``
needs a key, the key's tenant is the only one it sees, and its role and scopes decide
what it may write, read, search, export and forget."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container
from ai_memory.core.errors import InvalidInput
from ai_memory.service.keys import KeyService
from tests.factories import FixedClock

PROBLEM = "application/problem+json"


def key(container: Container, tenant: str, role: str, scopes: str = "*", **kw: Any) -> str:
    keys = container.services.keys
    assert keys is not None
    return keys.create(tenant=tenant, role=role, scopes=scopes.split(","), name="t", **kw).token


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def memory(scope: str = "user:alice", **kw: Any) -> dict[str, Any]:
    return {
        "type": "preference",
        "content": f"A memory of {scope}: prefers green tea.",
        "scope": scope,
        "source_agent": "agent-a",
        **kw,
    }


def write(client: TestClient, token: str, scope: str, memory_id: str) -> None:
    r = client.put(f"/v1/memories/{memory_id}?wait=true", json=memory(scope), headers=auth(token))
    assert r.status_code == 201, r.text


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status
    return body


def search(client: TestClient, token: str, **kw: Any) -> Any:
    body = {"query": "green tea", "mode": "keyword", "top_k": 50, **kw}
    return client.post("/v1/memories/search", json=body, headers=auth(token))


def found(response: Any) -> set[str]:
    assert response.status_code == 200, response.text
    return {hit["record"]["id"] for hit in response.json()["results"]}


def test_open_development_mode_until_a_key_exists(client: TestClient, container: Container) -> None:
    r = client.post("/v1/memories?wait=true", json=memory())
    assert r.status_code == 201  # no key anywhere: tenant default, as before keys
    key(container, "acme", "reader")
    refused(client.post("/v1/memories", json=memory()), 401, "api_key_required")
    assert client.get("/healthz").status_code == 200  # probes need no key


def test_missing_wrong_and_malformed_keys_are_401(client: TestClient, container: Container) -> None:
    token = key(container, "acme", "writer")
    missing = refused(client.get("/v1/memories/x"), 401, "api_key_required")
    assert "request_id" in missing
    r = client.get("/v1/memories/x", headers=auth(token[:-4] + "AAAA"))
    wrong = refused(r, 401, "invalid_api_key")
    assert r.headers["www-authenticate"].startswith("Bearer")
    malformed = refused(
        client.get("/v1/memories/x", headers=auth("not-a-key")), 401, "invalid_api_key"
    )
    assert wrong["detail"] == malformed["detail"]  # no oracle: one answer for every bad key
    basic = client.get("/v1/memories/x", headers={"Authorization": "Basic dXNlcjpwYXNz"})
    refused(basic, 401, "api_key_required")
    assert client.get("/v1/memories/x", headers=auth(token)).status_code == 404


def test_a_revoked_key_is_refused_within_the_cache_ttl(
    client: TestClient, container: Container, clock: FixedClock
) -> None:
    token = key(container, "acme", "writer")
    write(client, token, "user:alice", "m1")  # the gateway caches the key
    assert container.keys is not None
    elsewhere = KeyService(container.keys, clock)  # the CLI or another gateway
    elsewhere.revoke(token.split("_")[1])
    ttl = container.settings.key_cache_seconds  # AIMEM_KEY_CACHE_SECONDS, at most 5
    clock.advance(ttl - 1)
    assert client.get("/v1/memories/m1", headers=auth(token)).status_code == 200
    clock.advance(1)  # the cache TTL after this gateway read the key
    refused(client.get("/v1/memories/m1", headers=auth(token)), 401, "invalid_api_key")


def test_an_expired_key_is_refused(
    client: TestClient, container: Container, clock: FixedClock
) -> None:
    token = key(container, "acme", "writer", expires_in=timedelta(minutes=1))
    write(client, token, "user:alice", "m1")
    clock.advance(60)
    refused(client.get("/v1/memories/m1", headers=auth(token)), 401, "invalid_api_key")


def test_a_key_of_one_tenant_never_reaches_another_tenants_memory(
    client: TestClient, container: Container
) -> None:
    a, b = key(container, "acme", "writer"), key(container, "globex", "writer")
    write(client, b, "user:bob", "globex-secret")
    write(client, a, "user:alice", "acme-note")
    assert client.get("/v1/memories/globex-secret", headers=auth(a)).status_code == 404
    assert found(search(client, a)) == {"acme-note"}
    assert found(search(client, b)) == {"globex-secret"}
    exported = client.get("/v1/export", headers=auth(a)).text
    assert "globex-secret" not in exported and "acme-note" in exported
    client.delete("/v1/memories/globex-secret?wait=true", headers=auth(a))
    assert client.get("/v1/memories/globex-secret", headers=auth(b)).status_code == 200
    # nor does open mode's tenant: the memory written before keys is not in acme
    assert found(search(client, a, scope="user:bob")) == set()


def test_a_reader_cannot_write_or_forget(client: TestClient, container: Container) -> None:
    writer, reader = key(container, "acme", "writer"), key(container, "acme", "reader")
    write(client, writer, "user:alice", "m1")
    r = client.post("/v1/memories", json=memory(), headers=auth(reader))
    body = refused(r, 403, "role_forbidden")
    assert "reader" in body["detail"]
    refused(client.delete("/v1/memories/m1", headers=auth(reader)), 403, "role_forbidden")
    assert client.get("/v1/memories/m1", headers=auth(reader)).status_code == 200


def test_a_writer_limited_to_user_scopes_stays_in_them(
    client: TestClient, container: Container
) -> None:
    admin = key(container, "acme", "admin")
    users = key(container, "acme", "writer", "user:*")
    write(client, users, "user:alice", "alice-1")
    r = client.post("/v1/memories", json=memory("team:x"), headers=auth(users))
    refused(r, 403, "scope_forbidden")
    r = client.put("/v1/memories/t1", json=memory("team:x"), headers=auth(users))
    refused(r, 403, "scope_forbidden")
    write(client, admin, "team:x", "team-1")
    refused(client.get("/v1/memories/team-1", headers=auth(users)), 403, "scope_forbidden")
    refused(client.delete("/v1/memories/team-1", headers=auth(users)), 403, "scope_forbidden")
    assert client.get("/v1/memories/team-1", headers=auth(admin)).status_code == 200
    # a wildcard cannot become a finite filter: its searches and exports name a scope
    refused(search(client, users), 403, "scope_required")
    refused(client.get("/v1/export", headers=auth(users)), 403, "scope_required")
    assert found(search(client, users, scope="user:alice")) == {"alice-1"}
    refused(search(client, users, scope="team:x"), 403, "scope_forbidden")
    r = client.delete("/v1/memories/alice-1", headers=auth(users))
    assert r.status_code == 200 and r.json()["forgotten"]


def test_public_is_readable_by_every_key_of_the_tenant(
    client: TestClient, container: Container
) -> None:
    admin = key(container, "acme", "admin")
    data_reader = key(container, "acme", "reader", "team:data")
    write(client, admin, "public", "pub-1")
    write(client, admin, "team:data", "data-1")
    write(client, admin, "user:alice", "alice-1")
    assert client.get("/v1/memories/pub-1", headers=auth(data_reader)).status_code == 200
    # an exact allow-list is the search filter, with public
    assert found(search(client, data_reader)) == {"pub-1", "data-1"}
    assert found(search(client, data_reader, scope="public")) == {"pub-1"}
    refused(client.get("/v1/memories/alice-1", headers=auth(data_reader)), 403, "scope_forbidden")
    writer = key(container, "acme", "writer", "team:data")
    r = client.post("/v1/memories", json=memory("public"), headers=auth(writer))
    refused(r, 403, "scope_forbidden")  # reading public is for all; writing it is not


def test_operational_and_unchecked_doors(client: TestClient, container: Container) -> None:
    operator = key(container, "*", "operator")
    bound = key(container, "acme", "operator")
    writer = key(container, "acme", "writer")
    admin = key(container, "acme", "admin")
    assert client.get("/metrics", headers=auth(operator)).status_code == 200
    refused(client.get("/metrics", headers=auth(writer)), 403, "role_forbidden")
    # The metrics count every tenant: an operator of one tenant is refused them.
    refused(client.get("/metrics", headers=auth(bound)), 403, "tenant_forbidden")
    refused(client.get("/v1/memories/x", headers=auth(operator)), 403, "role_forbidden")
    bundle = '{"type":"fact","content":"x","scope":"team:x","source_agent":"a"}\n'
    ndjson = {"content-type": "application/x-ndjson"}
    r = client.post("/v1/import?wait=true", content=bundle, headers={**ndjson, **auth(admin)})
    assert r.status_code == 200 and r.json()["written"] == 1
    assert client.get("/openapi.json", headers=auth(writer)).status_code == 200


def test_an_import_judges_each_line_against_the_keys_scopes(
    client: TestClient, container: Container
) -> None:
    """A scoped writer's import lands the lines of its scopes; the others are rejected on
    their own lines (403 code in the report), tombstones judged as forgets in the
    memory's own scope; a reader cannot import at all."""
    admin = key(container, "acme", "admin")
    users = key(container, "acme", "writer", "user:*")
    reader = key(container, "acme", "reader")
    write(client, admin, "team:x", "t1")
    ndjson = {"content-type": "application/x-ndjson"}
    lines = [
        json.dumps(memory("user:alice", id="u1")),
        json.dumps(memory("team:x", id="t2")),
        # A tombstone naming a user scope for a memory that lives in team:x.
        json.dumps({"kind": "tombstone", "id": "t1", "scope": "user:alice"}),
        json.dumps(memory("user:bob", id="u2")),
    ]
    body = "\n".join(lines) + "\n"
    r = client.post("/v1/import?wait=true", content=body, headers={**ndjson, **auth(users)})
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["written"] == 2 and report["rejected"] == 2
    assert [(e["line"], e["code"]) for e in report["errors"]] == [
        (2, "scope_forbidden"),
        (3, "scope_forbidden"),
    ]
    assert client.get("/v1/memories/u2", headers=auth(admin)).status_code == 200
    assert client.get("/v1/memories/t2", headers=auth(admin)).status_code == 404
    assert client.get("/v1/memories/t1", headers=auth(admin)).status_code == 200  # not forgotten
    r = client.post("/v1/import", content=body, headers={**ndjson, **auth(reader)})
    refused(r, 403, "role_forbidden")
    refused(client.post("/v1/import", content=body, headers=ndjson), 401, "api_key_required")


def mcp_call(client: TestClient, token: str | None, tool: str, **arguments: Any) -> Any:
    headers = {"Accept": "application/json, text/event-stream", **(auth(token) if token else {})}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return client.post("/mcp", json=body, headers=headers)


def tool_answer(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]["structuredContent"]
    return result


def test_mcp_tools_check_the_key_like_the_routes(client: TestClient, container: Container) -> None:
    users = key(container, "acme", "writer", "user:*")
    admin = key(container, "acme", "admin")
    other = key(container, "globex", "admin")
    fact = {"type": "fact", "content": "Team x ships on Fridays.", "source_agent": "a"}
    denied = tool_answer(mcp_call(client, users, "memory_write", scope="team:x", **fact))
    assert denied["error"]["code"] == "scope_forbidden"
    written = tool_answer(mcp_call(client, admin, "memory_write", scope="team:x", **fact))
    team_id = written["id"]
    mine = tool_answer(mcp_call(client, users, "memory_write", scope="user:alice", **fact))
    assert mine["status"] == "created"
    read = tool_answer(mcp_call(client, users, "memory_read", id=team_id))
    assert read["error"]["code"] == "scope_forbidden"
    forget = tool_answer(mcp_call(client, users, "memory_forget", id=team_id, confirm=True))
    assert forget["error"]["code"] == "scope_forbidden"
    search = tool_answer(mcp_call(client, users, "memory_search", query="Fridays"))
    assert search["error"]["code"] == "scope_required"
    search = tool_answer(
        mcp_call(client, users, "memory_search", query="Fridays", scope="user:alice")
    )
    assert [r["id"] for r in search["results"]] == [mine["id"]]
    export = tool_answer(mcp_call(client, users, "memory_export", scope="team:x"))
    assert export["error"]["code"] == "scope_forbidden"
    note = {"agent": "coder", "topic": "ops", "note": "Pager rota is weekly."}
    assert tool_answer(mcp_call(client, users, "notes_save", **note))["error"]["code"] == (
        "scope_forbidden"
    )
    elsewhere = tool_answer(mcp_call(client, other, "memory_read", id=team_id))
    assert elsewhere["error"]["code"] == "memory_not_found"  # another tenant's key
    refused(mcp_call(client, None, "memory_search", query="Fridays"), 401, "api_key_required")


def test_a2a_skills_check_the_key(container: Container) -> None:
    import anyio
    import httpx
    from a2a.client import A2ACardResolver, ClientConfig, create_client

    from ai_memory.entrypoints.http.app import create_app
    from tests.integration.test_a2a import run

    token = key(container, "acme", "writer", "user:*")
    app = create_app(container.services)
    fact = {"skill": "memory.write", "source_agent": "a", "type": "fact", "content": "Ships."}

    async def scenario() -> None:
        transport = httpx.ASGITransport(app=app)
        base = "http://testserver"
        async with httpx.AsyncClient(
            transport=transport, base_url=base, headers=auth(token), timeout=60
        ) as http:
            card = await A2ACardResolver(http, base).get_agent_card()
            async with await create_client(card, ClientConfig(httpx_client=http)) as a2a:
                data, _, _ = await run(a2a, scope="team:x", **fact)
                assert data["error"]["code"] == "scope_forbidden"
                data, _, _ = await run(a2a, scope="user:alice", **fact)
                assert data["status"] == "created"
        async with httpx.AsyncClient(transport=transport, base_url=base) as anonymous:
            r = await anonymous.get("/.well-known/agent-card.json")
            assert r.status_code == 401

    anyio.run(scenario)


def test_the_sdk_sends_its_api_key(container: Container) -> None:
    import asyncio

    import httpx

    from ai_memory.entrypoints.http.app import create_app
    from ai_memory.sdk import ApiError, AsyncMemoryClient

    token = key(container, "acme", "writer", "user:*")

    async def scenario() -> None:
        transport = httpx.ASGITransport(app=create_app(container.services))
        async with AsyncMemoryClient(
            "http://testserver", transport=transport, api_key=token
        ) as memory:
            await memory.write(
                "Alice drinks green tea.", type="preference", scope="user:alice",
                source_agent="planner", wait=True,
            )  # fmt: skip
            hits = await memory.search("green tea", scope="user:alice")
            assert [h.record.content for h in hits.results] == ["Alice drinks green tea."]
        async with AsyncMemoryClient("http://testserver", transport=transport) as anonymous:
            with pytest.raises(ApiError) as e:
                await anonymous.search("green tea", scope="user:alice")
            assert (e.value.status, e.value.code) == (401, "api_key_required")

    asyncio.run(scenario())


def test_a_batch_of_a_scoped_writer_is_judged_item_by_item(
    client: TestClient, container: Container
) -> None:
    users = key(container, "acme", "writer", "user:*")
    reader = key(container, "acme", "reader")
    items = [{**memory("user:alice"), "id": "ok-1"}, {**memory("team:x"), "id": "no-1"}]
    r = client.post("/v1/memories:batch?wait=true", json={"items": items}, headers=auth(users))
    assert r.status_code == 200, r.text
    statuses = [item["status"] for item in r.json()["results"]]
    assert statuses == [201, 403]
    assert r.json()["results"][1]["problem"]["code"] == "scope_forbidden"
    assert client.get("/v1/memories/ok-1", headers=auth(users)).status_code == 200
    r = client.post("/v1/memories:batch", json={"items": items[:1]}, headers=auth(reader))
    refused(r, 403, "role_forbidden")


def test_notes_and_governed_memory_check_scopes(client: TestClient, container: Container) -> None:
    planner = key(container, "acme", "writer", "agent:planner,user:*")
    admin = key(container, "acme", "admin")
    note = {"agent": "planner", "topic": ["deploy"], "note": "Deploys go out on Tuesdays."}
    r = client.put("/v1/notes", json=note, headers=auth(planner))
    assert r.status_code == 201, r.text
    assert client.get("/v1/notes?agent=planner", headers=auth(planner)).status_code == 200
    r = client.put("/v1/notes", json={**note, "agent": "coder"}, headers=auth(planner))
    refused(r, 403, "scope_forbidden")
    refused(client.get("/v1/notes?agent=coder", headers=auth(planner)), 403, "scope_forbidden")

    turn = {"scope": "team:x", "source_agent": "planner", "text": "I live in Tokyo."}
    refused(
        client.post("/v1/interactions", json=turn, headers=auth(planner)), 403, "scope_forbidden"
    )
    r = client.post(
        "/v1/interactions?wait=true", json={**turn, "scope": "user:alice"}, headers=auth(planner)
    )
    assert r.status_code == 201, r.text
    assert client.get("/v1/persona?scope=user:alice", headers=auth(planner)).status_code == 200
    refused(client.get("/v1/persona?scope=team:x", headers=auth(planner)), 403, "scope_forbidden")
    refused(client.get("/v1/episodes?scope=team:x", headers=auth(planner)), 403, "scope_forbidden")
    refused(client.post("/v1/governance/run", headers=auth(planner)), 403, "role_forbidden")
    assert client.post("/v1/governance/run", headers=auth(admin)).status_code == 200

    write(client, admin, "team:x", "team-1")
    write(client, planner, "user:alice", "alice-1")
    lineage = "/v1/memories/{}/lineage"
    assert client.get(lineage.format("alice-1"), headers=auth(planner)).status_code == 200
    refused(client.get(lineage.format("team-1"), headers=auth(planner)), 403, "scope_forbidden")
    assert client.get(lineage.format("team-1"), headers=auth(admin)).status_code == 200


# Every route and the door it is behind: the door authenticates (any valid key) except
# for the probe and the operational paths; what a key may do there is decided by the
# service each route calls (tests/service/test_access_matrix.py attacks every method).
DOORS = {
    ("GET", "/healthz"): "open",
    ("GET", "/openapi.json"): "key",
    ("GET", "/docs"): "key",
    ("GET", "/docs/oauth2-redirect"): "key",
    ("GET", "/redoc"): "key",
    ("GET", "/console"): "static",  # the console's page and files hold no data
    ("GET", "/console/"): "static",
    ("POST", "/v1/write-triggers"): "key",
    ("POST", "/mcp"): "key",
    ("GET", "/mcp"): "key",
    ("DELETE", "/mcp"): "key",
    ("POST", "/a2a"): "key",
    ("GET", "/.well-known/agent-card.json"): "key",
    ("GET", "/metrics"): "key",
    ("GET", "/v1/audit"): "key",
    ("GET", "/v1/usage"): "key",
    ("POST", "/v1/memories"): "key",
    ("GET", "/v1/memories"): "key",
    ("PUT", "/v1/memories/{memory_id}"): "key",
    ("GET", "/v1/memories/{memory_id}"): "key",
    ("DELETE", "/v1/memories/{memory_id}"): "key",
    ("GET", "/v1/memories/{memory_id}/lineage"): "key",
    ("POST", "/v1/memories/search"): "key",
    ("POST", "/v1/memories:batch"): "key",
    ("GET", "/v1/export"): "key",
    ("GET", "/v1/changes"): "key",
    ("PUT", "/v1/notes"): "key",
    ("GET", "/v1/notes"): "key",
    ("POST", "/v1/interactions"): "key",
    ("GET", "/v1/persona"): "key",
    ("GET", "/v1/episodes"): "key",
    ("POST", "/v1/governance/run"): "key",
    ("POST", "/v1/import"): "key",
    ("POST", "/v1/erasures"): "key",
    ("GET", "/v1/erasures/{erasure_id}"): "key",
    ("GET", "/v1/erasures/public-key"): "key",
    ("DELETE", "/v1/interactions/{interaction_id}"): "key",
    ("POST", "/v1/webhooks"): "key",
    ("GET", "/v1/webhooks"): "key",
    ("GET", "/v1/webhooks/{webhook_id}"): "key",
    ("DELETE", "/v1/webhooks/{webhook_id}"): "key",
    ("POST", "/v1/webhooks/{webhook_id}:resume"): "key",
}


def test_every_route_is_known_to_the_door(container: Container) -> None:
    from ai_memory.entrypoints.http.app import create_app
    from ai_memory.entrypoints.http.auth import door_of

    app = create_app(container.services)
    found: dict[tuple[str, str], str] = {}
    for route in app.routes:
        inner = getattr(getattr(route, "original_router", None), "routes", [route])
        for r in inner:
            for method in sorted(set(getattr(r, "methods", None) or ()) - {"HEAD"}):
                path = r.path
                found[(method, path)] = door_of(path.replace("{memory_id}", "m1"), method)
    assert found == DOORS


def test_every_event_a_key_causes_records_the_key_as_its_actor(
    client: TestClient, container: Container
) -> None:
    """``source_agent`` is what the agent claims; the event's actor is who it is."""
    keys = container.services.keys
    assert keys is not None
    issued = keys.create(tenant="acme", role="writer", scopes=["*"], name="planner")
    token = issued.token
    write(client, token, "user:alice", "m1")
    r = client.post(
        "/v1/memories:batch", json={"items": [memory("team:x", id="m2")]}, headers=auth(token)
    )
    assert r.status_code == 200, r.text
    assert client.delete("/v1/memories/m1", headers=auth(token)).status_code == 200
    events = [e.event for e in container.log.read(after=0, limit=100)]
    caused = [e for e in events if e.header.tenant == "acme"]
    assert len(caused) >= 3
    assert {e.header.actor for e in caused} == {f"key:{issued.key.key_id}"}
    written = [e for e in caused if type(e).__name__ == "MemoryWritten"]
    assert {e.record.source_agent for e in written} == {"agent-a"}  # the claim is kept


def test_a_refusal_by_id_does_not_say_which_scope_the_memory_is_in(
    client: TestClient, container: Container
) -> None:
    """A key limited to ``user:alice`` asking for an id stored in another scope of its
    tenant is refused without learning that scope's name (a scope may name a person)."""
    admin = key(container, "acme", "admin")
    write(client, admin, "user:zelda-private", "z1")
    alice = key(container, "acme", "writer", "user:alice")
    answers = [
        client.get("/v1/memories/z1", headers=auth(alice)),
        client.delete("/v1/memories/z1", headers=auth(alice)),
        client.get("/v1/memories/z1/lineage", headers=auth(alice)),
        client.put("/v1/memories/z1", json=memory("user:alice"), headers=auth(alice)),
    ]
    for answer in answers:
        refused(answer, 403, "scope_forbidden")
        assert "zelda" not in answer.text, answer.text


def test_healthz_tells_a_probe_only_whether_the_server_is_healthy(
    client: TestClient, container: Container
) -> None:
    """Positions, lag and writers count every tenant's events: with keys in force a
    probe (no key, a bad key, a reader or writer key) learns only ``status``; a
    tenant's admin or operator sees statuses (which projections are stuck), never
    positions; a deployment-wide operator sees the report. In open development mode
    everyone is the deployment and sees it all."""
    assert set(client.get("/healthz").json()) >= {"status", "projections", "lag"}
    admin = key(container, "acme", "admin")
    writer = key(container, "acme", "writer")
    operator = key(container, "*", "operator")
    write(client, writer, "user:alice", "h1")
    for headers in ({}, auth(writer), auth(key(container, "acme", "reader")), auth("aimem_x")):
        r = client.get("/healthz", headers=headers)
        assert r.status_code == 200 and r.json() == {"status": "ok"}, r.text
    for token in (admin, key(container, "acme", "operator")):
        body = client.get("/healthz", headers=auth(token)).json()
        assert body == {
            "status": "ok",
            "version": body["version"],
            "embedder": body["embedder"],
            "stuck": [],
        }
    body = client.get("/healthz", headers=auth(operator)).json()
    assert body["status"] == "ok" and body["projections"] and "lag" in body


def test_only_an_operator_key_may_be_deployment_wide(container: Container) -> None:
    keys = container.services.keys
    assert keys is not None
    for role in ("admin", "writer", "reader"):
        with pytest.raises(InvalidInput) as refused_:
            keys.create(tenant="*", role=role, scopes=["*"], name="t")
        assert refused_.value.field == "tenant"
    assert keys.create(tenant="*", role="operator", scopes=["*"], name="t").key.info.tenant == "*"
    assert [k.tenant for k in keys.list("*")] == ["*"]
