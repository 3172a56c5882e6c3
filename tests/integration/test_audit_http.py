"""``GET /v1/audit`` on the real app over an embedded container: an admin reads who did
what in its own tenant only, never content; narrower keys are refused; an operator
reads the tenant it names; pages and filters follow the cursor."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container
from ai_memory.service.audit import ACTION_NAMES
from ai_memory.wire.audit import AuditAction, AuditOut
from tests.integration.test_api_keys_http import auth, key, memory, refused

SECRET = "prefers green tea"  # in every memory's content: must never show in the trail


def key_id(token: str) -> str:
    return f"key:{token.split('_')[1]}"


def trail(client: TestClient, token: str, **params: Any) -> dict[str, Any]:
    r = client.get("/v1/audit", params=params, headers=auth(token))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def every_entry(client: TestClient, token: str, **params: Any) -> list[dict[str, Any]]:
    """Follow ``next`` until the trail says there is no more."""
    entries: list[dict[str, Any]] = []
    since: str | None = None
    while True:
        page = trail(client, token, **params, **({"since": since} if since else {}))
        entries += page["entries"]
        since = page["next"]
        if not page["more"]:
            return entries


def put(client: TestClient, token: str, memory_id: str, scope: str = "user:alice") -> None:
    r = client.put(f"/v1/memories/{memory_id}?wait=true", json=memory(scope), headers=auth(token))
    assert r.status_code == 201, r.text


def test_an_admin_sees_who_did_what_in_its_tenant_only(
    client: TestClient, container: Container
) -> None:
    admin, writer = key(container, "acme", "admin"), key(container, "acme", "writer")
    other = key(container, "globex", "writer")
    put(client, writer, "a1")
    put(client, other, "g1", "user:bob")
    put(client, admin, "a2", "team:x")
    assert client.delete("/v1/memories/a1?wait=true", headers=auth(writer)).status_code == 200

    entries = every_entry(client, admin, limit=1)  # one entry a page: the cursor at work
    mine = [(e["actor"], e["action"], e["memory_ids"], e["scope"]) for e in entries]
    assert mine == [
        (key_id(writer), "written", ["a1"], "user:alice"),
        (key_id(admin), "written", ["a2"], "team:x"),
        (key_id(writer), "forgotten", ["a1"], "user:alice"),
    ]
    assert all(e["position"] > 0 and e["time"] for e in entries)
    # Positions are acme's tokens: distinct, but not ordered (docs/design/POSITIONS.md).
    assert len({e["position"] for e in entries}) == len(entries)
    whole = client.get("/v1/audit", headers=auth(admin)).json()
    # No content, no other tenant (the sealed cursor is random text: left out of the search).
    text = json.dumps({**whole, "next": None})
    assert SECRET not in text and "g1" not in text


def test_filters_by_actor_and_action(client: TestClient, container: Container) -> None:
    admin, writer = key(container, "acme", "admin"), key(container, "acme", "writer")
    put(client, writer, "a1")
    put(client, admin, "a2")
    assert client.delete("/v1/memories/a2?wait=true", headers=auth(admin)).status_code == 200
    by_writer = every_entry(client, admin, actor=key_id(writer))
    assert [(e["action"], e["memory_ids"]) for e in by_writer] == [("written", ["a1"])]
    forgotten = every_entry(client, admin, action="forgotten")
    assert [(e["actor"], e["memory_ids"]) for e in forgotten] == [(key_id(admin), ["a2"])]


def test_the_cursor_follows_the_trail(client: TestClient, container: Container) -> None:
    admin = key(container, "acme", "admin")
    put(client, admin, "a1")
    first = trail(client, admin)
    assert [e["memory_ids"] for e in first["entries"]] == [["a1"]] and not first["more"]
    assert trail(client, admin, since=first["next"])["entries"] == []  # nothing new yet
    put(client, admin, "a2")
    later = trail(client, admin, since=first["next"])
    assert [e["memory_ids"] for e in later["entries"]] == [["a2"]]


def test_narrower_keys_are_refused(client: TestClient, container: Container) -> None:
    for role in ("writer", "reader"):
        token = key(container, "acme", role)
        refused(client.get("/v1/audit", headers=auth(token)), 403, "role_forbidden")
    refused(client.get("/v1/audit"), 401, "api_key_required")


def test_an_admin_cannot_name_another_tenant(client: TestClient, container: Container) -> None:
    admin = key(container, "acme", "admin")
    r = client.get("/v1/audit", params={"tenant": "globex"}, headers=auth(admin))
    refused(r, 403, "tenant_forbidden")
    assert trail(client, admin, tenant="acme")["tenant"] == "acme"


def test_a_deployment_wide_operator_reads_the_tenant_it_names(
    client: TestClient, container: Container
) -> None:
    operator = key(container, "*", "operator")
    writer = key(container, "globex", "writer")
    put(client, writer, "g1", "user:bob")
    page = trail(client, operator, tenant="globex")
    assert [(e["actor"], e["memory_ids"]) for e in page["entries"]] == [(key_id(writer), ["g1"])]
    body = refused(client.get("/v1/audit", headers=auth(operator)), 422, "invalid_input")
    assert body["field"] == "tenant"


def test_an_operator_of_a_tenant_reads_that_tenant_only(
    client: TestClient, container: Container
) -> None:
    """An operator key issued with ``--tenant acme`` is acme's, never the deployment's:
    globex's trail (ids, scopes, key ids) is refused alike whether globex exists or not."""
    operator = key(container, "acme", "operator")
    put(client, key(container, "globex", "writer"), "g1", "user:bob")
    put(client, key(container, "acme", "writer"), "a1", "user:alice")
    assert [e["memory_ids"] for e in trail(client, operator)["entries"]] == [["a1"]]
    assert trail(client, operator, tenant="acme")["tenant"] == "acme"
    there = refused(
        client.get("/v1/audit", params={"tenant": "globex"}, headers=auth(operator)),
        403,
        "tenant_forbidden",
    )
    nowhere = refused(
        client.get("/v1/audit", params={"tenant": "nobody"}, headers=auth(operator)),
        403,
        "tenant_forbidden",
    )
    assert there["detail"] == nowhere["detail"] and "g1" not in there["detail"]


