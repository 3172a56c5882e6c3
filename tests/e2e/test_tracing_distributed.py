"""One trace across processes: a write to a gateway on Kafka and the projector worker
that applies it (``ai-memory project``, another process) meet in one trace, through the
W3C ``traceparent`` header the gateway puts on the Kafka record.

Real Kafka (``deploy/local``); the gateway keeps its records and index in-process
(SQLite, Qdrant Edge), and an index worker projects into an Edge index of its own, so no
Cassandra is needed. Each process writes its spans to a file of its own
(``OTEL_TRACES_EXPORTER=console``, ``AIMEM_TRACES_FILE``); the test assembles the trace.
"""

from __future__ import annotations

import base64
import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from loadtest.cluster import Proc, free_port

CANARY = "ibexcanary2207"


def spans_in(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture
def deployment(tmp_path: Path, kafka_bootstrap: str) -> Iterator[dict[str, Any]]:
    port = free_port()
    env = {
        **os.environ,
        "AIMEM_EVENT_LOG": f"kafka://{kafka_bootstrap}/aimem.otel.{uuid.uuid4().hex[:10]}"
        "?partitions=2",
        "AIMEM_ENCRYPTION": "off",  # the worker has no vault of the gateway's SQLite keys
        "AIMEM_ROOT_KEY": base64.urlsafe_b64encode(os.urandom(32)).decode("ascii"),
        "AIMEM_PORT": str(port),
        "AIMEM_DATA_DIR": str(tmp_path / "gateway-data"),
        "AIMEM_LOG_FORMAT": "json",
        "OTEL_TRACES_EXPORTER": "console",
    }
    env.pop("OTEL_SERVICE_NAME", None)
    gateway_spans, worker_spans = tmp_path / "gateway.jsonl", tmp_path / "worker.jsonl"
    gateway = Proc(
        ["serve"], {**env, "AIMEM_TRACES_FILE": str(gateway_spans)}, tmp_path / "gateway.log"
    )
    worker_env = {
        **env,
        "AIMEM_TRACES_FILE": str(worker_spans),
        "AIMEM_INDEX": f"qdrant-edge:///{tmp_path / 'worker-index'}",
        "AIMEM_DATA_DIR": str(tmp_path / "worker-data"),
        "AIMEM_METRICS_PORT": str(free_port()),
    }
    worker = Proc(["project", "--projection", "index"], worker_env, tmp_path / "worker.log")
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert gateway.proc.poll() is None, gateway.log_path.read_text()
            assert time.monotonic() < deadline, gateway.log_path.read_text()
            time.sleep(0.2)
        yield {
            "url": url,
            "gateway": gateway,
            "worker": worker,
            "gateway_spans": gateway_spans,
            "worker_spans": worker_spans,
        }
    finally:
        worker.stop()
        gateway.stop()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_worker_span_is_a_child_of_the_write_through_the_kafka_record(
    deployment: dict[str, Any],
) -> None:
    record = {
        "type": "fact",
        "scope": "user:alice",
        "source_agent": "ops",
        "content": f"Alice keeps the spare key with {CANARY}.",
        "tags": [CANARY],
    }
    with httpx.Client(base_url=deployment["url"], timeout=60) as http:
        r = http.put("/v1/memories/spare-key?wait=true", json=record)
        assert r.status_code == 201, r.text
    worker_spans: Path = deployment["worker_spans"]
    worker: Proc = deployment["worker"]
    deadline = time.monotonic() + 180  # the worker joins its group, then projects
    applied: list[dict[str, Any]] = []
    while not applied:
        assert worker.proc.poll() is None, worker.log_path.read_text()[-4000:]
        assert time.monotonic() < deadline, worker.log_path.read_text()[-4000:]
        time.sleep(0.5)
        applied = [s for s in spans_in(worker_spans) if s["name"] == "aimem.index.apply"]
    worker.stop()  # flushes
    deployment["gateway"].stop()

    gateway = spans_in(deployment["gateway_spans"])
    workers = spans_in(worker_spans)
    put = next(s for s in gateway if s["name"] == "PUT /v1/memories/{memory_id}")
    trace_id = put["context"]["trace_id"]
    append = next(
        s
        for s in gateway
        if s["name"] == "aimem.log.append" and s["context"]["trace_id"] == trace_id
    )
    batch = next(
        s
        for s in workers
        if s["name"] == "aimem.projection.apply" and s["context"]["trace_id"] == trace_id
    )
    # the worker's batch is the child of the gateway's append, across the Kafka record
    assert batch["parent_id"] == append["context"]["span_id"]
    assert batch["kind"] == "SpanKind.CONSUMER"
    assert batch["attributes"]["aimem.projection"] == "index"
    store = next(s for s in applied if s["context"]["trace_id"] == trace_id)
    assert store["parent_id"] == batch["context"]["span_id"]
    assert {s["resource"]["attributes"]["service.name"] for s in workers} == {
        "ai-memory-projector-index"
    }
    # the chain on the gateway: HTTP → use case → unit of work → append
    by_id = {s["context"]["span_id"]: s for s in gateway}
    names = []
    at: dict[str, Any] | None = append
    while at is not None:
        names.append(at["name"])
        at = by_id.get(at["parent_id"]) if at["parent_id"] else None
    assert names == [
        "aimem.log.append",
        "aimem.unit_of_work",
        "aimem.memory.write",
        "PUT /v1/memories/{memory_id}",
    ]
    everything = (
        deployment["gateway_spans"].read_text()
        + worker_spans.read_text()
        + worker.log_path.read_text()
        + deployment["gateway"].log_path.read_text()
    )
    assert CANARY not in everything
