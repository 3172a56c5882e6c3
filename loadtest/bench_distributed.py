"""Distributed-mode benchmark: HTTP → Kafka → Cassandra + index, all on one box.

    deploy/local/servers.sh start all && deploy/local/servers.sh wait all
    python -m loadtest.bench_distributed --memories 20000

Runs the gateway and two records projector workers as real processes (see
``loadtest.cluster``) and measures: sustained end-to-end ingest (acknowledged, and fully
projected into Cassandra and the index), write→searchable lag, search latency through the
gateway, and replay throughput of the records projection from offset 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from ai_memory.adapters.cassandra.record_store import CassandraRecordStore
from ai_memory.adapters.kafka.event_log import KafkaEventLog
from ai_memory.projector.sinks import RecordsSink
from ai_memory.projector.tailer import ProjectionTailer, rebuild_all
from ai_memory.serialization import AvroEventSerializer
from loadtest.bench_embedded import percentile
from loadtest.corpus import QUERIES, memories

CHUNK = 500

NDJSON = {"content-type": "application/x-ndjson"}


def chunks(count: int) -> list[bytes]:
    out, batch = [], []
    for m in memories(count):
        batch.append(json.dumps({"kind": "record", "record": m}))
        if len(batch) == CHUNK:
            out.append(("\n".join(batch) + "\n").encode())
            batch = []
    if batch:
        out.append(("\n".join(batch) + "\n").encode())
    return out


def main() -> None:
    from loadtest.cluster import Cluster

    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    kafka = f"127.0.0.1:{os.environ.get('AIMEM_KAFKA_PORT', '9092')}"
    cassandra = f"127.0.0.1:{os.environ.get('AIMEM_CASSANDRA_PORT', '9042')}"
    tmp = Path(tempfile.mkdtemp(prefix="aimem-bench-"))
    cluster = Cluster(tmp, kafka, cassandra)
    out: dict[str, float] = {}
    try:
        cluster.start_gateway()
        cluster.start_worker(1)
        cluster.start_worker(2)
        bodies = chunks(args.memories)
        with httpx.Client(base_url=cluster.url, timeout=300) as http:
            t0 = time.perf_counter()
            with ThreadPoolExecutor(args.clients) as pool:
                reports = list(
                    pool.map(
                        lambda b: http.post("/v1/import", content=b, headers=NDJSON).json(), bodies
                    )
                )
            acked = time.perf_counter() - t0
            assert sum(r["written"] for r in reports) == args.memories, reports[:1]
            cluster.wait_caught_up(timeout=1800)
            projected = time.perf_counter() - t0
            out["ingest_acked_per_s"] = args.memories / acked
            out["ingest_projected_per_s"] = args.memories / projected

            lags: list[float] = []
            for n in range(200):
                token = f"lagprobe{n}x"
                body = {
                    "type": "fact",
                    "content": f"Lag probe {n} carries {token}.",
                    "scope": "user:probe",
                    "source_agent": "bench",
                }
                http.post("/v1/memories", json=body).raise_for_status()
                start = time.perf_counter()
                while True:
                    hits = http.post(
                        "/v1/memories/search",
                        json={
                            "query": token,
                            "mode": "keyword",
                            "scope": "user:probe",
                            "top_k": 1,
                        },
                    ).json()["results"]
                    if hits:
                        break
                    time.sleep(0.005)
                lags.append(time.perf_counter() - start)
            out["write_to_searchable_p50_ms"] = percentile(lags, 0.5) * 1000
            out["write_to_searchable_p95_ms"] = percentile(lags, 0.95) * 1000

            lat: list[float] = []
            for i in range(500):
                body = {"query": QUERIES[i % len(QUERIES)], "scope": f"user:u{i % 20}"}
                t = time.perf_counter()
                http.post("/v1/memories/search", json=body).raise_for_status()
                lat.append(time.perf_counter() - t)
            out["search_gateway_p50_ms"] = percentile(lat, 0.5) * 1000
            out["search_gateway_p95_ms"] = percentile(lat, 0.95) * 1000
        cluster.stop()

        log = KafkaEventLog.from_url(cluster.log_url, AvroEventSerializer())
        fresh = CassandraRecordStore.from_url(cluster.store_url + "_replay")
        try:
            tailers = [
                ProjectionTailer(log, RecordsSink(fresh), partition=p) for p in log.partitions()
            ]
            t = time.perf_counter()
            applied = rebuild_all(tailers)
            out["replay_records_cassandra_per_s"] = applied / (time.perf_counter() - t)
        finally:
            log.close()
            fresh.close()
    finally:
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"| metric | {args.memories:,} memories, {args.clients} import clients |")
    print("|---|---|")
    for key, value in out.items():
        print(f"| {key} | {value:,.1f} |")


if __name__ == "__main__":
    main()
