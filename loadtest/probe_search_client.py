"""How much of a live search's latency over HTTP belongs to the benchmark's own client.

    python -m loadtest.probe_search_client --data DIR --locomo locomo10.json --rounds 2

On a copy of a kept scale data dir (``ai-memory bench scale --data-dir DIR``), a real
``ai-memory serve`` answers 300 big-scope searches per measurement, timed by two clients
of the same process: httpx (what the benchmarks and the Python SDK use) and the standard
library's ``http.client`` (a thin client: no pool, no models). Each round measures them
idle, then while 100 single writes/s go on from threads of this process (what
``bench_search_rounds`` and the scale profile do), then from a process of their own. If
the client's share of the interpreter or of the two cores made the figures, the thin
client and the separate writer process would show it.
One line per round and measurement: p50 / p95 ms of each client.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

from ai_memory.benchmarks import locomo
from ai_memory.benchmarks.layout import BIG_SCOPE
from ai_memory.benchmarks.load import Writer, latency
from ai_memory.benchmarks.probes import wait_index_idle
from ai_memory.benchmarks.server import BenchError, ServerProcess

SEARCHES = 300
RATE = 100.0
# Ids of the writes: far above the profile's own, and apart for each writer.
FIRST_WRITE = 10_000_000
PATH = "/v1/memories/search"


def _body(query: str) -> dict[str, Any]:
    return {"query": query, "top_k": 10, "scope": BIG_SCOPE}


def _timed(one: Callable[[str], None], queries: Sequence[str]) -> list[float]:
    took = []
    for i in range(SEARCHES):
        began = time.perf_counter()
        one(queries[i % len(queries)])
        took.append((time.perf_counter() - began) * 1000)
    lat = latency(took)
    return [round(lat.p50_ms, 2), round(lat.p95_ms, 2)]


def with_httpx(client: httpx.Client, queries: Sequence[str]) -> list[float]:
    def one(query: str) -> None:
        answer = client.post(PATH, json=_body(query))
        if answer.status_code != 200:
            raise BenchError(f"a search was refused: {answer.status_code}")
        answer.json()

    return _timed(one, queries)


def with_stdlib(port: int, queries: Sequence[str]) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"content-type": "application/json"}

    def one(query: str) -> None:
        conn.request("POST", PATH, json.dumps(_body(query)), headers)
        answer = conn.getresponse()
        data = answer.read()
        if answer.status != 200:
            raise BenchError(f"a search was refused: {answer.status}")
        json.loads(data)

    try:
        return _timed(one, queries)
    finally:
        conn.close()


def _writer_process(url: str, first: int, stop: Any, achieved: Any) -> None:
    writer = Writer(url, RATE, first)
    writer.start()
    stop.wait()
    writer.finish()
    achieved.value = writer.achieved


def one_round(
    number: int, server: ServerProcess, client: httpx.Client, queries: Sequence[str]
) -> None:
    def both() -> dict[str, list[float]]:
        return {"httpx": with_httpx(client, queries), "stdlib": with_stdlib(server.port, queries)}

    def show(row: dict[str, Any]) -> None:
        print(json.dumps({"round": number, **row}), flush=True)

    show({"writes": "none", **both()})
    first = FIRST_WRITE + number * 1_000_000
    writer = Writer(server.url, RATE, first)
    writer.start()
    try:
        row = both()
    finally:
        writer.finish()
    show({"writes": "threads of this process", **row, "writes_per_s": round(writer.achieved, 1)})
    stop = multiprocessing.Event()
    achieved = multiprocessing.Value("d", 0.0)
    process = multiprocessing.Process(
        target=_writer_process, args=(server.url, first + 500_000, stop, achieved)
    )
    process.start()
    try:
        time.sleep(1.0)  # the writer's connections are open and writing
        row = both()
    finally:
        stop.set()
        process.join()
    show({"writes": "a process of their own", **row, "writes_per_s": round(achieved.value, 1)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a kept scale data dir")
    parser.add_argument("--locomo", type=Path, required=True, help="locomo10.json")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    queries = list(locomo.load(args.locomo).queries)
    with tempfile.TemporaryDirectory(prefix="aimem-client-") as tmp:
        work = Path(tmp) / "data"
        shutil.copytree(args.data, work)
        server = ServerProcess(work, Path(tmp) / "server.log")
        server.start()
        try:
            with httpx.Client(base_url=server.url, timeout=600.0) as client:
                with_httpx(client, queries[-50:])  # lazy loading paid before timing
                wait_index_idle(client, server.check_alive)
                for number in range(args.rounds):
                    one_round(number, server, client, queries)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
