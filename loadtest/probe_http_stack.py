"""What the HTTP stack costs a request, layer by layer: server CPU per request.

    python -m loadtest.probe_http_stack [--seconds 5]

Each configuration is a uvicorn server of its own (the product's settings: httptools with
the header deadline, uvloop, the access log) answering ``POST /v1/memories/search``; a
client process sends searches one at a time for ``--seconds`` and the server's user +
system CPU from ``/proc`` is divided by the requests answered. The answer is the same
ten-memory search throughout, so only the stack differs:

* ``starlette``: a bare Starlette route sending the bytes;
* ``fastapi``: a FastAPI route validating ``SearchIn`` and sending the bytes;
* ``fastapi+pool``: the same, after a hop to the worker thread pool and back;
* ``fastapi+executor``: the hop through asyncio's ``run_in_executor`` instead of anyio;
* ``fastapi+pool+model``: returning the dict through ``response_model=SearchOut``;
* ``app``: the product's app (``create_app``) on an embedded container whose search
  answers the canned result, every middleware on;
* ``app-<Middleware>`` (``--skip``): the same without one of its middlewares.

``--get`` times ``GET /v1/memories/{id}`` (a real read) instead, for the app configurations;
``--configs app`` with ``PYTHONPATH`` at another tree's ``services`` compares two trees.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ai_memory.benchmarks.server import child_env, free_port
from ai_memory.wire.models import SearchIn, SearchOut

MIDDLEWARES = (
    "KeyDoor",
    "RateDoor",
    "RequestMetrics",
    "BodyLimit",
    "ProblemGuard",
    "RequestTracing",
    "CrossOriginGuard",
    "TrustedHostMiddleware",
)
QUERY: dict[str, Any] = {"query": "support group", "top_k": 10, "scope": "user:bench"}


def _canned(data_dir: Path) -> tuple[Any, list[Any]]:
    """An embedded container holding ten memories, and a search's answer over them."""
    from ai_memory.bootstrap import build
    from ai_memory.service.memory_service import SearchRequest
    from ai_memory.settings import Settings

    container = build(Settings(data_dir=data_dir))
    container.start()
    service = container.service
    for i in range(10):
        service.write(
            "default",
            {
                "id": f"m{i}",
                "type": "interaction",
                "content": f"Caroline: I went to the support group on day {i}; it was powerful.",
                "scope": "user:bench",
                "source_agent": "bench",
                "meta": {"session_id": "s1", "speaker": "Caroline"},
            },
            wait=True,
        )
    hits = service.search("default", SearchRequest(str(QUERY["query"]), ["user:bench"], top_k=10))
    if len(hits) != 10:
        raise SystemExit(f"the canned search found {len(hits)} memories, not 10")
    return container, hits


