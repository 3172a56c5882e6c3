"""What a search's conversation context costs when turns share their times
(``python -m loadtest.probe_equal_times [--memories 1500] [--copies 4] [--rounds 3]``).

An embedded service in a fresh data dir takes the benchmarks' corpus (``loadtest.corpus``:
every fifth memory an interaction, 20 scopes, ``created_at`` 37 s apart) ``--copies``
times under other ids through ``write_many`` — as ``bench_cost``'s phases write it, so
each time is held by that many turns of a conversation — and answers the cost
benchmark's searches (its queries, one scope each) in process. Per round: process CPU and
wall ms per search, and per search the ordered scrolls and window reads of the context
lookups (``edge_reads._ordered``, ``edge_reads._windows``), ms and calls. Compare trees
with ``PYTHONPATH=<tree>/services:<tree>``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ai_memory.adapters import edge_reads
from ai_memory.bootstrap import build
from ai_memory.service.memory_service import SearchRequest
from ai_memory.settings import Settings
from loadtest.corpus import QUERIES, memories

LOOKUPS = ("_ordered", "_windows")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=1500, help="per copy")
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--searches", type=int, default=400)
    opt = parser.parse_args()
    seconds: dict[str, float] = {}
    calls: Counter[str] = Counter()

    def timed(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - began
                calls[name] += 1

        return wrapper

    for name in LOOKUPS:  # absent in a tree without them: left out
        if hasattr(edge_reads, name):
            setattr(edge_reads, name, timed(name, getattr(edge_reads, name)))
    with tempfile.TemporaryDirectory(prefix="aimem-equal-times-") as work:
        container = build(Settings(data_dir=Path(work) / "data"))
        container.start()
        service = container.service
        try:
            items = [
                m | {"id": f"c{copy}-{m['id']}"}
                for copy in range(opt.copies)
                for m in memories(opt.memories)
            ]
            for i in range(0, len(items), 200):
                service.write_many("default", items[i : i + 200], wait=i + 200 >= len(items))
            asked = [
                SearchRequest(QUERIES[i % len(QUERIES)], [f"user:u{i % 20}"], top_k=10)
                for i in range(opt.searches)
            ]
            for round_ in range(opt.rounds + 1):  # the first warms up
                seconds.clear()
                calls.clear()
                cpu, wall = time.process_time(), time.perf_counter()
                for request in asked:
                    service.search("default", request)
                n = len(asked)
                line = {
                    "round": round_,
                    "cpu_ms_per_search": round((time.process_time() - cpu) / n * 1e3, 2),
                    "wall_ms_per_search": round((time.perf_counter() - wall) / n * 1e3, 2),
                    "lookups": {
                        k: {
                            "ms": round(seconds.get(k, 0.0) / n * 1e3, 3),
                            "calls": round(calls[k] / n, 2),
                        }
                        for k in LOOKUPS
                    },
                }
                if round_:
                    print(json.dumps(line), flush=True)
        finally:
            container.close()


if __name__ == "__main__":
    main()
