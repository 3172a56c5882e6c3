"""The load the runner puts on the server over HTTP: NDJSON imports, searches timed one
by one, and a steady stream of single writes beside them."""

from __future__ import annotations

import itertools
import json
import random
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from ai_memory.benchmarks.corpus import sentence
from ai_memory.benchmarks.layout import WRITES_SCOPE
from ai_memory.benchmarks.server import BenchError

NDJSON = {"content-type": "application/x-ndjson"}
# Records per import request: about 5 MB of NDJSON, well under the server's 64 MiB body
# limit (AIMEM_MAX_IMPORT_BYTES) even for LoCoMo's longer turns.
IMPORT_CHUNK = 20_000
LINES_PER_WRITE = 1_000
# Searches before the timed ones, not counted: the first answers pay for lazy loading
# (the embedder's first batch, the index's pages) that a server in use has long paid.
WARMUP = 20


def _ndjson(records: Iterable[dict[str, Any]]) -> Iterator[bytes]:
    """The import body, streamed in pieces of ``LINES_PER_WRITE`` lines."""
    lines: list[str] = []
    for record in records:
        lines.append(json.dumps({"kind": "record", "record": record}))
        if len(lines) == LINES_PER_WRITE:
            yield ("\n".join(lines) + "\n").encode()
            lines = []
    if lines:
        yield ("\n".join(lines) + "\n").encode()


def _chunks(records: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for record in records:
        chunk.append(record)
        if len(chunk) == IMPORT_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def import_records(http: httpx.Client, records: Iterator[dict[str, Any]]) -> int:
    """Import in chunks; the records written. Its report's ``position`` is the tenant's
    token (``docs/design/POSITIONS.md``), nothing to compare with ``/healthz``: a caller
    waits with ``probes.wait_projected`` once it returned."""
    written = 0
    for chunk in _chunks(records):
        answer = http.post("/v1/import", content=_ndjson(chunk), headers=NDJSON)
        if answer.status_code != 200:
            raise BenchError(f"the import was refused: {answer.status_code} {answer.text[:500]}")
        report = answer.json()
        if report["rejected"] or report["errors"]:
            raise BenchError(f"the import rejected records: {report['errors'][:3]}")
        written += report["written"] + report["unchanged"]
    return written


@dataclass(frozen=True)
class Latency:
    """Percentiles of one kind of search, milliseconds."""

    p50_ms: float
    p95_ms: float
    p99_ms: float
    count: int


def percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of sorted values."""
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def latency(took_ms: list[float]) -> Latency:
    took_ms.sort()
    p50, p95, p99 = (percentile(took_ms, q) for q in (0.5, 0.95, 0.99))
    return Latency(p50, p95, p99, len(took_ms))


def time_searches(
    http: httpx.Client, queries: Sequence[str], scopes: Sequence[str | None], count: int
) -> Latency:
    """``count`` searches, one at a time, cycling through the queries and scopes (None:
    tenant-wide), after ``WARMUP`` that are not counted."""
    for i in range(WARMUP):
        _search(http, queries[-1 - i % len(queries)], scopes[i % len(scopes)])
    took: list[float] = []
    for i in range(count):
        query, scope = queries[i % len(queries)], scopes[i % len(scopes)]
        began = time.perf_counter()
        _search(http, query, scope)
        took.append((time.perf_counter() - began) * 1000)
    return latency(took)


def _search(http: httpx.Client, query: str, scope: str | None) -> None:
    body: dict[str, Any] = {"query": query, "top_k": 10}
    if scope is not None:
        body["scope"] = scope
    answer = http.post("/v1/memories/search", json=body)
    if answer.status_code != 200:
        raise BenchError(f"a search was refused: {answer.status_code} {answer.text[:500]}")


class Writer:
    """Single ``PUT /v1/memories/{id}`` at a steady rate into their own scope while
    searches are timed: a live server is written to as it is searched. The rate is spread
    over a few connections, as several agents would write, so that one write's round trip
    does not cap it; ``achieved`` falls short only when the server cannot keep up."""

    CONNECTIONS = 4

    def __init__(self, url: str, rate: float, first: int) -> None:
        self.url = url
        self.rate = rate
        self.next_id = first
        self.done = 0
        self.failed = 0
        self.elapsed = 0.0
        self.took_ms: list[float] = []  # per write: why ``achieved`` fell short, if it did
        self._ids = itertools.count(first)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._began = 0.0
        count = self.CONNECTIONS if rate > 0 else 0
        self._threads = [
            threading.Thread(target=self._run, name=f"bench-writer-{i}", daemon=True)
            for i in range(count)
        ]

    @property
    def achieved(self) -> float:
        return self.done / self.elapsed if self.elapsed else 0.0

    def latency(self) -> Latency | None:
        return latency(self.took_ms) if self.took_ms else None

    def start(self) -> None:
        self._began = time.perf_counter()
        for thread in self._threads:
            thread.start()

    def finish(self) -> None:
        self._stop_event.set()
        for thread in self._threads:
            thread.join()
        self.elapsed = time.perf_counter() - self._began
        self.next_id = next(self._ids)

    def _run(self) -> None:
        interval = len(self._threads) / self.rate
        due = time.perf_counter()
        with httpx.Client(base_url=self.url, timeout=30.0) as http:
            while not self._stop_event.is_set():
                n = next(self._ids)
                body = {
                    "type": "fact",
                    "content": sentence(random.Random(n), "fact", n),
                    "scope": WRITES_SCOPE,
                    "source_agent": "bench-writer",
                }
                sent = time.perf_counter()
                try:
                    ok = http.put(f"/v1/memories/bench-write-{n}", json=body).status_code < 300
                except httpx.HTTPError:
                    ok = False
                took = (time.perf_counter() - sent) * 1000
                with self._lock:
                    self.took_ms.append(took)
                    self.done += ok
                    self.failed += not ok
                # Behind schedule, the next writes go at once until it is caught up.
                due += interval
                self._stop_event.wait(max(0.0, due - time.perf_counter()))
