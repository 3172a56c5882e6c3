"""The HTTP API (FastAPI): a thin edge translating requests into service calls.

Handlers that touch SQLite or the index are plain ``def`` so they run in the worker
thread pool and never block the event loop; streaming import/export hand batches to the
pool themselves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request, Response
from fastapi.responses import StreamingResponse
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool

from ai_memory import __version__
from ai_memory.bootstrap import Container
from ai_memory.core.record import DEFAULT_TENANT, validate_scope
from ai_memory.service.memory_service import SearchRequest
from ai_memory.service.transfer import ImportSession, export_lines

from . import governance_routes, metrics, notes_routes, problems
from .a2a_server import A2aHttp
from .mcp_server import McpHttp
from .models import DeleteOut, ImportOut, MemoryIn, MemoryOut, SearchIn, SearchOut, WriteOut

NDJSON = "application/x-ndjson"
Wait = Annotated[bool, Query(description="Return only after every projection applied the write.")]
MinPosition = Annotated[
    int, Query(ge=0, description="Wait until projections reach this log position first.")
]


def tenant_of(_: Request) -> str:
    """Until API keys map callers to tenants, everything is the default tenant."""
    return DEFAULT_TENANT


def create_app(container: Container) -> FastAPI:
    mcp = McpHttp(container, tenant_of)  # MCP (streamable HTTP) at /mcp, same services
    a2a = A2aHttp(container, tenant_of)  # A2A: card at /.well-known/agent-card.json, /a2a
    app = FastAPI(
        title="ai-memory",
        version=__version__,
        description="Event-sourced memory for AI agents: write, read, search, forget, "
        "export, import.",
        lifespan=a2a.lifespan(mcp.lifespan),
    )
    problems.install(app)
    metrics.install(app, container)
    service = container.service

    @app.post(
        "/v1/memories",
        response_model=WriteOut,
        status_code=201,
        responses={200: {"model": WriteOut, "description": "Unchanged or updated"}},
    )
    def create_memory(
        body: MemoryIn, request: Request, response: Response, wait: Wait = False
    ) -> dict[str, Any]:
        result = service.write(tenant_of(request), body.model_dump(exclude_unset=True), wait=wait)
        response.status_code = 201 if result.created else 200
        return result.to_json()

    @app.put(
        "/v1/memories/{memory_id}",
        response_model=WriteOut,
        responses={201: {"model": WriteOut, "description": "Created"}},
    )
    def upsert_memory(
        memory_id: str, body: MemoryIn, request: Request, response: Response, wait: Wait = False
    ) -> dict[str, Any]:
        result = service.write(
            tenant_of(request), body.model_dump(exclude_unset=True), memory_id=memory_id, wait=wait
        )
        response.status_code = 201 if result.created else 200
        return result.to_json()

    @app.get(
        "/v1/memories/{memory_id}",
        response_model=MemoryOut,
        responses={404: {"description": "Never existed"}, 410: {"description": "Forgotten"}},
    )
    def read_memory(
        memory_id: str, request: Request, min_position: MinPosition = 0
    ) -> dict[str, Any]:
        return service.get(tenant_of(request), memory_id, min_position=min_position).to_json()

    @app.delete("/v1/memories/{memory_id}", response_model=DeleteOut)
    def forget_memory(
        memory_id: str, request: Request, wait: Wait = False, reason: str = "user_request"
    ) -> dict[str, Any]:
        result = service.delete(
            tenant_of(request), memory_id, actor="api", reason=reason, wait=wait
        )
        return {
            "id": result.memory_id,
            "position": result.position,
            "forgotten": True,
            "already_forgotten": result.already_forgotten,
        }

    @app.post("/v1/memories/search", response_model=SearchOut)
    def search_memories(
        body: SearchIn, request: Request, min_position: MinPosition = 0
    ) -> dict[str, Any]:
        parsed = SearchRequest.parse(body.model_dump(exclude_unset=True), service.limits)
        hits = service.search(tenant_of(request), parsed, min_position=min_position)
        return {
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

    @app.get(
        "/v1/export",
        response_class=StreamingResponse,
        responses={200: {"content": {NDJSON: {}}, "description": "NDJSON bundle"}},
    )
    def export(
        request: Request, scope: Annotated[list[str] | None, Query()] = None
    ) -> StreamingResponse:
        scopes = [validate_scope(s, service.limits) for s in scope] if scope else None
        lines = export_lines(service, tenant_of(request), scopes)
        body: Iterator[bytes] = (line.encode("utf-8") + b"\n" for line in lines)
        return StreamingResponse(iterate_in_threadpool(body), media_type=NDJSON)

    @app.post(
        "/v1/import",
        response_model=ImportOut,
        openapi_extra={
            "requestBody": {"content": {NDJSON: {"schema": {"type": "string"}}}, "required": True}
        },
    )
    async def import_bundle(
        request: Request, wait: Wait = False, source: str = "ndjson"
    ) -> dict[str, Any]:
        session = ImportSession(service, tenant_of(request), source=source)
        batch: list[tuple[int, str | bytes]] = []
        async for number, text in _lines(request.stream()):
            batch.append((number, text))
            if len(batch) >= 500:
                await run_in_threadpool(session.feed, batch)
                batch = []
        if batch:
            await run_in_threadpool(session.feed, batch)
        report = await run_in_threadpool(session.finish, wait=wait)
        return report.to_json()

    app.include_router(notes_routes.router(container, tenant_of))
    app.include_router(governance_routes.router(container.governance, tenant_of))
    mcp.mount(app)
    a2a.mount(app)

    @app.get("/healthz")
    def healthz() -> dict[str, Any]:
        statuses = container.status()
        lag: dict[str, int] = {}
        for st in statuses:
            lag[st.projection] = lag.get(st.projection, 0) + st.lag
        return {
            "status": "ok",
            "version": __version__,
            "projections": [
                {
                    "projection": st.projection,
                    "partition": st.partition,
                    "position": st.position,
                    "head": st.head,
                    "lag": st.lag,
                    "in_process": st.in_process,
                }
                for st in statuses
            ],
            "lag": lag,
            "embedder": container.embedder.name,
        }

    return app


async def _lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[tuple[int, str | bytes]]:
    """Split a byte stream into numbered UTF-8 lines (1-based)."""
    pending = b""
    number = 0
    async for chunk in chunks:
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            number += 1
            yield number, _decode(raw)
    if pending:
        number += 1
        yield number, _decode(pending)


def _decode(raw: bytes) -> str | bytes:
    """Text, or the raw bytes when they are not UTF-8 (the session rejects that line)."""
    try:
        return raw.decode("utf-8").rstrip("\r")
    except UnicodeDecodeError:
        return raw