def test_bad_parameters_are_problems_naming_the_field(
    client: TestClient, container: Container
) -> None:
    admin = key(container, "acme", "admin")
    for params, field in (
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"action": "stolen"}, "action"),
        ({"since": "not-a-cursor"}, "since"),
        ({"since": "YTF8Nzoz"}, "since"),  # a well-formed cursor of a partition not here
        ({"since": "YTF8MDo5OTk5OTk5OTk5OTk5OTk5OTk5OTk5"}, "since"),  # beyond any position
        ({"since": "é"}, "since"),
        ({"actor": ""}, "actor"),
    ):
        r = client.get("/v1/audit", params=params, headers=auth(admin))
        assert r.status_code == 422, (params, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
        assert r.json()["field"] == field, (params, r.json())


def test_the_wire_names_every_action_the_service_gives() -> None:
    assert set(get_args(AuditAction)) == set(ACTION_NAMES)


def test_the_sdk_shapes_and_the_cli_read_the_trail(
    client: TestClient, container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    import httpx
    from typer.testing import CliRunner

    from ai_memory.entrypoints.cli import main as cli
    from ai_memory.entrypoints.http.app import create_app
    from ai_memory.sdk import AsyncMemoryClient, MemoryClient
    from ai_memory.sdk.in_process import InProcessClient

    admin, writer = key(container, "acme", "admin"), key(container, "acme", "writer")
    put(client, writer, "a1")
    expected = [(key_id(writer), "written", ["a1"])]

    def seen(page: AuditOut) -> list[tuple[str, str, list[str]]]:
        return [(e.actor, e.action, e.memory_ids) for e in page.entries]

    def through_the_app(request: httpx.Request) -> httpx.Response:
        """The sync SDK's requests, answered by the app in this process."""
        r = client.request(
            request.method, request.url.raw_path.decode(), headers=request.headers,
            content=request.read(),
        )  # fmt: skip
        return httpx.Response(r.status_code, headers=r.headers, content=r.content)

    transport = httpx.MockTransport(through_the_app)
    with MemoryClient("http://testserver", transport=transport, api_key=admin) as memory:
        page = memory.audit(limit=10)
        assert seen(page) == expected and not page.more
        assert memory.audit(since=page.next).entries == []

    async def in_async() -> AuditOut:
        asgi = httpx.ASGITransport(app=create_app(container.services))
        async with AsyncMemoryClient("http://testserver", transport=asgi, api_key=admin) as m:
            return await m.audit(action="written")

    assert seen(asyncio.run(in_async())) == expected
    assert seen(InProcessClient(container, tenant="acme").audit()) == expected

    monkeypatch.setenv("AIMEM_API_KEY", admin)
    monkeypatch.setattr(
        cli, "MemoryClient", lambda url, **kw: MemoryClient(url, transport=transport, **kw)
    )
    result = CliRunner().invoke(cli.app, ["audit", "--limit", "5", "--url", "http://testserver"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["entries"][0]["memory_ids"] == ["a1"]
    monkeypatch.setenv("AIMEM_API_KEY", writer)
    refused_cli = CliRunner().invoke(cli.app, ["audit", "--url", "http://testserver"])
    assert refused_cli.exit_code == 1 and "role_forbidden" in refused_cli.output
