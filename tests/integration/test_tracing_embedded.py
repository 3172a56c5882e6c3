"""Traces of an embedded server, collected with the SDK's in-memory exporter: one write
and one search each form one trace, HTTP → use case → unit of work → log append →
projection (in-process, joined through the event's writer) → store; and no span holds a
memory's content, a query, a tag value, a key or a query string."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Sequence

import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from ai_memory import telemetry
from ai_memory.bootstrap import Container
from ai_memory.telemetry import tracing
from ai_memory.telemetry.logs import RequestContext
from tests.integration.test_api_keys_http import auth, key

CANARY = "zebracanary7731"  # content, tag, query text and query string: never on a span


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.enable(provider)
    yield exporter
    tracing.disable()
    provider.shutdown()


def finished(exporter: InMemorySpanExporter, *names: str) -> list[ReadableSpan]:
    """The spans so far, once every name in ``names`` has ended (projections end theirs on
    their own threads, a moment after the answer)."""
    deadline = time.monotonic() + 10
    while True:
        done = list(exporter.get_finished_spans())
        if all(any(s.name == n for s in done) for n in names) or time.monotonic() > deadline:
            return done
        time.sleep(0.02)


def one(spans: Sequence[ReadableSpan], name: str) -> ReadableSpan:
    found = [s for s in spans if s.name == name]
    assert len(found) == 1, (name, [s.name for s in spans])
    return found[0]


def parent_of(span: ReadableSpan, spans: Sequence[ReadableSpan]) -> ReadableSpan:
    assert span.parent is not None, f"{span.name} has no parent"
    matches = [s for s in spans if s.context.span_id == span.parent.span_id]
    assert matches, f"the parent of {span.name} was not exported"
    return matches[0]


def chain(span: ReadableSpan, spans: Sequence[ReadableSpan]) -> list[str]:
    """Names from ``span`` up to its root."""
    names = [span.name]
    while span.parent is not None:
        span = parent_of(span, spans)
        names.append(span.name)
    return names


def memory(content: str) -> dict[str, object]:
    return {
        "type": "fact",
        "scope": "user:alice",
        "source_agent": "planner",
        "content": content,
        "tags": [CANARY],
    }


def test_a_write_is_one_trace_from_http_to_the_stores(
    client: TestClient, spans: InMemorySpanExporter
) -> None:
    r = client.put("/v1/memories/m1?wait=true", json=memory(f"Alice likes {CANARY} tea."))
    assert r.status_code == 201, r.text
    done = finished(spans, "aimem.records.apply", "aimem.index.apply")

    server = one(done, "PUT /v1/memories/{memory_id}")
    assert server.parent is None
    assert server.attributes is not None
    assert server.attributes["http.route"] == "/v1/memories/{memory_id}"
    assert server.attributes["http.response.status_code"] == 201
    assert server.attributes["aimem.request_id"] == r.headers["x-request-id"]
    trace_id = server.context.trace_id
    # every step of the write, and both projections, in the request's trace
    for name in ("aimem.records.apply", "aimem.index.apply"):
        store = one(done, name)
        assert store.context.trace_id == trace_id
        assert chain(store, done) == [
            name,
            "aimem.projection.apply",
            "aimem.log.append",
            "aimem.unit_of_work",
            "aimem.memory.write",
            "PUT /v1/memories/{memory_id}",
        ]
    projections = [s for s in done if s.name == "aimem.projection.apply"]
    assert {(s.attributes or {})["aimem.projection"] for s in projections} == {"records", "index"}
    append = one(done, "aimem.log.append")
    assert (append.attributes or {})["aimem.events"] == 1
    assert (one(done, "aimem.memory.write").attributes or {})["aimem.tenant"] == "default"


def test_a_search_is_one_trace_through_the_index_and_the_records(
    client: TestClient, spans: InMemorySpanExporter
) -> None:
    r = client.put("/v1/memories/m1?wait=true", json=memory(f"Alice likes {CANARY} tea."))
    assert r.status_code == 201, r.text
    spans.clear()
    r = client.post("/v1/memories/search", json={"query": f"what {CANARY} does alice like"})
    assert r.status_code == 200, r.text
    assert r.json()["results"], r.text
    done = finished(spans, "POST /v1/memories/search")
    for name in ("aimem.index.search", "aimem.records.get_many", "aimem.records.unseal"):
        assert chain(one(done, name), done) == [
            name,
            "aimem.memory.search",
            "POST /v1/memories/search",
        ]
    search = one(done, "aimem.memory.search")
    assert (search.attributes or {})["aimem.results"] == 1
    assert (one(done, "aimem.index.search").attributes or {})["aimem.candidates"] >= 1


def test_no_span_holds_content_queries_tags_keys_or_query_strings(
    client: TestClient, container: Container, spans: InMemorySpanExporter
) -> None:
    token = key(container, "acme", "admin")
    who = auth(token)
    content = f"The vault code is {CANARY}."
    put = client.put("/v1/memories/pathid-q9?wait=true", json=memory(content), headers=who)
    assert put.status_code == 201, put.text
    client.post("/v1/memories/search", json={"query": CANARY, "tags": [CANARY]}, headers=who)
    client.get(f"/v1/memories?tag={CANARY}", headers=who)
    client.get(f"/v1/notes?topic={CANARY}", headers=who)
    client.delete(f"/v1/memories/pathid-q9?reason={CANARY}&wait=true", headers=who)
    # refusals too: an invalid key, a body quoting the canary where it is refused
    client.put("/v1/memories/c2", json={"content": CANARY}, headers=auth(token + CANARY))
    client.put("/v1/memories/c2", json={**memory(CANARY), "type": CANARY}, headers=who)
    done = finished(spans, "aimem.records.apply")
    assert len(done) > 10
    server = [s for s in done if s.name.startswith("PUT /v1/memories/")]
    assert any((s.attributes or {}).get("aimem.key_id") for s in server)
    exported = "\n".join(s.to_json() for s in done)
    for secret in (CANARY, token, "Bearer"):
        assert secret not in exported
    for s in done:  # and the path's values are left to the route template
        assert "pathid-q9" not in json.dumps(dict(s.attributes or {})), s.name


def test_an_unexpected_failure_is_an_error_span_and_log_lines_name_its_request(
    client: TestClient,
    container: Container,
    spans: InMemorySpanExporter,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def explode(*_: object, **__: object) -> None:
        raise RuntimeError(f"disk on fire near {CANARY}")

    monkeypatch.setattr(container.services.memory, "get", explode)
    lines: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = lines.append  # type: ignore[method-assign]
    handler.addFilter(RequestContext())
    logging.getLogger("ai_memory.entrypoints.http").addHandler(handler)
    try:
        r = client.get("/v1/memories/m1", headers={"x-request-id": "req-500"})
    finally:
        logging.getLogger("ai_memory.entrypoints.http").removeHandler(handler)
    assert r.status_code == 500
    server = one(finished(spans, "GET /v1/memories/{memory_id}"), "GET /v1/memories/{memory_id}")
    assert (server.attributes or {})["http.response.status_code"] == 500
    assert server.status.status_code is StatusCode.ERROR
    assert CANARY not in server.to_json()
    (logged,) = [x for x in lines if x.exc_info]
    assert getattr(logged, "request_id", None) == "req-500"
    assert getattr(logged, "route", None) == "/v1/memories/{memory_id}"
    assert getattr(logged, "trace_id", None) == format(server.context.trace_id, "032x")
