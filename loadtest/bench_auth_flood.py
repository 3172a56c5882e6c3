"""A flood of bad API keys against a valid tenant's latency: the per-address limit of
refused keys off (``AIMEM_AUTH_FAILURE_BURST=0``, the door as it was) and on (default).

    python -m loadtest.bench_auth_flood [--requests 3000] [--concurrency 64]

For each mode a fresh ``ai-memory serve`` (its own process, keys in force, 200 memories)
is measured twice by a valid reader (127.0.0.1) reading memories one after another: alone
(baseline), then while another process keeps ``--concurrency`` requests in flight, from
127.0.0.2 and then from 127.0.0.1 (the reader's own address: a NAT), with
random well-formed keys (each unknown key id is a cache miss, so a key-store read on a
worker thread unless the limit refuses it first). Reported: the valid reader's p50 / p95
in both phases and their ratio, what the flood was answered (401 / 429) and how fast,
and the server's CPU per flood request.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from loadtest.bench_auth_overhead import percentile
from loadtest.cluster import free_port
from loadtest.proc_cpu import proc_cpu_s

CLI = [sys.executable, "-m", "ai_memory.entrypoints.cli"]


class Server:
    def __init__(self, data: Path, burst: int | None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "AIMEM_PORT": str(self.port), "AIMEM_DATA_DIR": str(data)}
        if burst is not None:
            env["AIMEM_AUTH_FAILURE_BURST"] = str(burst)
        self._log = (data.parent / f"server-{self.port}.log").open("wb")
        self.proc = subprocess.Popen(
            [*CLI, "serve"], env=env, stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self._log.close()


def create_key(data: Path, role: str) -> str:
    out = subprocess.run(
        [
            *CLI,
            "keys",
            "create",
            "--data-dir",
            str(data),
            "--name",
            "b",
            "--tenant",
            "acme",
            "--role",
            role,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def reads(url: str, token: str, ids: list[str], n: int) -> list[float]:
    """``n`` sequential reads by the valid key: their latencies in ms."""
    took = []
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as http:
        for i in range(n):
            began = time.perf_counter()
            r = http.get(f"/v1/memories/{ids[i % len(ids)]}")
            took.append((time.perf_counter() - began) * 1000)
            assert r.status_code == 200, r.text
    return took


async def _flood(url: str, concurrency: int, seconds: float, source: str) -> dict[str, Any]:
    """``concurrency`` keep-alive connections from ``source``, each sending the next
    request as soon as the last is answered: raw HTTP/1.1 on asyncio streams, so the
    flood is limited by the server, not by a client library's own cost."""
    answers: Counter[int] = Counter()
    deadline = time.monotonic() + seconds
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    host, port = url.removeprefix("http://").split(":")

    async def one() -> None:
        reader, writer = await asyncio.open_connection(host, int(port), local_addr=(source, 0))
        try:
            while not stop.is_set() and time.monotonic() < deadline:
                token = f"aimem_{secrets.token_hex(8)}_{secrets.token_urlsafe(32)}"
                writer.write(
                    f"GET /v1/memories/x HTTP/1.1\r\nHost: {host}\r\n"
                    f"Authorization: Bearer {token}\r\n\r\n".encode()
                )
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head.split(b" ", 2)[1])
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await reader.readexactly(length)
                answers[status] += 1
        finally:
            writer.close()

    began = time.monotonic()
    await asyncio.gather(*(one() for _ in range(concurrency)))
    return {"answers": dict(answers), "seconds": time.monotonic() - began}


def run_mode(
    name: str, burst: int | None, source: str, requests: int, concurrency: int
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="aimem-flood-") as tmp:
        data = Path(tmp) / "data"
        admin = create_key(data, "admin")
        reader = create_key(data, "reader")
        server = Server(data, burst)
        try:
            ids = []
            with httpx.Client(
                base_url=server.url, headers={"Authorization": f"Bearer {admin}"}
            ) as h:
                for i in range(200):
                    body = {"type": "fact", "scope": "user:a", "source_agent": "b"}
                    r = h.post("/v1/memories", json=body | {"content": f"fact number {i}"})
                    assert r.status_code == 201, r.text
                    ids.append(r.json()["record"]["id"])
            reads(server.url, reader, ids, 100)  # warm-up
            alone = reads(server.url, reader, ids, requests)
            flood = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "loadtest.bench_auth_flood",
                    "--flood",
                    server.url,
                    "--concurrency",
                    str(concurrency),
                    "--seconds",
                    "600",
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            time.sleep(2)  # the flood at full speed
            cpu0, t0 = proc_cpu_s(server.proc.pid), time.monotonic()
            flooded = reads(server.url, reader, ids, requests)
            cpu, wall = proc_cpu_s(server.proc.pid) - cpu0, time.monotonic() - t0
            flood.send_signal(signal.SIGINT)
            out, _ = flood.communicate(timeout=60)
            answered = json.loads(out.strip().splitlines()[-1])
        finally:
            server.stop()
    total = sum(answered["answers"].values())
    row = {
        "mode": f"{name}, flood from {source}",
        "alone_p50": percentile(alone, 0.5),
        "alone_p95": percentile(alone, 0.95),
        "flood_p50": percentile(flooded, 0.5),
        "flood_p95": percentile(flooded, 0.95),
        "flood_answers": answered["answers"],
        "flood_rate": total / answered["seconds"],
        "server_cpu_share": cpu / wall,
    }
    row["p95_ratio"] = row["flood_p95"] / row["alone_p95"]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--flood", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=600, help=argparse.SUPPRESS)
    parser.add_argument("--source", default="127.0.0.2", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood:  # the flooding process: until interrupted, then its counts
        result = asyncio.run(_flood(args.flood, args.concurrency, args.seconds, args.source))
        print(json.dumps(result))
        return
    # The valid reader is 127.0.0.1: the flood from another address, then from its own
    # (a valid client behind the attacker's NAT).
    rows = [
        run_mode(name, burst, source, args.requests, args.concurrency)
        for source in ("127.0.0.2", "127.0.0.1")
        for name, burst in (("limit off (burst 0)", 0), ("limit on (default)", None))
    ]
    print("| door | valid p50 / p95 alone (ms) | under flood | p95 ratio | flood answered |")
    print("|---|---|---|---|---|")
    for r in rows:
        answers = ", ".join(f"{k}: {v}" for k, v in sorted(r["flood_answers"].items()))
        print(
            f"| {r['mode']} | {r['alone_p50']:.1f} / {r['alone_p95']:.1f} "
            f"| {r['flood_p50']:.1f} / {r['flood_p95']:.1f} | {r['p95_ratio']:.2f}× "
            f"| {r['flood_rate']:.0f}/s ({answers}); server CPU {r['server_cpu_share']:.2f} |"
        )


if __name__ == "__main__":
    main()
