"""What a search's engine query costs with each number of search threads
(``python -m loadtest.probe_engine_threads --data DIR --locomo locomo10.json
[--threads 0,1,2] [--rounds 3]``).

On a copy of a scale profile's data dir (``ai-memory bench scale --locomo … --data-dir
DIR``), ``--queries`` LoCoMo questions are searched in process as the live server searches
them (hybrid, top 10, rerank and context on) and the engine requests of each search's
query (its ``query_batch``: the dense and keyword retrievers, the dated ones when the
question names a period) are kept. Then, round after round, a fresh copy of the index's
shard is opened with each ``max_search_threads`` in turn (0: the engine's own pool;
``AIMEM_INDEX_SEARCH_THREADS``) and the kept requests are replayed:
as batches, as the live index sends them, and one request at a time. Per configuration
and round: the process's CPU and the wall time per batch and per request (CPU above wall
time is the engine's pool threads working beside the caller, or waiting for work).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from ai_memory.adapters import qdrant_edge_index
from ai_memory.adapters.edge_compaction import EdgeLayout, edge_config
from ai_memory.benchmarks import locomo
from ai_memory.bootstrap import build
from ai_memory.service.memory_service import SearchRequest
from ai_memory.settings import Settings


class Capture:
    """The live shard, its ``query_batch`` requests kept."""

    def __init__(self, shard: Any, kept: list[Any]) -> None:
        self._shard = shard
        self._kept = kept

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._shard, name)
        if name != "query_batch":
            return found

        def query_batch(request: Any) -> Any:
            self._kept.append(request)
            return found(request)

        return query_batch


def captured(
    data: Path, questions: Sequence[str], scope: str | None
) -> tuple[list[Any], Path, int]:
    """The engine requests of one search per question, the live shard's directory and
    the dimension of its vectors."""
    kept: list[Any] = []
    live = qdrant_edge_index.QdrantEdgeIndex._live

    def capturing(index: Any) -> Any:
        return Capture(live(index), kept)

    setattr(qdrant_edge_index.QdrantEdgeIndex, "_live", capturing)  # noqa: B010
    container = build(Settings(data_dir=data))
    dim = container.service.embedder.dim
    try:
        container.start()
        for question in questions:
            request = SearchRequest(question, None if scope is None else [scope], top_k=10)
            container.service.search("default", request)
    finally:
        setattr(qdrant_edge_index.QdrantEdgeIndex, "_live", live)  # noqa: B010
        container.close()
    (config,) = (data / "index").rglob("edge_config.json")
    return kept, config.parent, dim


def timed(calls: Sequence[Any], run: Any) -> tuple[float, float]:
    """(CPU ms, wall ms) per call, after a few calls to warm the shard's pages."""
    for call in calls[:10]:
        run(call)
    cpu, wall = time.process_time(), time.perf_counter()
    for call in calls:
        run(call)
    n = len(calls)
    return (time.process_time() - cpu) / n * 1e3, (time.perf_counter() - wall) / n * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a kept scale data dir")
    parser.add_argument("--locomo", type=Path, required=True, help="locomo10.json")
    parser.add_argument("--scope", default="user:bench", help="'' for tenant-wide")
    parser.add_argument("--threads", default="0,1,2", help="max_search_threads values")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=300)
    opt = parser.parse_args()
    questions = locomo.load(opt.locomo).queries
    asked = [questions[i % len(questions)] for i in range(opt.queries)]
    values = [int(v) for v in opt.threads.split(",")]
    with tempfile.TemporaryDirectory(prefix="aimem-threads-") as work:
        data = Path(work) / "data"
        shutil.copytree(opt.data, data)
        batches, shard_dir, dim = captured(data, asked, opt.scope or None)
        singles = [request for batch in batches for request in batch.queries]
        for round_ in range(1, opt.rounds + 1):
            for value in values:
                copy = Path(work) / f"shard-{value}"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(shard_dir, copy)
                config = edge_config(EdgeLayout(dim, search_threads=value))
                shard = qe.EdgeShard.load(str(copy), config)
                try:
                    batch_cpu, batch_wall = timed(batches, shard.query_batch)
                    single_cpu, single_wall = timed(singles, shard.query)
                finally:
                    shard.close()
                line = {
                    "round": round_,
                    "max_search_threads": value or "engine default",
                    "batch_cpu_ms": round(batch_cpu, 3),
                    "batch_wall_ms": round(batch_wall, 3),
                    "request_cpu_ms": round(single_cpu, 3),
                    "request_wall_ms": round(single_wall, 3),
                    "requests_per_batch": round(len(singles) / len(batches), 2),
                }
                print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
