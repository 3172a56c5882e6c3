"""Gateway ↔ gateway: forwarding appends and head lookups to a partition's owner.

Like an EventStoreDB follower forwarding a write to the leader, a gateway that does not
own a partition sends the append — the already encoded Avro frames, so the owner decides
on exactly the events the caller built — to the owner's peer listener, and asks owners for
heads it does not hold. The listener is separate from the public API (its own port,
``AIMEM_PEER_LISTEN``): it speaks only to other gateways and, when ``AIMEM_PEER_TOKEN`` is
set, refuses requests without it.

Wire format, deliberately small:

* ``POST /peer/v1/append/<partition>`` body: frames, each a 4-byte big-endian length then
  the bytes → ``{"positions": [...]}``;
* ``POST /peer/v1/heads`` ``{"tenant", "ids"}`` → ``{"heads": [{...}]}``;
* failures: ``{"status", "code", "detail", "retry_after"}`` with that HTTP status (409 for
  a refused compare-and-set, 503 for "not the owner any more" or a failed transaction).
"""

from __future__ import annotations

import hmac
import json
import logging
import struct
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ai_memory.core.errors import AiMemoryError, Conflict, Unavailable
from ai_memory.core.events import Head
from ai_memory.core.timeparse import from_micros, to_micros
from ai_memory.telemetry.tracing import TRACE_HEADERS

log = logging.getLogger(__name__)

TOKEN_HEADER = "x-aimem-peer-token"
AppendLocal = Callable[[int, list[bytes], list[tuple[str, bytes]]], Awaitable[list[int]]]
HeadsLocal = Callable[[str, list[str]], dict[str, Head]]


def pack_frames(frames: Sequence[bytes]) -> bytes:
    return b"".join(struct.pack(">I", len(f)) + f for f in frames)


def unpack_frames(body: bytes) -> list[bytes]:
    frames, at = [], 0
    while at < len(body):
        if at + 4 > len(body):
            raise ValueError("truncated frame length")
        (n,) = struct.unpack_from(">I", body, at)
        at += 4
        if at + n > len(body):
            raise ValueError("truncated frame")
        frames.append(body[at : at + n])
        at += n
    return frames


def head_json(h: Head) -> dict[str, Any]:
    return {
        "memory_id": h.memory_id,
        "scope": h.scope,
        "version": h.version,
        "sha256": h.content_sha256,
        "deleted": h.deleted,
        "position": h.position,
        "created_at_us": None if h.created_at is None else to_micros(h.created_at),
    }


def head_of(d: dict[str, Any]) -> Head:
    created = d.get("created_at_us")
    return Head(
        str(d["memory_id"]),
        str(d["scope"]),
        int(d["version"]),
        str(d["sha256"]),
        bool(d["deleted"]),
        int(d["position"]),
        None if created is None else from_micros(int(created)),
    )


def _problem(e: AiMemoryError) -> JSONResponse:
    status = 409 if isinstance(e, Conflict) else 503 if isinstance(e, Unavailable) else 500
    body = {
        "status": status,
        "code": e.code,
        "detail": str(e),
        "retry_after": getattr(e, "retry_after", None),
    }
    return JSONResponse(body, status_code=status)


class PeerServer:
    """The peer listener, served by uvicorn on the log's event loop."""

    def __init__(
        self, host: str, port: int, token: str | None, append: AppendLocal, heads: HeadsLocal
    ) -> None:
        self._token = token
        self._append = append
        self._heads = heads
        app = Starlette(
            routes=[
                Route("/peer/v1/append/{partition:int}", self._append_route, methods=["POST"]),
                Route("/peer/v1/heads", self._heads_route, methods=["POST"]),
            ]
        )
        config = uvicorn.Config(
            app, host=host, port=port, log_level="warning", lifespan="off", access_log=False
        )
        self._server = uvicorn.Server(config)
        self.port = port

    async def start(self) -> None:
        config = self._server.config
        if not config.loaded:
            config.load()
        self._server.lifespan = config.lifespan_class(config)
        await self._server.startup()
        if self._server.servers:
            self.port = int(self._server.servers[0].sockets[0].getsockname()[1])

    async def stop(self) -> None:
        self._server.should_exit = True
        await self._server.shutdown()

    def _allowed(self, request: Request) -> bool:
        if self._token is None:
            return True
        given = request.headers.get(TOKEN_HEADER, "")
        return hmac.compare_digest(given.encode(), self._token.encode())

    async def _append_route(self, request: Request) -> Response:
        if not self._allowed(request):
            return JSONResponse({"status": 403, "code": "peer_token"}, status_code=403)
        try:
            frames = unpack_frames(await request.body())
        except ValueError as e:
            return JSONResponse({"status": 400, "code": "frames", "detail": str(e)}, 400)
        try:
            # The forwarding gateway's trace context travels on to the records it becomes.
            trace = [
                (k, request.headers[k].encode()) for k in TRACE_HEADERS if k in request.headers
            ]
            positions = await self._append(int(request.path_params["partition"]), frames, trace)
        except AiMemoryError as e:
            return _problem(e)
        return JSONResponse({"positions": positions})

    async def _heads_route(self, request: Request) -> Response:
        if not self._allowed(request):
            return JSONResponse({"status": 403, "code": "peer_token"}, status_code=403)
        body = json.loads(await request.body())
        found = self._heads(str(body["tenant"]), [str(i) for i in body["ids"]])
        return JSONResponse({"heads": [head_json(h) for h in found.values()]})


class PeerClient:
    """Calls other gateways' peer listeners (on the log's loop)."""

    def __init__(self, token: str | None, timeout: float) -> None:
        headers = {TOKEN_HEADER: token} if token else {}
        self._http = httpx.AsyncClient(headers=headers, timeout=timeout)

    async def append(
        self,
        owner: str,
        partition: int,
        frames: Sequence[bytes],
        trace: Sequence[tuple[str, bytes]] = (),
    ) -> list[int]:
        headers = {"content-type": "application/octet-stream"}
        headers.update((k, v.decode("latin-1")) for k, v in trace if k in TRACE_HEADERS)
        try:
            r = await self._http.post(
                f"{owner}/peer/v1/append/{partition}",
                content=pack_frames(frames),
                headers=headers,
            )
        except httpx.HTTPError as e:
            raise Unavailable(
                f"the owner of partition {partition} ({owner}) is unreachable: {e}",
                retry_after=0.5,
                code="partition_owner_unreachable",
            ) from e
        if r.status_code == 200:
            return [int(p) for p in r.json()["positions"]]
        raise _error_of(r)

    async def heads(self, owner: str, tenant: str, ids: Sequence[str]) -> dict[str, Head]:
        try:
            r = await self._http.post(
                f"{owner}/peer/v1/heads", json={"tenant": tenant, "ids": list(ids)}
            )
        except httpx.HTTPError as e:
            raise Unavailable(
                f"the partition owner {owner} is unreachable: {e}",
                retry_after=0.5,
                code="partition_owner_unreachable",
            ) from e
        if r.status_code != 200:
            raise _error_of(r)
        return {h.memory_id: h for h in map(head_of, r.json()["heads"])}

    async def close(self) -> None:
        await self._http.aclose()


def _error_of(r: httpx.Response) -> AiMemoryError:
    try:
        body = r.json()
    except ValueError:
        body = {}
    detail = str(body.get("detail") or r.text[:200])
    code = str(body.get("code") or "peer_failed")
    if r.status_code == 409:
        return Conflict(detail, code=code)
    retry_after = float(body.get("retry_after") or 0.5)
    return Unavailable(detail, retry_after=retry_after, code=code)
