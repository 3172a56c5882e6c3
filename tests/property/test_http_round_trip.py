"""The same property over HTTP: any memory the API accepts (201) is readable with GET as
it was acknowledged, and a keyword search in its scope with its own words returns it.
Responses are JSON encodings of what was stored, so this also proves every accepted
value can be sent back."""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from typing import Any
from urllib.parse import quote

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, assume, event, given, settings

from ai_memory.bootstrap import Container
from ai_memory.core.keywords import query_terms, sparse_terms
from ai_memory.core.ports import index_text
from ai_memory.core.record import record_from_json
from tests.property.log_probe import appended_since
from tests.strategies import hostile_bodies, record_bodies

PROTOCOL_FIELDS = ("id", "type", "content", "scope", "source_agent", "created_at", "ttl")
MAX_QUERY_CHARS = 4000  # under the edge's query limit
SLOW_IO = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def query_for(content: str) -> str:
    """Words of the content, whole, within the query limit."""
    if len(content) <= MAX_QUERY_CHARS:
        return content
    words, size = [], 0
    for word in content.split():
        if size + len(word) + 1 > MAX_QUERY_CHARS:
            break
        words.append(word)
        size += len(word) + 1
    return " ".join(words)


def post(client: TestClient, body: dict[str, Any]) -> Any:
    # A hostile meta nests up to 2,000 levels (strategies._HOSTILE) and the encoder
    # recurses once per level on top of pytest's and Hypothesis's frames: near the top of
    # that range the test's own encoding overflowed the interpreter's recursion limit.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        # ensure_ascii: a lone surrogate travels as the escape a client would send
        content = json.dumps(body, ensure_ascii=True)
    finally:
        sys.setrecursionlimit(limit)
    return client.post(
        "/v1/memories?wait=true", content=content, headers={"content-type": "application/json"}
    )


def check_round_trip(client: TestClient, now: datetime, written: dict[str, Any]) -> None:
    # Starlette's TestClient decodes a request path twice ("%2500" reaches the app as a
    # NUL), which uvicorn does not; ids with percent escapes are read back over real HTTP
    # in tests/integration/test_sdk.py::test_ids_with_percent_escapes_read_back.
    assume(not re.search(r"%[0-9A-Fa-f]{2}", written["id"]))
    got = client.get(f"/v1/memories/{quote(written['id'], safe='')}")
    assert got.status_code == 200, got.text
    stored = got.json()
    for name in (*PROTOCOL_FIELDS, "tags", "meta", "version", "state"):
        assert stored[name] == written[name], name

    record = record_from_json(stored)
    query = query_for(record.content)
    shared = set(query_terms(query).indices) & set(sparse_terms(index_text(record)).indices)
    if not shared or record.is_expired(now):
        event("not searchable (no shared words, or expired)")
        return
    found = client.post(
        "/v1/memories/search",
        json={"query": query, "scope": record.scope, "mode": "keyword", "top_k": 100},
    )
    assert found.status_code == 200, found.text
    assert record.id in [hit["record"]["id"] for hit in found.json()["results"]]
    event("searched and found")


@settings(SLOW_IO, max_examples=50)
@given(body=record_bodies())
def test_accepted_memories_read_back_and_are_found_over_http(
    container: Container, client: TestClient, body: dict[str, Any]
) -> None:
    response = post(client, body)
    assert response.status_code == 201, response.text
    check_round_trip(client, container.clock.now(), response.json()["record"])


@settings(SLOW_IO, max_examples=60)
@given(body=hostile_bodies())
def test_hostile_memories_are_refused_with_a_problem_or_round_trip(
    container: Container, client: TestClient, body: dict[str, Any]
) -> None:
    before = container.log.last_position()
    response = post(client, body)
    if response.status_code == 201:
        event("accepted")
        check_round_trip(client, container.clock.now(), response.json()["record"])
        return
    assert appended_since(container, before) == []
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json().get("rule") != "projectable", response.text
    event("refused with 422")
