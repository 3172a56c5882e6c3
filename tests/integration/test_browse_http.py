"""``GET /v1/memories`` over the real app: cursor pages, filters, problem+json naming the
parameter, and a key's scopes deciding what a listing may read."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container
from ai_memory.core.listing import encode_cursor

PROBLEM = "application/problem+json"


def put(client: TestClient, memory_id: str, headers: Any = None, **kw: Any) -> None:
    body = {
        "type": "fact",
        "content": f"memory {memory_id}",
        "scope": "user:alice",
        "source_agent": "agent-a",
        **kw,
    }
    r = client.put(f"/v1/memories/{memory_id}?wait=true", json=body, headers=headers)
    assert r.status_code == 201, r.text


def listing(client: TestClient, headers: Any = None, **params: Any) -> list[str]:
    """Every id of a listing, following ``next_cursor``."""
    ids: list[str] = []
    cursor = None
    for _ in range(100):
        query = {**params, **({"cursor": cursor} if cursor else {})}
        r = client.get("/v1/memories", params=query, headers=headers)
        assert r.status_code == 200, r.text
        page = r.json()
        assert len(page["items"]) <= int(params.get("limit", 50))
        ids += [item["id"] for item in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            return ids
    raise AssertionError("the listing did not end")


def refused(response: Any, status: int, code: str, field: str | None = None) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    assert response.json()["code"] == code
    if field is not None:
        assert response.json()["field"] == field


def test_pages_and_filters(client: TestClient) -> None:
    for i in range(7):
        put(client, f"m{i}", tags=["even"] if i % 2 == 0 else ["odd"])
    put(client, "p1", type="preference", scope="team:x")
    assert listing(client, limit=3) == [*(f"m{i}" for i in range(7)), "p1"]
    first = client.get("/v1/memories", params={"limit": 3}).json()
    assert [m["id"] for m in first["items"]] == ["m0", "m1", "m2"]
    assert first["items"][0]["content"] == "memory m0" and first["items"][0]["version"] == 1
    assert listing(client, tag="even", limit=2) == ["m0", "m2", "m4", "m6"]
    assert listing(client, type="preference") == ["p1"]
    assert listing(client, scope="team:x") == ["p1"]
    assert listing(client, scope=["team:x", "user:alice"], type=["fact"], tag="odd") == [
        "m1",
        "m3",
        "m5",
    ]
    assert listing(client, state="archived") == []
    client.delete("/v1/memories/m3?wait=true")
    assert "m3" not in listing(client)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"cursor": "not a cursor!"}, "cursor"),
        ({"cursor": "bm90LWEtY3Vyc29y"}, "cursor"),  # base64, but not of ours
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"limit": "many"}, "limit"),
        ({"type": "dream"}, "type"),
        ({"state": "asleep"}, "state"),
        ({"scope": "Not A Scope"}, "scope"),
        ({"tag": ""}, "tag"),
    ],
)
def test_bad_parameters_name_the_field(
    client: TestClient, params: dict[str, Any], field: str
) -> None:
    refused(client.get("/v1/memories", params=params), 422, "invalid_input", field)


def test_a_cursor_is_opaque_but_only_an_id(client: TestClient) -> None:
    put(client, "a")
    put(client, "b")
    assert listing(client, cursor=encode_cursor("a")) == ["b"]


def key(container: Container, tenant: str, role: str, scopes: str) -> dict[str, str]:
    keys = container.services.keys
    assert keys is not None
    token = keys.create(tenant=tenant, role=role, scopes=scopes.split(","), name="t").token
    return {"Authorization": f"Bearer {token}"}


def test_a_key_lists_only_what_it_may_read(client: TestClient, container: Container) -> None:
    admin = key(container, "acme", "admin", "*")
    for memory_id, scope in [
        ("a1", "user:alice"),
        ("b1", "user:bob"),
        ("p1", "public"),
        ("t1", "team:x"),
    ]:
        put(client, memory_id, headers=admin, scope=scope)
    other = key(container, "globex", "admin", "*")
    put(client, "g1", headers=other, scope="user:alice")

    assert listing(client, admin) == ["a1", "b1", "p1", "t1"]
    alice = key(container, "acme", "reader", "user:alice")
    assert listing(client, alice, limit=1) == ["a1", "p1"]  # its scope and public
    assert listing(client, alice, scope="public") == ["p1"]
    refused(
        client.get("/v1/memories", params={"scope": "user:bob"}, headers=alice),
        403,
        "scope_forbidden",
    )
    users = key(container, "acme", "reader", "user:*")
    refused(client.get("/v1/memories", headers=users), 403, "scope_required")
    assert listing(client, users, scope=["user:bob", "user:alice"]) == ["a1", "b1"]
    assert listing(client, other) == ["g1"]  # another tenant's memories only
    # A cursor handed to one key carries nothing another key could use to see more.
    page = client.get("/v1/memories", params={"limit": 1}, headers=admin).json()
    assert listing(client, alice, cursor=page["next_cursor"]) == ["p1"]
    operator = key(container, "acme", "operator", "*")
    refused(client.get("/v1/memories", headers=operator), 403, "role_forbidden")
