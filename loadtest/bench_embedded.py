"""Embedded-mode benchmark: import, write, search and replay throughput, peak memory.

    python -m loadtest.bench_embedded --sizes 10000 100000

Runs the real server (uvicorn on loopback, in this process) on a fresh data dir per size
and drives it over HTTP with httpx; search is also measured in-process to separate the
engine from HTTP overhead. Prints a markdown table for loadtest/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from ai_memory.bootstrap import Container, build
from ai_memory.entrypoints.http.app import create_app
from ai_memory.service.memory_service import SearchRequest
from ai_memory.settings import Settings
from loadtest.corpus import QUERIES, memories

WORK = Path(__file__).parent / ".work"

NDJSON = {"content-type": "application/x-ndjson"}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class LiveServer:
    def __init__(self, container: Container, port: int = 8765) -> None:
        config = uvicorn.Config(
            create_app(container.services), host="127.0.0.1", port=port, log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = f"http://127.0.0.1:{port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        while not self.server.started:
            time.sleep(0.05)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join()


def ndjson(count: int) -> Iterator[bytes]:
    batch: list[str] = []
    for m in memories(count):
        batch.append(json.dumps({"kind": "record", "record": m}))
        if len(batch) == 1000:
            yield ("\n".join(batch) + "\n").encode()
            batch = []
    if batch:
        yield ("\n".join(batch) + "\n").encode()


def bench_size(size: int) -> dict[str, Any]:
    data = WORK / f"data-{size}"
    shutil.rmtree(data, ignore_errors=True)
    container = build(Settings(data_dir=data))
    container.start()
    out: dict[str, Any] = {"size": size}
    try:
        with LiveServer(container) as live, httpx.Client(base_url=live.url, timeout=None) as http:
            # 1. Import over HTTP: acknowledged (on the log) and fully projected.
            t0 = time.perf_counter()
            report = http.post("/v1/import", content=ndjson(size), headers=NDJSON).json()
            acked = time.perf_counter() - t0
            # The report shows the tenant's token; the wait takes the log position.
            logged = container.services.positions.taken("default", report["position"])
            container.service.wait_for(logged, timeout=3600)
            projected = time.perf_counter() - t0
            assert report["written"] == size, report
            out["import_acked_per_s"] = size / acked
            out["import_projected_per_s"] = size / projected

            # 2. Single writes over HTTP, one client, waiting for projections each time.
            lat: list[float] = []
            for n in range(300):
                body = {
                    "type": "fact",
                    "content": f"Benchmark write {n} about Kafka lag.",
                    "scope": "user:writer",
                    "source_agent": "bench",
                }
                t = time.perf_counter()
                r = http.post("/v1/memories", json=body, params={"wait": "true"})
                lat.append(time.perf_counter() - t)
                assert r.status_code == 201
            out["write_wait_p50_ms"] = percentile(lat, 0.5) * 1000
            out["write_wait_p95_ms"] = percentile(lat, 0.95) * 1000
            lat.clear()
            t = time.perf_counter()
            for n in range(1000):
                body = {
                    "type": "fact",
                    "content": f"Unwaited write {n} about Cassandra.",
                    "scope": "user:writer",
                    "source_agent": "bench",
                }
                http.post("/v1/memories", json=body)
            out["write_http_per_s"] = 1000 / (time.perf_counter() - t)

            # 3. Search: in-process (engine + embedding) and over HTTP.
            svc = container.service
            for q in QUERIES:  # warm-up
                svc.search("default", SearchRequest(q, scopes=["user:u3"]))
            lat = []
            for i in range(1000):
                q = QUERIES[i % len(QUERIES)]
                t = time.perf_counter()
                svc.search("default", SearchRequest(q, scopes=[f"user:u{i % 20}"], top_k=10))
                lat.append(time.perf_counter() - t)
            out["search_p50_ms"] = percentile(lat, 0.5) * 1000
            out["search_p95_ms"] = percentile(lat, 0.95) * 1000
            lat = []
            for i in range(1000):
                q = QUERIES[i % len(QUERIES)]
                t = time.perf_counter()
                svc.search("default", SearchRequest(q, top_k=10))
                lat.append(time.perf_counter() - t)
            out["search_unscoped_p50_ms"] = percentile(lat, 0.5) * 1000
            out["search_unscoped_p95_ms"] = percentile(lat, 0.95) * 1000
            lat = []
            for i in range(500):
                body = {"query": QUERIES[i % len(QUERIES)], "scope": f"user:u{i % 20}"}
                t = time.perf_counter()
                http.post("/v1/memories/search", json=body).raise_for_status()
                lat.append(time.perf_counter() - t)
            out["search_http_p50_ms"] = percentile(lat, 0.5) * 1000
            out["search_http_p95_ms"] = percentile(lat, 0.95) * 1000
    finally:
        container.close()

    # 4. Replay every projection from position 0 (offline, like `ai-memory replay`), then
    #    compact the index as `ai-memory replay` does and measure search again.
    rebuilt = build(Settings(data_dir=data))
    try:
        for tailer in rebuilt.projections.tailers:
            t = time.perf_counter()
            applied = tailer.rebuild()
            out[f"replay_{tailer.name}_per_s"] = applied / (time.perf_counter() - t)
        t = time.perf_counter()
        rebuilt.index.optimize()
        out["optimize_s"] = time.perf_counter() - t
        for label, scoped in (("search_optimized", True), ("search_optimized_unscoped", False)):
            lat = []
            for i in range(1000):
                scopes = [f"user:u{i % 20}"] if scoped else None
                req = SearchRequest(QUERIES[i % len(QUERIES)], scopes=scopes, top_k=10)
                t = time.perf_counter()
                rebuilt.service.search("default", req)
                lat.append(time.perf_counter() - t)
            out[f"{label}_p50_ms"] = percentile(lat, 0.5) * 1000
            out[f"{label}_p95_ms"] = percentile(lat, 0.95) * 1000
    finally:
        rebuilt.close()
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    shutil.rmtree(data, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    rows = [bench_size(size) for size in args.sizes]
    keys = [k for k in rows[0] if k != "size"]
    print("| metric | " + " | ".join(f"{r['size']:,} memories" for r in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for key in keys:
        print(f"| {key} | " + " | ".join(f"{r[key]:,.1f}" for r in rows) + " |")
    print("\nSingle run; percentiles from that run.")


if __name__ == "__main__":
    main()
