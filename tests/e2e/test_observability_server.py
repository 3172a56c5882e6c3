"""``ai-memory serve`` with tracing and JSON logs on, as an operator turns them on
(``OTEL_TRACES_EXPORTER=console``, ``AIMEM_TRACES_FILE``, ``AIMEM_LOG_FORMAT=json``).

Every log line is a JSON object; each request's access line names its method, path
(query elided), route template, status, request id, tenant and key id, and the trace id
of its span; a canary written as content, tag, query text, query string and part of a
wrong key shows up in no log line and no span attribute, nor does the key."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ai_memory.core.access import generate_token
from tests.e2e.test_server_and_cli import Server

CANARY = "quokkacanary5519"


@pytest.fixture
def traced_server(tmp_path: Path) -> Iterator[tuple[Server, str, Path]]:
    token = generate_token()
    traces = tmp_path / "spans.jsonl"
    server = Server(
        tmp_path / "data",
        AIMEM_ADMIN_KEY=token,
        AIMEM_LOG_FORMAT="json",
        OTEL_TRACES_EXPORTER="console",
        AIMEM_TRACES_FILE=str(traces),
        OTEL_SERVICE_NAME="",
    )
    try:
        yield server, token, traces
    finally:
        server.stop()


def json_lines(path: Path) -> list[dict[str, Any]]:
    lines = [x for x in path.read_text().splitlines() if x.startswith("{")]
    return [json.loads(x) for x in lines]


def test_json_logs_and_spans_name_requests_and_never_hold_content_or_keys(
    traced_server: tuple[Server, str, Path],
) -> None:
    server, token, traces = traced_server
    who = {"Authorization": f"Bearer {token}"}
    record = {
        "type": "fact",
        "scope": "user:alice",
        "source_agent": "ops",
        "content": f"The door code is {CANARY}.",
        "tags": [CANARY],
    }
    with httpx.Client(base_url=server.url, headers=who, timeout=30) as http:
        put = http.put("/v1/memories/door?wait=true", json=record)
        assert put.status_code == 201, put.text
        found = http.post("/v1/memories/search", json={"query": f"door {CANARY}"})
        assert found.status_code == 200 and found.json()["results"], found.text
        assert http.get(f"/v1/memories?tag={CANARY}").status_code == 200
        refused = http.get("/v1/memories/door", headers={"Authorization": f"Bearer x{CANARY}"})
        assert refused.status_code == 401
    server.stop()  # flushes the spans and closes the log

    raw_log = server.log_path.read_text()
    raw_spans = traces.read_text()
    for secret in (CANARY, token):
        assert secret not in raw_log
        assert secret not in raw_spans

    lines = json_lines(server.log_path)
    assert lines, raw_log
    text_lines = [x for x in raw_log.splitlines() if x.strip() and not x.startswith("{")]
    assert all(x.startswith("admin key ") for x in text_lines), text_lines  # the CLI's own
    access = {x.get("request_id"): x for x in lines if x.get("logger") == "uvicorn.access"}

    line = access[put.headers["x-request-id"]]
    assert line["route"] == "/v1/memories/{memory_id}"
    assert (line["http_method"], line["path"], line["status_code"]) == (
        "PUT",
        "/v1/memories/door",
        201,
    )
    assert line["tenant"] == "default" and line["key_id"] == token.split("_")[1]
    assert line["level"] == "INFO" and line["time"]

    listed = access[next(k for k, v in access.items() if v.get("route") == "/v1/memories")]
    assert listed["path"] == "/v1/memories" and "?…" in listed["message"]

    spans = [json.loads(x) for x in raw_spans.splitlines()]
    assert {s["resource"]["attributes"]["service.name"] for s in spans} == {"ai-memory-gateway"}
    server_span = next(s for s in spans if s["name"] == "PUT /v1/memories/{memory_id}")
    trace_id = server_span["context"]["trace_id"]
    assert f"0x{line['trace_id']}" == trace_id  # the log line names its trace
    in_trace = {s["name"] for s in spans if s["context"]["trace_id"] == trace_id}
    assert {
        "aimem.memory.write",
        "aimem.unit_of_work",
        "aimem.log.append",
        "aimem.projection.apply",
        "aimem.records.apply",
        "aimem.index.apply",
    } <= in_trace
    unauthorised = access[refused.headers["x-request-id"]]
    assert unauthorised["status_code"] == 401 and "key_id" not in unauthorised
