"""``ETag`` on reads and writes, ``If-Match`` / ``If-None-Match`` on PUT and DELETE over
the real app: 412 ``precondition_failed`` as problem+json, and two racing PUTs with the
same ``If-Match``: one wins."""

from __future__ import annotations

import threading
from typing import Any

from fastapi.testclient import TestClient

PROBLEM = "application/problem+json"


def memory(content: str = "Alice prefers tea.") -> dict[str, Any]:
    return {"type": "fact", "content": content, "scope": "user:alice", "source_agent": "a"}


def precondition_failed(response: Any) -> None:
    assert response.status_code == 412, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    assert response.json()["code"] == "precondition_failed"


def test_etags_follow_the_version(client: TestClient) -> None:
    created = client.put("/v1/memories/m1?wait=true", json=memory())
    assert created.status_code == 201 and created.headers["etag"] == '"1"'
    assert client.get("/v1/memories/m1").headers["etag"] == '"1"'
    same = client.put("/v1/memories/m1?wait=true", json=memory())
    assert same.status_code == 200 and same.headers["etag"] == '"1"'  # unchanged: same tag
    changed = client.put("/v1/memories/m1?wait=true", json=memory("v2"))
    assert changed.headers["etag"] == '"2"'
    assert client.get("/v1/memories/m1").headers["etag"] == '"2"'
    posted = client.post("/v1/memories", json=memory("posted"))
    assert posted.status_code == 201 and posted.headers["etag"] == '"1"'


def test_if_match_on_put_and_delete(client: TestClient) -> None:
    client.put("/v1/memories/m1?wait=true", json=memory())
    stale = {"If-Match": '"0"'}
    precondition_failed(client.put("/v1/memories/m1", json=memory("x"), headers=stale))
    assert client.get("/v1/memories/m1?min_position=0").json()["content"] == "Alice prefers tea."
    ok = client.put("/v1/memories/m1", json=memory("v2"), headers={"If-Match": '"1"'})
    assert ok.status_code == 200 and ok.headers["etag"] == '"2"'
    precondition_failed(
        client.put("/v1/memories/m1", json=memory("v3"), headers={"If-Match": '"1"'})
    )
    precondition_failed(client.delete("/v1/memories/m1", headers={"If-Match": '"1"'}))
    precondition_failed(client.delete("/v1/memories/m1", headers={"If-Match": 'W/"2"'}))
    gone = client.delete("/v1/memories/m1", headers={"If-Match": '"2"'})
    assert gone.status_code == 200 and gone.json()["already_forgotten"] is False
    precondition_failed(client.delete("/v1/memories/m1", headers={"If-Match": "*"}))


def test_star_semantics(client: TestClient) -> None:
    precondition_failed(client.put("/v1/memories/new", json=memory(), headers={"If-Match": "*"}))
    create_only = {"If-None-Match": "*"}
    first = client.put("/v1/memories/new", json=memory(), headers=create_only)
    assert first.status_code == 201
    precondition_failed(client.put("/v1/memories/new", json=memory("v2"), headers=create_only))
    precondition_failed(client.put("/v1/memories/new", json=memory(), headers=create_only))
    assert client.put("/v1/memories/new", json=memory("v2"), headers={"If-Match": "*"}).is_success


def test_a_malformed_header_names_itself(client: TestClient) -> None:
    r = client.put("/v1/memories/m1", json=memory(), headers={"If-Match": "1"})
    assert r.status_code == 422 and r.json()["field"] == "If-Match"
    r = client.delete("/v1/memories/m1", headers={"If-Match": "v1"})
    assert r.status_code == 422 and r.json()["field"] == "If-Match"


def test_two_puts_racing_with_the_same_if_match(client: TestClient) -> None:
    client.put("/v1/memories/m1?wait=true", json=memory())
    for round_ in range(10):
        tag = f'"{round_ + 1}"'
        start = threading.Barrier(2)
        statuses: list[int] = []

        def put(
            n: int, tag: str = tag, start: threading.Barrier = start, statuses: list[int] = statuses
        ) -> None:
            start.wait()
            body = memory(f"writer {n} in round {tag}")
            statuses.append(
                client.put("/v1/memories/m1", json=body, headers={"If-Match": tag}).status_code
            )

        threads = [threading.Thread(target=put, args=(n,)) for n in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(statuses) == [200, 412]


def test_the_document_declares_the_headers(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    put = doc["paths"]["/v1/memories/{memory_id}"]["put"]
    names = {p["name"] for p in put["parameters"] if p["in"] == "header"}
    assert {"if-match", "if-none-match"} <= names
    assert "412" in put["responses"]
    assert "ETag" in put["responses"]["200"]["headers"]
    assert "ETag" in put["responses"]["201"]["headers"]
    read = doc["paths"]["/v1/memories/{memory_id}"]["get"]
    assert "ETag" in read["responses"]["200"]["headers"]
    assert "$ref" in str(read["responses"]["200"]["content"])  # still the MemoryOut body
    delete = doc["paths"]["/v1/memories/{memory_id}"]["delete"]
    assert "if-match" in {p["name"] for p in delete["parameters"] if p["in"] == "header"}
    listing = doc["paths"]["/v1/memories"]["get"]
    assert {"scope", "type", "state", "tag", "cursor", "limit"} <= {
        p["name"] for p in listing["parameters"]
    }
