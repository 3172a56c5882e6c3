"""Does a Qdrant Edge call hold the GIL? (``python -m loadtest.probe_edge_gil``)

A Python thread stamps the clock in a tight loop while the main thread makes one slow
engine call (an exact count over 100k points). If the binding released the GIL during
the call, the stamping thread would go on stamping through it (2 cores) and the longest
gap between its stamps would stay near the interpreter's switch interval; if the call
holds the GIL, that gap spans most of the call. Then ordered scrolls like conversation
context's (``adapters/edge_reads.neighbours``) are timed alone and beside a busy Python
thread: a call that released the GIL would wait up to a switch interval to take it back
on every return, a call that holds it waits only when the interval runs out.
"""

from __future__ import annotations

import argparse
import itertools
import random
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import qdrant_edge as qe

POINTS = 100_000
SCOPE = qe.FieldCondition("scope", match=qe.MatchValue("s"))


def make_shard(path: Path, points: int) -> qe.EdgeShard:
    config = qe.EdgeConfig(
        vectors={"dense": qe.EdgeVectorParams(size=8, distance=qe.Distance.Cosine)},
        wal_enabled=False,
    )
    shard = qe.EdgeShard.create(str(path), config)
    shard.update(qe.UpdateOperation.create_field_index("created_at", qe.PayloadSchemaType.Float))
    batch: list[qe.Point] = []
    for n in range(points):
        vector = [random.random() for _ in range(8)]
        payload = {"created_at": float(n), "scope": "s"}
        batch.append(qe.Point(str(uuid.uuid4()), {"dense": vector}, payload))
        if len(batch) == 5000:
            shard.update(qe.UpdateOperation.upsert_points(batch))
            batch = []
    if batch:
        shard.update(qe.UpdateOperation.upsert_points(batch))
    return shard


def longest_gap_during(call: Callable[[], object]) -> tuple[float, float]:
    """(the call's seconds, the longest gap between the stamping thread's stamps that
    overlaps it)."""
    stamps: list[float] = []
    stop = threading.Event()

    def stamp() -> None:
        while not stop.is_set():
            stamps.append(time.perf_counter())

    thread = threading.Thread(target=stamp)
    thread.start()
    time.sleep(0.02)
    began = time.perf_counter()
    call()
    ended = time.perf_counter()
    stop.set()
    thread.join()
    gaps = [b - a for a, b in itertools.pairwise(stamps) if b > began and a < ended]
    return ended - began, max(gaps, default=0.0)


def scroll_latencies(shard: qe.EdgeShard, points: int, count: int) -> list[float]:
    took = []
    for _ in range(count):
        at = random.uniform(10, points - 10)
        request = qe.ScrollRequest(
            limit=2,
            filter=qe.Filter(
                must=[SCOPE, qe.FieldCondition("created_at", range=qe.RangeFloat(gt=at))]
            ),
            with_payload=True,
            order_by=qe.OrderBy("created_at", direction=qe.Direction.Asc, start_from=at),
        )
        began = time.perf_counter()
        shard.scroll(request)
        took.append(time.perf_counter() - began)
    return sorted(took)


def busy_beside(work: Callable[[], list[float]]) -> list[float]:
    stop = threading.Event()

    def spin() -> None:
        n = 0
        while not stop.is_set():
            n += 1

    thread = threading.Thread(target=spin)
    thread.start()
    try:
        return work()
    finally:
        stop.set()
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", type=int, default=POINTS)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="edge-gil-"))
    try:
        shard = make_shard(tmp / "shard", args.points)
        count = qe.CountRequest(filter=qe.Filter(must=[SCOPE]), exact=True)
        print(f"switch interval {sys.getswitchinterval() * 1e3:.1f} ms, {args.points:,} points")
        for _ in range(3):
            took, gap = longest_gap_during(lambda: shard.count(count))
            print(
                f"exact count: {took * 1e3:.1f} ms; the stamping thread's longest gap "
                f"across it {gap * 1e3:.1f} ms"
            )
        alone = scroll_latencies(shard, args.points, 1000)
        beside = busy_beside(lambda: scroll_latencies(shard, args.points, 1000))
        for name, lat in (("alone", alone), ("beside a busy thread", beside)):
            p50, p95 = lat[len(lat) // 2], lat[int(len(lat) * 0.95)]
            print(f"ordered scroll {name}: p50 {p50 * 1e3:.3f} ms, p95 {p95 * 1e3:.3f} ms")
        shard.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
