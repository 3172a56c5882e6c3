"""What the HTTP server itself costs per request: uvicorn's pure-Python h11 parser on
asyncio's loop, against httptools on uvloop — what ``ai-memory serve`` runs — over the
same app.

    python -m loadtest.bench_http_server [--requests 2400] [--rounds 3] [--clients 16]

Each round starts one server process per variant on a fresh embedded data directory
(the two alternate, so drift falls on both alike): ``ai-memory serve`` itself, and this
module's ``--serve-h11``, which builds the same container and app and hands them to
uvicorn with ``http="h11", loop="asyncio"``. Against each it sends ``--requests`` GETs of
one memory, then ``--requests`` PUTs of new memories, from ``--clients`` concurrent
keep-alive connections, and reads the server's CPU time from ``/proc`` around each
phase. Reported: the median over rounds of server CPU per request and requests/s. The
clients run in this process, on the same cores: requests/s is the box's, the CPU per
request the server's alone.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from loadtest.cluster import free_port

VARIANTS = ("h11 + asyncio", "httptools + uvloop (serve)")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_h11(port: int) -> None:
    """The app of ``ai-memory serve`` on uvicorn's h11 protocol and asyncio's loop."""
    import uvicorn

    from ai_memory.bootstrap import build
    from ai_memory.entrypoints.http.app import create_app
    from ai_memory.settings import Settings

    container = build(Settings.from_env())
    container.start(governor=False)
    try:
        uvicorn.run(
            create_app(container.services),
            host="127.0.0.1",
            port=port,
            log_level="info",  # as serve: an access-log line per request, like the other
            http="h11",
            loop="asyncio",
            timeout_keep_alive=5,
        )
    finally:
        container.close()


def start(variant: str, data: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "AIMEM_DATA_DIR": str(data), "AIMEM_PORT": str(port)}
    env["AIMEM_GOVERN_INTERVAL"] = "0"
    if variant == VARIANTS[0]:
        args = [sys.executable, "-m", "loadtest.bench_http_server", "--serve-h11", str(port)]
    else:
        args = [str(Path(sys.executable).with_name("ai-memory")), "serve"]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"{variant}: the server did not start")


def memory(n: str) -> dict[str, str]:
    return {
        "type": "fact",
        "content": f"Note {n}: the nightly export moved to 02:00 UTC after the freeze.",
        "scope": "team:bench",
        "source_agent": "bench",
    }


async def phase(url: str, pid: int, kind: str, requests: int, clients: int) -> tuple[float, float]:
    """→ (server CPU ms per request, requests/s)."""
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        if kind == "GET":
            assert (await http.put("/v1/memories/fixed", json=memory("fixed"))).is_success
        for i in range(50):  # warm-up, not measured
            assert (await http.put(f"/v1/memories/warm-{i}", json=memory(str(i)))).is_success

        async def client(c: int) -> None:
            for i in range(requests // clients):
                if kind == "GET":
                    r = await http.get("/v1/memories/fixed")
                else:
                    r = await http.put(f"/v1/memories/m-{c}-{i}", json=memory(f"{c}-{i}"))
                assert r.is_success, r.text

        cpu0, t0 = cpu_seconds(pid), time.perf_counter()
        await asyncio.gather(*(client(c) for c in range(clients)))
        cpu1, t1 = cpu_seconds(pid), time.perf_counter()
    done = requests // clients * clients
    return 1000 * (cpu1 - cpu0) / done, done / (t1 - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--serve-h11", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_h11:
        serve_h11(args.serve_h11)
        return
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        for variant in VARIANTS:
            data = Path(tempfile.mkdtemp(prefix="aimem-http-"))
            proc, url = start(variant, data)
            try:
                for kind in ("GET", "PUT"):
                    got = asyncio.run(phase(url, proc.pid, kind, args.requests, args.clients))
                    results.setdefault((variant, kind), []).append(got)
            finally:
                proc.terminate()
                proc.wait(30)
                shutil.rmtree(data, ignore_errors=True)
    print(f"{args.rounds} rounds × {args.requests} requests per phase, {args.clients} clients")
    print("| server | request | server CPU ms per request (median; rounds) | requests/s (median) |")
    print("|---|---|---|---|")
    for (variant, kind), runs in results.items():
        cpu = statistics.median(c for c, _ in runs)
        rate = statistics.median(r for _, r in runs)
        each = ", ".join(f"{c:.2f}" for c, _ in runs)
        print(f"| {variant} | {kind} | {cpu:.2f} ({each}) | {rate:,.0f} |")


if __name__ == "__main__":
    main()
