"""Searches served from the rows earlier searches read, against the embedded adapters over
HTTP: a new version or a forget is never hidden by a cached row
(``service.search_row_cache``)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container


def _put(client: TestClient, content: str) -> dict[str, Any]:
    body = {"type": "fact", "content": content, "scope": "user:alice", "source_agent": "a"}
    r = client.put("/v1/memories/tea?wait=true", json=body)
    assert r.status_code in (200, 201), r.text
    return r.json()  # type: ignore[no-any-return]


def _found(client: TestClient) -> list[tuple[str, str, int]]:
    r = client.post("/v1/memories/search", json={"query": "green tea", "top_k": 5})
    assert r.status_code == 200, r.text
    return [
        (h["record"]["id"], h["record"]["content"], h["record"]["version"])
        for h in r.json()["results"]
    ]


def test_a_cached_row_never_hides_a_new_version_or_a_forget(
    client: TestClient, container: Container
) -> None:
    cache = container.service.row_cache
    assert cache is not None  # on by default
    _put(client, "Alice drinks green tea.")
    assert _found(client) == [("tea", "Alice drinks green tea.", 1)]
    hits = cache.hits
    assert _found(client) == [("tea", "Alice drinks green tea.", 1)]
    assert cache.hits > hits  # the second search was served from the cache
    _put(client, "Alice drinks green tea, no sugar.")
    assert _found(client) == [("tea", "Alice drinks green tea, no sugar.", 2)]
    assert client.delete("/v1/memories/tea?wait=true").status_code == 200
    assert _found(client) == []
