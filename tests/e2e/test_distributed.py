"""Distributed mode end to end on real Kafka and Cassandra.

The gateway (``ai-memory serve``) appends to Kafka and keeps its index co-located (Qdrant
Edge, projected in-process from the Kafka partitions); two workers
(``ai-memory project --projection records``) share the records projection into Cassandra,
and an index worker (``ai-memory project --projection index``) projects into an Edge index
of its own (no Qdrant server binary is available here, and Edge opens in one process).
A records worker and the index worker are SIGKILLed mid-stream and restarted. Afterwards
every acknowledged write must be readable and searchable exactly once, and the Cassandra
state, the gateway's index and the index worker's index must equal a fresh replay of the
log. A delete issued while the workers are down is applied when they
come back, and neither a replay nor a re-import brings the memory back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from loadtest.cluster import Cluster
from loadtest.faults_check import worker_positions

from ai_memory.adapters.cassandra.record_store import CassandraRecordStore
from ai_memory.adapters.embedders import make_embedder
from ai_memory.adapters.kafka.event_log import KafkaEventLog
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.core.keywords import query_terms
from ai_memory.core.ports import IndexQuery
from ai_memory.projector.sinks import IndexSink, RecordsSink
from ai_memory.projector.tailer import ProjectionTailer, rebuild_all
from ai_memory.serialization import AvroEventSerializer
from tests.integration.test_http_api import portable

TOTAL = 10_000
CHUNK = 500

NDJSON = {"content-type": "application/x-ndjson"}


@pytest.fixture
def cluster(tmp_path: Path, kafka_bootstrap: str, cassandra_contact: str) -> Iterator[Cluster]:
    c = Cluster(tmp_path, kafka_bootstrap, cassandra_contact)
    yield c
    c.stop()


def bundle(start: int, count: int) -> bytes:
    lines = [
        json.dumps(
            {
                "kind": "record",
                "record": {
                    "id": f"m-{n:05d}",
                    "type": "fact",
                    "scope": f"user:u{n % 7}",
                    "source_agent": "e2e",
                    "content": f"Memory {n} mentions token zq{n}x for lookup.",
                },
            }
        )
        for n in range(start, start + count)
    ]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_projector_killed_mid_stream_loses_and_duplicates_nothing(cluster: Cluster) -> None:
    cluster.start_gateway()
    victim = cluster.start_worker(1)
    cluster.start_worker(2)
    indexer = cluster.start_worker(1, projection="index")
    acknowledged: set[str] = set()
    with httpx.Client(base_url=cluster.url, timeout=120) as http:
        for i, start in enumerate(range(0, TOTAL, CHUNK)):
            report = http.post("/v1/import", content=bundle(start, CHUNK), headers=NDJSON).json()
            assert report["written"] == CHUNK, report
            acknowledged.update(f"m-{n:05d}" for n in range(start, start + CHUNK))
            if i == 6:
                victim.kill()  # SIGKILL: no shutdown; it resumes from the view's checkpoint
            if i == 8:
                indexer.kill()  # the only index worker: the view waits for its restart
            if i == 12:
                cluster.start_worker(3)
            if i == 14:
                indexer = cluster.start_worker(2, projection="index")
        cluster.wait_caught_up()

        exported = [json.loads(x) for x in http.get("/v1/export").text.splitlines()]
        ids = [x["record"]["id"] for x in exported if x["kind"] == "record"]
        assert len(ids) == len(set(ids)) == TOTAL  # no duplicates, nothing lost
        assert set(ids) == acknowledged
        for n in (0, 3_333, 6_999, 9_999):  # readable and searchable
            assert http.get(f"/v1/memories/m-{n:05d}").status_code == 200
            hits = http.post(
                "/v1/memories/search", json={"query": f"zq{n}x", "mode": "keyword", "top_k": 1}
            ).json()
            assert hits["results"][0]["record"]["id"] == f"m-{n:05d}"
    wait_index_worker(cluster, indexer.metrics_port)
    indexer.stop()  # flushes its Edge index, which this test then opens
    cluster.workers.remove(indexer)
    cluster.drain_and_stop()
    assert_equals_fresh_replay(cluster)


def wait_index_worker(cluster: Cluster, metrics_port: int, timeout: float = 300) -> None:
    """Until the index worker reports the log head of every partition as applied."""
    log = KafkaEventLog.from_url(cluster.log_url, AvroEventSerializer())
    try:
        heads = {p: log.last_position(p) for p in log.partitions()}
    finally:
        log.close()
    deadline = time.monotonic() + timeout
    at: dict[int, int] = {}
    while time.monotonic() < deadline:
        try:
            at = worker_positions(metrics_port)
        except httpx.HTTPError:
            at = {}
        if all(at.get(p, 0) >= head for p, head in heads.items() if head):
            return
        time.sleep(0.5)
    raise AssertionError(f"the index worker did not catch up: {at} vs {heads}")


def assert_equals_fresh_replay(cluster: Cluster) -> None:
    """Rebuild both views from offset 0 of the same log and compare with what the running
    system produced (the killed worker's redelivered batches included)."""
    serializer = cluster.serializer()  # the deployment's vault opens sealed content
    log = KafkaEventLog.from_url(cluster.log_url, serializer)
    live = CassandraRecordStore.from_url(cluster.store_url)
    fresh = CassandraRecordStore.from_url(cluster.store_url + "_replay")
    embedder = make_embedder("static")
    live_index = QdrantEdgeIndex(
        cluster.index_dir / embedder.name, dim=embedder.dim, model_name=embedder.name
    )
    fresh_index = QdrantEdgeIndex(
        cluster.tmp / "replayed-index", dim=embedder.dim, model_name=embedder.name
    )
    worker_index = QdrantEdgeIndex(
        cluster.worker_index_dir / embedder.name, dim=embedder.dim, model_name=embedder.name
    )
    try:
        tailers = [ProjectionTailer(log, RecordsSink(fresh), partition=p) for p in log.partitions()]
        rebuild_all(tailers)
        sink = IndexSink(fresh_index, embedder)
        rebuild_all([ProjectionTailer(log, sink, partition=p) for p in log.partitions()])
        # Equality covers content, versions, states and the log positions they reflect.
        assert list(live.scan_records("default")) == list(fresh.scan_records("default"))
        assert list(live.scan_tombstones("default")) == list(fresh.scan_tombstones("default"))
        assert live_index.count("default") == fresh_index.count("default") == live.count("default")
        assert worker_index.count("default") == fresh_index.count("default")
        for n in (1, 4_242, 8_888):
            q = IndexQuery(
                "default",
                embedder.embed([f"zq{n}x"])[0],
                query_terms(f"zq{n}x"),
                now=_now(),
                limit=5,
            )
            expected = [h.memory_id for h in fresh_index.search(q)]
            assert [h.memory_id for h in live_index.search(q)] == expected
            assert [h.memory_id for h in worker_index.search(q)] == expected
    finally:
        for closable in (log, live, fresh, live_index, fresh_index, worker_index):
            closable.close()


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_delete_while_projectors_down_is_applied_and_never_resurrected(cluster: Cluster) -> None:
    cluster.env["AIMEM_WAIT_TIMEOUT"] = "2"
    cluster.start_gateway()
    worker = cluster.start_worker(1)
    with httpx.Client(base_url=cluster.url, timeout=120) as http:
        http.post("/v1/import", content=bundle(0, 50), headers=NDJSON)
        cluster.wait_caught_up()
        before_delete = http.get("/v1/export").content
        worker.stop()
        cluster.workers.clear()
        # Read-your-writes cannot be honoured while the records view is down: the delete
        # is on the log, the wait times out with 503 + Retry-After.
        waited = http.delete("/v1/memories/m-00007", params={"wait": "true"})
        assert waited.status_code == 503 and waited.json()["code"] == "projection_lag"
        assert int(waited.headers["Retry-After"]) >= 1
        again = http.delete("/v1/memories/m-00007")
        assert again.status_code == 200 and again.json()["already_forgotten"] is True
        # The records view has not seen the delete yet: its worker is down.
        assert http.get("/v1/memories/m-00007").status_code == 200
        cluster.start_worker(2)
        cluster.wait_caught_up()
        assert http.get("/v1/memories/m-00007").status_code == 410
        hits = http.post("/v1/memories/search", json={"query": "zq7x", "mode": "keyword"}).json()
        assert "m-00007" not in [h["record"]["id"] for h in hits["results"]]
        reimport = http.post("/v1/import", content=before_delete, headers=NDJSON).json()
        assert reimport["skipped_tombstoned"] == 1 and reimport["written"] == 0
        cluster.wait_caught_up()
        assert http.get("/v1/memories/m-00007").status_code == 410
        exported = http.get("/v1/export").text
    # Round trip: an empty distributed instance imports the export and exports the same
    # records and tombstones (order-insensitive).
    other = Cluster(cluster.tmp / "other", *cluster.servers)
    try:
        other.env["AIMEM_WAIT_TIMEOUT"] = "60"
        other.start_gateway()
        other.start_worker(1)
        with httpx.Client(base_url=other.url, timeout=120) as http2:
            report = http2.post("/v1/import", content=exported.encode(), headers=NDJSON).json()
            assert (report["written"], report["tombstones_applied"]) == (49, 1), report
            other.wait_caught_up()
            assert portable(http2.get("/v1/export").text) == portable(exported)
    finally:
        other.stop()
    cluster.drain_and_stop()
    # A replay from offset 0 ends with the tombstone, not the memory.
    log = KafkaEventLog.from_url(cluster.log_url, cluster.serializer())
    fresh = CassandraRecordStore.from_url(cluster.store_url + "_replay")
    try:
        rebuild_all(
            [ProjectionTailer(log, RecordsSink(fresh), partition=p) for p in log.partitions()]
        )
        assert fresh.get("default", "m-00007").__class__.__name__ == "Tombstone"
        assert fresh.count("default") == 49
    finally:
        log.close()
        fresh.close()
