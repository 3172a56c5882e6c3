"""What a call of the in-process SDK client costs: ``InProcessClient`` over a fresh
embedded container, per call, for the calls embedded code makes most.

    python -m loadtest.bench_in_process --size 2000 --calls 300

Loads ``--size`` memories with one ``import_bundle``, then times ``--calls`` of each of
``write`` (unwaited), ``get``, ``search`` and ``list_memories``, and one ``write_many``
of 500. Prints a markdown table (per-call p50/p95 in ms, and rates).
"""

from __future__ import annotations

import argparse
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ai_memory.bootstrap import build
from ai_memory.sdk.in_process import InProcessClient
from ai_memory.settings import Settings
from loadtest.corpus import QUERIES, memories

WORK = Path(__file__).parent / ".work"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(calls: int, call: Callable[[int], object]) -> tuple[float, float]:
    """p50 and p95 of ``calls`` calls, in ms (after a few untimed warm-up calls)."""
    for i in range(5):
        call(i)
    lat: list[float] = []
    for i in range(calls):
        t = time.perf_counter()
        call(i)
        lat.append(time.perf_counter() - t)
    return percentile(lat, 0.5) * 1000, percentile(lat, 0.95) * 1000


def bench(size: int, calls: int) -> dict[str, float]:
    data = WORK / f"in-process-{size}"
    shutil.rmtree(data, ignore_errors=True)
    container = build(Settings(data_dir=data))
    container.start()
    out: dict[str, float] = {}
    try:
        with InProcessClient(container) as memory:
            lines: list[dict[str, Any]] = [{"kind": "record", "record": m} for m in memories(size)]
            t = time.perf_counter()
            report = memory.import_bundle(lines, wait=True)
            out["import_per_s"] = size / (time.perf_counter() - t)
            ids = [m["record"]["id"] for m in lines[: min(size, 500)]]

            def write(i: int) -> Any:
                return memory.write(f"Bench {i} on lag.", scope="user:w", source_agent="b")

            def search(i: int) -> Any:
                return memory.search(QUERIES[i % len(QUERIES)], scope=f"user:u{i % 20}")

            cases: dict[str, Callable[[int], object]] = {
                "write": write,
                "get": lambda i: memory.get(ids[i % len(ids)], min_position=report.position),
                "search": search,
                "list_memories": lambda i: memory.list_memories(scope=f"user:u{i % 20}"),
            }
            for name, call in cases.items():
                out[f"{name}_p50_ms"], out[f"{name}_p95_ms"] = timed(calls, call)
            batch = [
                {"content": f"Batch {i}.", "scope": "user:b", "source_agent": "b"}
                for i in range(500)
            ]
            t = time.perf_counter()
            memory.write_many(batch)
            out["write_many_per_s"] = len(batch) / (time.perf_counter() - t)
    finally:
        container.close()
        shutil.rmtree(data, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    row = bench(args.size, args.calls)
    print(f"| metric | {args.size:,} memories |\n|---|---|")
    for key, value in row.items():
        print(f"| {key} | {value:,.2f} |")


if __name__ == "__main__":
    main()
