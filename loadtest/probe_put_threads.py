"""Where a single write's server CPU goes, thread by thread (``python -m
loadtest.probe_put_threads --puts 1000 --clients 16``).

Starts ``ai-memory serve`` (embedded defaults, encryption on, keys in force) in a data
directory of its own, with every thread's OS name set to its Python name so ``/proc``
tells them apart: the event loop (HTTP parsing, middleware, validation, the answer), the
worker threads (``AnyIO worker thread``: screening, deciding, sealing, the vault and the
log), and one thread per in-process projection (``projector-records``,
``projector-index``). Warms up with ``--warmup`` PUTs, then sends ``--puts`` single
``PUT /v1/memories/{id}`` of new memories from ``--clients`` clients and waits until
every projection caught up; prints server CPU ms per PUT per thread (user + system, from
``/proc/<pid>/task/*/stat``, in clock ticks) and in total. ``loadtest.bench_cost``
measures the same total among its phases; this probe says which thread pays it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from ai_memory.core.access import generate_token
from loadtest.bench_distributed import renamed
from loadtest.cluster import free_port, named_cli, operator_key
from loadtest.proc_cpu import thread_cpu


def put_all(http: httpx.Client, prefix: str, count: int, clients: int) -> None:
    def put(item: dict[str, Any]) -> None:
        body = {k: v for k, v in item.items() if k != "id"}
        r = http.put(f"/v1/memories/{item['id']}", json=body)
        assert r.status_code in (200, 201), r.text[:300]

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(put, list(renamed(count, prefix))))


def caught_up(http: httpx.Client, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = http.get("/healthz").json()
        if all(p.get("lag", 0) == 0 for p in body.get("projections", [])):
            return
        time.sleep(0.1)
    raise AssertionError("the projections did not catch up")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--puts", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--warmup", type=int, default=600)
    opt = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="probe-put-threads-"))
    port, token = free_port(), generate_token()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIMEM_")}
    env |= {"AIMEM_DATA_DIR": str(tmp / "data"), "AIMEM_PORT": str(port)}
    env["AIMEM_ADMIN_KEY"] = token  # keys in force, as in bench_cost
    operator = operator_key(env)  # /healthz's lag needs an operator key of every tenant
    url = f"http://127.0.0.1:{port}"
    with (tmp / "server.log").open("wb") as log:
        server = subprocess.Popen(
            named_cli(["serve"]), env=env, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        writer = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"})
        health = httpx.Client(base_url=url, headers=operator)
        deadline = time.monotonic() + 180
        while True:
            if server.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start: see {tmp / 'server.log'}")
            try:
                if health.get("/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        put_all(writer, "warm", opt.warmup, opt.clients)
        caught_up(health)
        time.sleep(1)
        before = thread_cpu(server.pid)
        t0 = time.perf_counter()
        put_all(writer, "put", opt.puts, opt.clients)
        caught_up(health)
        took = time.perf_counter() - t0
        after = thread_cpu(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    per: dict[str, float] = {}
    for key, seconds in after.items():
        per[key[1]] = per.get(key[1], 0.0) + seconds - before.get(key, 0.0)
    print(f"{opt.puts} PUTs from {opt.clients} clients, {opt.puts / took:.0f}/s until projected")
    print("| thread | server CPU ms per PUT |\n|---|---|")
    for name, seconds in sorted(per.items(), key=lambda kv: -kv[1]):
        if seconds > 0:
            print(f"| {name} | {1000 * seconds / opt.puts:.2f} |")
    print(f"| **total** | **{1000 * sum(per.values()) / opt.puts:.2f}** |")


if __name__ == "__main__":
    main()
