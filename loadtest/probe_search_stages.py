"""Where an in-process search's time goes, stage by stage
(``python -m loadtest.probe_search_stages --data DIR [--scope user:bench] [--rounds 3]``).

On a copy of a scale profile's data dir (``ai-memory bench scale --locomo … --data-dir
DIR``), the container is built in this process (no HTTP) and 300 LoCoMo questions are asked
per round with ``MemoryService.search`` (hybrid, top 10, rerank and context on), as the live
server asks them: the same ones every round, or with ``--fresh-questions`` ones no earlier
round (the first, a warm-up, included) asked. Per round: p50 / p95 wall ms, the process's
CPU per search (every thread: the engine's search pool, the projections applying the read
counts the searches record), and the mean ms per search of each stage — the query's
embedding, the index search (of which the engine's query, its scrolls and retrieves for
conversation context), the record store's reads — with the engine calls counted.

Run it with ``PYTHONPATH`` pointing at each source tree to compare two of them; the
stages a tree lacks are left out.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ai_memory.adapters import edge_reads, qdrant_edge_index
from ai_memory.benchmarks import locomo
from ai_memory.bootstrap import build
from ai_memory.service.memory_service import SearchRequest
from ai_memory.settings import Settings

ENGINE_CALLS = ("query_batch", "query", "scroll", "retrieve")


class Stages:
    """Seconds spent in each wrapped call, and how often it was called."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def clear(self) -> None:
        self.seconds.clear()
        self.calls.clear()

    def timed(self, label: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - began
                self.calls[label] = self.calls.get(label, 0) + 1

        return wrapper

    def wrap(self, owner: Any, name: str, label: str) -> None:
        if hasattr(owner, name):
            self.patch(owner, name, self.timed(label, getattr(owner, name)))

    @staticmethod
    def patch(owner: Any, name: str, value: Any) -> None:
        setattr(owner, name, value)


class TimedShard:
    """The live shard, its engine calls timed."""

    def __init__(self, shard: Any, stages: Stages) -> None:
        self._shard = shard
        self._stages = stages

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._shard, name)
        return self._stages.timed(f"engine.{name}", found) if name in ENGINE_CALLS else found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a kept scale data dir")
    parser.add_argument("--locomo", type=Path, required=True, help="locomo10.json")
    parser.add_argument("--scope", default="user:bench", help="'' for tenant-wide")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--fresh-questions",
        action="store_true",
        help="each round asks questions no earlier round asked (what is kept between "
        "searches then helps only where different questions reach the same memories)",
    )
    opt = parser.parse_args()
    questions = locomo.load(opt.locomo).queries
    stages = Stages()
    live = qdrant_edge_index.QdrantEdgeIndex._live

    def timed_live(index: Any) -> Any:
        return TimedShard(live(index), stages)

    stages.patch(qdrant_edge_index.QdrantEdgeIndex, "_live", timed_live)
    for name in ("neighbours", "turns"):
        # Conversation context's lookups: methods of the index's kept reads, or (a tree
        # before them) functions the adapter imports.
        owner = getattr(edge_reads, "ContextReads", qdrant_edge_index)
        stages.wrap(owner, name, f"context.{name}")
    with tempfile.TemporaryDirectory(prefix="aimem-stages-") as work:
        data = Path(work) / "data"
        shutil.copytree(opt.data, data)
        container = build(Settings(data_dir=data))
        container.start()
        service = container.service
        stages.wrap(service.embedder, "embed", "embed")
        stages.wrap(service.index, "search", "index.search")
        for name in ("get_many", "unseal", "summaries"):
            stages.wrap(service.store, name, f"records.{name}")
        scopes = [opt.scope] if opt.scope else None
        try:
            for round_ in range(opt.rounds + 1):  # the first warms up
                stages.clear()
                took: list[float] = []
                cpu = time.process_time()
                for i in range(opt.queries):
                    n = i + (round_ * opt.queries if opt.fresh_questions else 0)
                    request = SearchRequest(questions[n % len(questions)], scopes, top_k=10)
                    began = time.perf_counter()
                    service.search("default", request)
                    took.append(time.perf_counter() - began)
                cpu_ms = (time.process_time() - cpu) / opt.queries * 1e3
                if round_ == 0:
                    continue
                took.sort()
                line = {
                    "round": round_,
                    "p50_ms": round(statistics.median(took) * 1e3, 2),
                    "p95_ms": round(took[int(len(took) * 0.95)] * 1e3, 2),
                    "cpu_ms_per_search": round(cpu_ms, 2),
                    "stages_ms": {
                        k: round(v / opt.queries * 1e3, 3) for k, v in stages.seconds.items()
                    },
                    "calls_per_search": {
                        k: round(v / opt.queries, 2)
                        for k, v in stages.calls.items()
                        if k.startswith("engine.")
                    },
                }
                print(json.dumps(line), flush=True)
        finally:
            container.close()


if __name__ == "__main__":
    main()
