"""Search under writes, configurations interleaved round by round on one data dir.

    python -m loadtest.bench_search_rounds --data DIR --rounds 3 \\
        base=/path/to/tree  other=/path/to/tree:VAR=value  off=/path/to/tree:context-off

Each round runs every configuration in turn: the data dir (a scale profile's, kept with
``ai-memory bench scale --data-dir DIR``) is copied afresh, a server of that source tree
(``PYTHONPATH``) with those environment variables starts on the copy, and 300 searches of
each kind of the scale profile are timed while 100 single writes/s go on
(``--writes-per-s``; 0 for a server that only searches) — the scale profile's search phase
without its minutes of import, so that configurations can alternate on a noisy shared
box. ``context-off`` sends ``context: false`` in the searches.
One JSON line per round and configuration: p50 / p95 ms of each kind (and under
``p99_max`` their p99 and longest), writes achieved, and the server's full garbage
collections so far (``aimem_gc_pause_seconds``: count, total ms).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ai_memory.benchmarks import locomo
from ai_memory.benchmarks.layout import BIG_SCOPE
from ai_memory.benchmarks.load import WARMUP, Writer, latency
from ai_memory.benchmarks.probes import wait_index_idle
from ai_memory.benchmarks.scale import SEARCH_KINDS
from ai_memory.benchmarks.server import BenchError, ServerProcess

# Ids of the writes beside the searches: far above the profile's own, so a copy of the data
# dir never holds them already.
FIRST_WRITE = 10_000_000


@dataclass(frozen=True)
class Config:
    name: str
    env: dict[str, str]
    context: bool


def parse_config(text: str) -> Config:
    """``name=TREE[:VAR=value,...][:context-off]``."""
    name, _, spec = text.partition("=")
    tree, *options = spec.split(":")
    env = {"PYTHONPATH": f"{tree}/services:{tree}"}
    context = True
    for option in options:
        if option == "context-off":
            context = False
            continue
        for pair in option.split(","):
            key, _, value = pair.partition("=")
            env[key] = value
    return Config(name, env, context)


def search(http: httpx.Client, query: str, scope: str | None, context: bool) -> None:
    body: dict[str, Any] = {"query": query, "top_k": 10, "context": context}
    if scope is not None:
        body["scope"] = scope
    answer = http.post("/v1/memories/search", json=body)
    if answer.status_code != 200:
        raise BenchError(f"a search was refused: {answer.status_code} {answer.text[:300]}")


def full_collections(metrics: str) -> list[float] | None:
    """The server's full collections so far: ``[count, total ms]`` (None: a server that
    does not report them)."""
    found = {}
    for line in metrics.splitlines():
        for suffix in ("count", "sum"):
            if line.startswith(f'aimem_gc_pause_seconds_{suffix}{{generation="2"}}'):
                found[suffix] = float(line.rsplit(" ", 1)[1])
    if len(found) < 2:
        return None
    return [found["count"], round(found["sum"] * 1000, 1)]


def one_round(
    config: Config, data: Path, work: Path, queries: list[str], count: int, rate: float = 100.0
) -> dict[str, Any]:
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(data, work)
    server = ServerProcess(work, work.parent / f"server-{config.name}.log", config.env)
    server.start()
    try:
        with httpx.Client(base_url=server.url, timeout=600.0) as http:
            search(http, queries[0], BIG_SCOPE, config.context)
            wait_index_idle(http, server.check_alive)
            writer = Writer(server.url, rate, FIRST_WRITE) if rate > 0 else None
            if writer is not None:
                writer.start()
            row: dict[str, Any] = {"config": config.name}
            tails: dict[str, list[float]] = {}
            try:
                for kind, scopes in SEARCH_KINDS.items():
                    for i in range(WARMUP):
                        search(
                            http,
                            queries[-1 - i % len(queries)],
                            scopes[i % len(scopes)],
                            config.context,
                        )
                    took = []
                    for i in range(count):
                        began = time.perf_counter()
                        search(
                            http, queries[i % len(queries)], scopes[i % len(scopes)], config.context
                        )
                        took.append((time.perf_counter() - began) * 1000)
                    lat = latency(took)
                    row[kind] = [round(lat.p50_ms, 1), round(lat.p95_ms, 1)]
                    tails[kind] = [round(lat.p99_ms, 1), round(took[-1], 1)]
            finally:
                if writer is not None:
                    writer.finish()
            if writer is not None:
                writes = writer.latency()
                row["writes_per_s"] = round(writer.achieved, 1)
                if writes is not None:
                    row["write_p50_p95"] = [round(writes.p50_ms, 1), round(writes.p95_ms, 1)]
            row["p99_max"] = tails
            row["full_collections"] = full_collections(http.get("/metrics").text)
            row["load_1min"] = round(os.getloadavg()[0], 1)
            return row
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a kept scale data dir")
    parser.add_argument("--locomo", type=Path, required=True, help="locomo10.json")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--writes-per-s", type=float, default=100.0, help="single writes beside the searches"
    )
    parser.add_argument("configs", nargs="+", help="name=TREE[:VAR=value,...][:context-off]")
    args = parser.parse_args()
    configs = [parse_config(c) for c in args.configs]
    queries = list(locomo.load(args.locomo).queries)
    with tempfile.TemporaryDirectory(prefix="aimem-rounds-") as tmp:
        for number in range(args.rounds):
            for config in configs:
                row = one_round(
                    config, args.data, Path(tmp) / "data", queries, args.queries, args.writes_per_s
                )
                print(json.dumps({"round": number, **row}), flush=True)


if __name__ == "__main__":
    main()
