"""What a durable Cassandra commit log costs the records projection (one run).

    AIMEM_CASSANDRA_COMMITLOG=periodic deploy/local/servers.sh start cassandra  # then group
    python -m loadtest.bench_commitlog --cassandra 127.0.0.1:9042 --events 20000

Applies ``--events`` new memories through the real ``RecordsSink`` into a fresh keyspace,
in batches of 500 (the workers' batch size), and times it; then times ``--singles``
one-event batches (the latency a lone write sees: its rows, then the checkpoint). Run it
once against a node started with ``AIMEM_CASSANDRA_COMMITLOG=periodic`` and once with
``group`` (the default).
"""

from __future__ import annotations

import argparse
import time
import uuid
from datetime import UTC, datetime

from ai_memory.adapters.cassandra.record_store import CassandraRecordStore
from ai_memory.core.events import EventHeader, LoggedEvent, MemoryWritten
from ai_memory.core.positions import pack
from ai_memory.core.record import MemoryRecord, MemoryType
from ai_memory.projector.sinks import RecordsSink
from loadtest.bench_embedded import percentile

BATCH = 500


def event(n: int, at: datetime) -> LoggedEvent:
    rec = MemoryRecord(
        id=f"b-{n:07d}",
        type=MemoryType.FACT,
        content=f"Benchmark memory {n} about topic {n % 97}.",
        scope=f"user:u{n % 50}",
        source_agent="bench",
        created_at=at,
    )
    written = MemoryWritten(
        header=EventHeader(f"evt-{n}", "default", at, "bench"),
        record=rec,
        version=1,
        content_sha256=rec.fingerprint(),
    )
    return LoggedEvent(pack(0, n), written)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cassandra", default="127.0.0.1:9042")
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--singles", type=int, default=300)
    args = parser.parse_args()
    store = CassandraRecordStore.from_url(
        f"cassandra://{args.cassandra}/aimem_bench_{uuid.uuid4().hex[:8]}"
    )
    sink = RecordsSink(store)
    now = datetime.now(UTC)
    events = [event(n, now) for n in range(args.events + args.singles)]
    try:
        started = time.perf_counter()
        for i in range(0, args.events, BATCH):
            sink.apply(events[i : min(i + BATCH, args.events)])
        batched = time.perf_counter() - started
        latencies = []
        for e in events[args.events :]:
            t0 = time.perf_counter()
            sink.apply([e])
            latencies.append((time.perf_counter() - t0) * 1000)
    finally:
        store.close()
    print(f"batches of {BATCH}: {args.events / batched:,.0f} events/s ({batched:.1f} s)")
    print(
        f"one-event batches: p50 {percentile(latencies, 0.5):.1f} ms, "
        f"p95 {percentile(latencies, 0.95):.1f} ms"
    )


if __name__ == "__main__":
    main()