def serve(config: str, port: int, data_dir: Path) -> None:
    """Run one configuration's server (in the child process)."""
    import uvicorn
    from fastapi import FastAPI
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from ai_memory.entrypoints.http import access_log
    from ai_memory.entrypoints.http.app import create_app
    from ai_memory.entrypoints.http.slow_headers import with_header_timeout
    from ai_memory.settings import Settings

    settings = Settings(data_dir=data_dir)
    container, hits = _canned(data_dir)
    body = {
        "results": [
            {
                "record": h.stored.to_json(),
                "score": h.score,
                "components": h.components,
                "explanation": h.explanation,
            }
            for h in hits
        ]
    }
    raw = json.dumps(body).encode()
    app: Any
    if config == "starlette":

        async def bare(request: Request) -> Response:
            await request.body()
            return Response(raw, media_type="application/json")

        app = Starlette(routes=[Route("/v1/memories/search", bare, methods=["POST"])])
    elif config.startswith("fastapi"):
        app = FastAPI()
        pool, model = "+pool" in config, "+model" in config
        executor = ThreadPoolExecutor(40) if "+executor" in config else None

        async def hop() -> Any:
            if executor is None:
                return await run_in_threadpool(lambda: body)
            return await asyncio.get_running_loop().run_in_executor(executor, lambda: body)

        @app.post("/v1/memories/search", response_model=SearchOut)  # type: ignore[untyped-decorator]
        async def search(b: SearchIn) -> Any:
            answer = await hop() if pool or executor else body
            return answer if model else Response(raw, media_type="application/json")

    else:
        skip = config.removeprefix("app-") if config.startswith("app-") else None
        if skip is not None:
            original = FastAPI.add_middleware

            def add_middleware(self: FastAPI, cls: Any, *args: Any, **kwargs: Any) -> None:
                if cls.__name__ != skip:
                    original(self, cls, *args, **kwargs)

            FastAPI.add_middleware = add_middleware  # type: ignore[method-assign,assignment]
        container.service.search = lambda *args, **kwargs: hits
        app = create_app(container.services)
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="info",
        log_config=access_log.log_config(settings.log_format),
        http=with_header_timeout(settings.header_timeout),
        loop="uvloop",
        timeout_keep_alive=5,
    )


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _drive(port: int, seconds: float, kind: str = "search") -> tuple[int, float]:
    """Requests one at a time for ``seconds``: (requests, p50 ms)."""
    conn = http.client.HTTPConnection("127.0.0.1", port)
    body, headers = json.dumps(QUERY), {"content-type": "application/json"}
    took: list[float] = []
    end = time.perf_counter() + seconds
    try:
        while time.perf_counter() < end:
            began = time.perf_counter()
            if kind == "get":
                conn.request("GET", "/v1/memories/m3")
            else:
                conn.request("POST", "/v1/memories/search", body, headers)
            answer = answer_of(conn)
            took.append(time.perf_counter() - began)
            if answer != 200:
                raise SystemExit(f"the server answered {answer}")
    finally:
        conn.close()
    took.sort()
    return len(took), took[len(took) // 2] * 1000


def answer_of(conn: http.client.HTTPConnection) -> int:
    response = conn.getresponse()
    response.read()
    return response.status


def measure(config: str, seconds: float, work: Path, kind: str = "search") -> dict[str, Any]:
    port = free_port()
    log = (work / f"{config}.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "loadtest.probe_http_stack", "--serve", config, str(port)],
        env={**child_env(), "AIMEM_PROBE_DATA": str(work / config)},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.perf_counter() + 120
        while True:
            try:
                _drive(port, 1.0)  # also the warm-up
                break
            except (ConnectionError, OSError):
                if proc.poll() is not None or time.perf_counter() > deadline:
                    raise SystemExit(f"{config}: the server did not start ({log.name})") from None
                time.sleep(0.5)
        before = _cpu_seconds(proc.pid)
        count, p50 = _drive(port, seconds, kind)
        cpu = _cpu_seconds(proc.pid) - before
        return {
            "config": config,
            "request": kind,
            "requests": count,
            "server_cpu_ms_per_request": round(cpu / count * 1000, 3),
            "p50_ms": round(p50, 2),
        }
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--skip", action="store_true", help="also the app without each layer")
    parser.add_argument("--configs", help="only these, comma-separated (e.g. app)")
    parser.add_argument(
        "--get", action="store_true", help="GET /v1/memories/{id} instead (app configurations)"
    )
    parser.add_argument("--serve", nargs=2, metavar=("CONFIG", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), Path(os.environ["AIMEM_PROBE_DATA"]))
        return
    configs = [
        "starlette",
        "fastapi",
        "fastapi+pool",
        "fastapi+executor",
        "fastapi+pool+model",
        "app",
    ]
    if args.skip:
        configs += [f"app-{name}" for name in MIDDLEWARES]
    if args.configs:
        configs = args.configs.split(",")
    kind = "get" if args.get else "search"
    with tempfile.TemporaryDirectory(prefix="aimem-http-stack-") as tmp:
        for config in configs:
            print(json.dumps(measure(config, args.seconds, Path(tmp), kind)), flush=True)


if __name__ == "__main__":
    main()
