"""What the key door and the rate limits add to a request: p50 and p95 of search and
write through the real HTTP app, open development mode against an API key with rate
limiting on, in one process and one run.

    python -m loadtest.bench_auth_overhead [--memories 2000] [--requests 3000]

One embedded container, two apps over it that differ only at the door, so both modes
search the same memories in the same index and write to the same tenant:

* **open**: open development mode — the key door finds no key in its (empty) key store
  and no rate limits apply: the request as it was before keys and limits;
* **key + limits**: every request carries a writer key (of tenant ``default``) and
  charges its key's and its tenant's buckets (rates high enough never to refuse: the
  cost measured is the buckets', not a 429's).

Requests are sent straight to the ASGI app (``create_app``: every middleware, the routes,
the services, the worker thread pool), not through a socket: the HTTP server's parsing is
the same in both modes and its noise would hide a fraction of a millisecond. The two
modes alternate request by request, in a shuffled order, so drift (the projections
catching up, the page cache) falls on both alike. Also measured: the two doors alone
around an empty app, which is the overhead without any route's noise.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ai_memory.adapters.memory import MemoryKeyStore
from ai_memory.bootstrap import Container, build
from ai_memory.clock import SystemClock
from ai_memory.core.record import DEFAULT_TENANT
from ai_memory.entrypoints.http import auth, edge, rate_limits
from ai_memory.entrypoints.http.app import create_app
from ai_memory.service.keys import KeyService
from ai_memory.settings import Settings
from loadtest.corpus import QUERIES, memories

WORK = Path(__file__).parent / ".work" / "auth_overhead"
# Rate limiting on, never refusing at the rates one process reaches here.
ON = (1e6, 10**6)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Asgi:
    """One HTTP request to an ASGI app, as a server would make it; returns the status."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(
        self, method: str, path: str, body: bytes = b"", token: str | None = None
    ) -> int:
        headers = [
            (b"host", b"localhost"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        if token:
            headers.append((b"authorization", f"Bearer {token}".encode()))
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 40000),
            "server": ("localhost", 80),
            "state": {},
        }
        done = asyncio.Event()
        status = 0
        delivered = False

        async def receive() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()  # as a server does: a disconnect only after the response
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                done.set()

        await self.app(scope, receive, send)
        return status


def container(root: Path) -> Container:
    data = root / "data"
    shutil.rmtree(data, ignore_errors=True)
    rate, burst = ON
    settings = Settings(
        data_dir=data, key_rate=rate, key_burst=burst, tenant_rate=rate, tenant_burst=burst
    )
    c = build(settings)
    c.start()
    return c


def load(c: Container, tenant: str, count: int) -> None:
    batch: list[dict[str, Any]] = list(memories(count))
    for start in range(0, len(batch), 500):
        c.service.write_many(tenant, batch[start : start + 500], wait=True)


Op = Callable[[int], Awaitable[int]]


def ops(call: Asgi, token: str | None, tag: str) -> dict[str, Op]:
    rng = random.Random(7)

    async def write(i: int) -> int:
        body = (
            '{"type":"fact","scope":"user:bench","source_agent":"bench",'
            f'"content":"Benchmark note {tag} {i}: the deploy window moved to {rng.random()}."}}'
        )
        return await call("PUT", f"/v1/memories/{tag}-{i}", body.encode(), token)

    async def search(i: int) -> int:
        query = QUERIES[i % len(QUERIES)]
        body = f'{{"query":"{query}","top_k":10}}'
        return await call("POST", "/v1/memories/search", body.encode(), token)

    return {"write": write, "search": search}


async def measure(
    modes: dict[str, dict[str, Op]], requests: int, warmup: int
) -> dict[tuple[str, str], list[float]]:
    """Latency in ms of every (operation, mode); modes alternate in shuffled order."""
    samples: dict[tuple[str, str], list[float]] = {}
    order = [(op, mode) for op in ("write", "search") for mode in modes]
    rng = random.Random(11)
    for i in range(warmup + requests):
        rng.shuffle(order)
        for op, mode in order:
            started = time.perf_counter_ns()
            status = await modes[mode][op](i)
            elapsed = (time.perf_counter_ns() - started) / 1e6
            if status not in (200, 201):
                raise SystemExit(f"{op} in mode {mode} answered {status}")
            if i >= warmup:
                samples.setdefault((op, mode), []).append(elapsed)
    return samples


async def door_alone(
    open_keys: KeyService, keyed: Container, token: str, requests: int
) -> tuple[list[float], list[float]]:
    """Per-request ms of the key door in open mode vs key door + rate door with a key."""

    async def empty(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    limiter = keyed.services.rates
    assert limiter is not None
    inner = rate_limits.RateDoor(empty, limiter, edge.body_limit_for(keyed.settings), 30.0)
    with_key = Asgi(auth.KeyDoor(inner, keyed.services.keys))
    without = Asgi(auth.KeyDoor(empty, open_keys))
    a: list[float] = []
    b: list[float] = []
    for i in range(requests + 500):
        for call, token_, out in ((without, None, a), (with_key, token, b)):
            started = time.perf_counter_ns()
            assert await call("GET", "/v1/memories/x", b"", token_) == 200
            if i >= 500:
                out.append((time.perf_counter_ns() - started) / 1e6)
    return a, b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=2000, help="memories to search")
    parser.add_argument("--requests", type=int, default=3000, help="per operation and mode")
    parser.add_argument("--warmup", type=int, default=200)
    args = parser.parse_args()

    WORK.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    c = container(WORK)
    try:
        keys = c.services.keys
        assert keys is not None
        token = keys.create(tenant=DEFAULT_TENANT, role="writer", scopes=["*"], name="b").token
        load(c, DEFAULT_TENANT, args.memories)
        # Open development mode: a key door whose store holds no key, and no buckets.
        open_keys = KeyService(MemoryKeyStore(), SystemClock())
        open_app = create_app(replace(c.services, keys=open_keys, rates=None))
        modes = {
            "open": ops(Asgi(open_app), None, "open"),
            "key + limits": ops(Asgi(create_app(c.services)), token, "key"),
        }
        samples = asyncio.run(measure(modes, args.requests, args.warmup))
        alone = asyncio.run(door_alone(open_keys, c, token, args.requests * 5))
    finally:
        c.close()

    print(
        f"{args.requests} requests per operation and mode, {args.memories} memories; "
        f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after "
        f"({os.cpu_count()} cores)\n"
    )
    print("| operation | open p50 / p95 ms | key + limits p50 / p95 ms | added p50 ms |")
    print("|---|---|---|---|")
    for op in ("write", "search"):
        o, k = samples[(op, "open")], samples[(op, "key + limits")]
        added = statistics.median(k) - statistics.median(o)
        print(
            f"| {op} | {percentile(o, 0.5):.3f} / {percentile(o, 0.95):.3f} "
            f"| {percentile(k, 0.5):.3f} / {percentile(k, 0.95):.3f} | {added:+.3f} |"
        )
    a, b = alone
    added = statistics.median(b) - statistics.median(a)
    print(
        f"| the doors alone (empty app) | {percentile(a, 0.5):.3f} / {percentile(a, 0.95):.3f} "
        f"| {percentile(b, 0.5):.3f} / {percentile(b, 0.95):.3f} | {added:+.3f} |"
    )
    print("\nSingle run; percentiles from that run.")


if __name__ == "__main__":
    main()
