"""The HTTP API (FastAPI): a thin edge translating requests into calls of the services
facade.

Handlers that touch SQLite or the index run their service calls in the worker thread
pool and never block the event loop; streaming import/export hand batches to the pool
themselves. Waits for projections (``wait=true``, ``min_position``) are awaited on the
event loop, so a slow projection never holds a worker thread.

The edge around the routes (``edge``): request ids and problem+json for every failure,
body limits, and the browser protections.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import FastAPI, Header, Path, Query, Request, Response
from fastapi.responses import StreamingResponse
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool

from ai_memory import __version__
from ai_memory.core.access.failed_auth import FailedAuthLimiter
from ai_memory.core.errors import InvalidInput
from ai_memory.core.preconditions import Preconditions, etag
from ai_memory.core.record import validate_scope
from ai_memory.service.facade import Services
from ai_memory.service.memory_service import SearchRequest
from ai_memory.service.transfer import Line, OversizedLine
from ai_memory.wire import constraints as wc
from ai_memory.wire.health import HealthOut
from ai_memory.wire.models import (
    DeleteOut,
    ImportOut,
    MemoryIn,
    MemoryOut,
    SearchIn,
    SearchOut,
    WriteOut,
)

from ..a2a.server import A2aHttp
from ..mcp.server import McpHttp
from ..stream_rights import RECHECK_SECONDS
from . import (
    audit_routes,
    auth,
    batch_routes,
    browse_routes,
    change_routes,
    console_pages,
    docs_pages,
    edge,
    erasure_routes,
    governance_routes,
    metrics,
    notes_routes,
    openapi_doc,
    openapi_streams,
    problems,
    rate_limits,
    request_tracing,
    usage_routes,
    webhook_routes,
)
from .body_limits import BodyTooLarge, refusal_behind
from .json_answers import JsonAnswer, search_hit
from .ndjson_lines import numbered_lines

NDJSON = "application/x-ndjson"
Wait = Annotated[bool, Query(description="Return only after every projection applied the write.")]
MinPosition = Annotated[
    int,
    Query(
        ge=0,
        le=2**62,
        description="Wait until projections reach the write this position token names "
        "first (a `position` a write of the caller's tenant returned; any other value is "
        "refused at once).",
    ),
]
MemoryId = Annotated[str, Path(description="The memory's id.", json_schema_extra=wc.identifier())]
ScopesQuery = Query(
    description="Only these scopes.", json_schema_extra={"maxItems": 16, "items": wc.scope()}
)
Reason = Annotated[str, Query(min_length=1, max_length=200, description="Why it is forgotten.")]
Source = Annotated[
    str, Query(min_length=1, max_length=100, description="Name of the import's source.")
]
# Conditional writes (core.preconditions): the ETag is the memory's version, "<version>".
IfMatch = Annotated[
    str | None,
    Header(
        description='Only if the memory is at one of these versions (an ETag such as "3"), '
        "or exists at all (*); otherwise 412 precondition_failed, nothing written."
    ),
]
IfNoneMatch = Annotated[
    str | None,
    Header(description="* : create only; 412 precondition_failed if the memory exists."),
]
_ETAG = {
    "ETag": {
        "description": 'The memory\'s version as a strong entity tag ("3"): send it as If-Match.',
        "schema": {"type": "string"},
    }
}
_PRECONDITION: dict[int | str, dict[str, Any]] = {
    412: {"description": "precondition_failed: If-Match / If-None-Match"}
}
_WRITE_REFUSALS: dict[int | str, dict[str, Any]] = {
    403: {"description": "quota_exceeded: the tenant stores as many memories as it may"},
    409: {"description": "scope_immutable: the id belongs to another scope"},
    410: {"description": "memory_forgotten: forgotten ids are never reused"},
}


caller_of = auth.caller_of  # the request's caller: its key, or the open deployment


def _while_allowed(rights: auth.StillAllowed, lines: Iterator[str]) -> Iterator[bytes]:
    """An export's lines, its key asked again every second: a key revoked mid-export
    cuts the response off (an aborted body, not a clean end: a bundle's reader would take
    a bundle cut short at a line boundary without its trailer as complete)."""
    checked = time.monotonic()
    for line in lines:
        if time.monotonic() - checked >= RECHECK_SECONDS:
            rights.check_blocking()
            checked = time.monotonic()
        yield line.encode("utf-8") + b"\n"


def create_app(services: Services) -> FastAPI:
    settings = services.settings
    hosts = edge.trusted_hosts(settings.allowed_hosts)
    security = edge.mcp_transport_security(hosts, settings.cors_origins)
    mcp = McpHttp(services, caller_of, security)  # MCP at /mcp
    # card at /.well-known/…, /a2a; a stream asks the door again while it runs
    a2a = A2aHttp(services, caller_of, lambda request: auth.rights_of(request).check)
    app = FastAPI(
        title="ai-memory",
        version=__version__,
        description="Event-sourced memory for AI agents: write, read, search, forget, "
        "export, import.",
        lifespan=webhook_routes.lifespan(services.webhook_dispatcher, a2a.lifespan(mcp.lifespan)),
        **request_tracing.without_native_telemetry(),
        docs_url=None,  # docs_pages: the same pages from packaged assets, offline
        redoc_url=None,
    )
    problems.install(app)
    # Rates and tenant body limits just inside the key door: they need the caller's key.
    rate_limits.install(app, services.rates, edge.body_limit_for(settings), settings.body_timeout)
    failures = (
        FailedAuthLimiter(settings.auth_failure_rate, settings.auth_failure_burst)
        if settings.auth_failure_burst
        else None
    )
    auth.install(app, services.keys, failures)  # inside metrics and the edge: they see refusals
    metrics.install(
        app,
        services.health,
        services.usage,
        services.index_compaction,
        services.webhook_dispatcher,
        services.memory.row_cache,
    )
    edge.install(app, settings, hosts)
    service = services.memory
    transfer = services.transfer
    positions = services.positions  # what a caller is shown of log positions
    max_query_chars = settings.max_query_chars

    async def reach(request: Request, token: int) -> None:
        """Read-your-writes before a read: the caller's token → a log position, refused
        at once beyond the head (or not the caller's), then waited for on the event loop
        (no worker thread is held while waiting)."""
        if token:
            position = await run_in_threadpool(
                positions.reachable, caller_of(request), token, service.check_position
            )
            await service.wait_for_async(position)

    @app.post(
        "/v1/memories",
        operation_id="createMemory",
        tags=["memories"],
        summary="Write a memory (a new id when the body has none)",
        response_model=WriteOut,
        status_code=201,
        responses={
            200: {"model": WriteOut, "description": "Unchanged or updated"},
            **_WRITE_REFUSALS,
        },
    )
    async def create_memory(
        body: MemoryIn, request: Request, response: Response, wait: Wait = False
    ) -> dict[str, Any]:
        caller = caller_of(request)
        result = await run_in_threadpool(
            lambda: service.write(caller, body.model_dump(exclude_unset=True))
        )
        if wait:
            await service.wait_for_async(result.position)
        response.status_code = 201 if result.created else 200
        response.headers["ETag"] = etag(result.version)
        return positions.shown_in(caller, result.to_json())

    @app.put(
        "/v1/memories/{memory_id}",
        operation_id="upsertMemory",
        tags=["memories"],
        summary="Create or update a memory by id",
        response_model=WriteOut,
        responses={
            200: {"description": "Unchanged or updated", "headers": _ETAG},
            201: {"model": WriteOut, "description": "Created", "headers": _ETAG},
            **_PRECONDITION,
            **_WRITE_REFUSALS,
        },
    )
    async def upsert_memory(
        memory_id: MemoryId,
        body: MemoryIn,
        request: Request,
        response: Response,
        wait: Wait = False,
        if_match: IfMatch = None,
        if_none_match: IfNoneMatch = None,
    ) -> dict[str, Any]:
        caller = caller_of(request)
        conditions = Preconditions.parse(if_match, if_none_match)
        body_json = body.model_dump(exclude_unset=True)
        result = await run_in_threadpool(
            lambda: service.write(caller, body_json, memory_id=memory_id, preconditions=conditions)
        )
        if wait:
            await service.wait_for_async(result.position)
        response.status_code = 201 if result.created else 200
        response.headers["ETag"] = etag(result.version)
        return positions.shown_in(caller, result.to_json())

    @app.get(
        "/v1/memories/{memory_id}",
        operation_id="getMemory",
        tags=["memories"],
        summary="Read a memory",
        response_model=MemoryOut,
        responses={
            200: {"description": "The memory", "headers": _ETAG},
            404: {"description": "Never existed"},
            410: {"description": "Forgotten"},
        },
    )
    async def read_memory(
        memory_id: MemoryId, request: Request, min_position: MinPosition = 0
    ) -> Response:
        await reach(request, min_position)
        stored = await run_in_threadpool(service.get, caller_of(request), memory_id)
        # The ETag is the If-Match of a later PUT/DELETE; the body is MemoryOut already.
        return JsonAnswer(stored.to_json(), headers={"ETag": etag(stored.version)})

    @app.delete(
        "/v1/memories/{memory_id}",
        operation_id="deleteMemory",
        tags=["memories"],
        summary="Forget a memory",
        response_model=DeleteOut,
        responses={**_PRECONDITION, 404: {"description": "memory_not_found: never existed"}},
    )
    async def forget_memory(
        memory_id: MemoryId,
        request: Request,
        wait: Wait = False,
        reason: Reason = "user_request",
        if_match: IfMatch = None,
    ) -> dict[str, Any]:
        conditions = Preconditions.parse(if_match, None)
        caller = caller_of(request)
        result = await run_in_threadpool(
            lambda: service.delete(
                caller, memory_id, actor="api", reason=reason, preconditions=conditions
            )
        )
        if wait and not result.already_forgotten:
            await service.wait_for_async(result.position)
        return {
            "id": result.memory_id,
            "position": positions.shown(caller, result.position),
            "forgotten": True,
            "already_forgotten": result.already_forgotten,
        }

    @app.post(
        "/v1/memories/search",
        operation_id="searchMemories",
        tags=["search"],
        summary="Search memories (hybrid: semantic, keyword, recency, importance)",
        response_model=SearchOut,
    )
    async def search_memories(
        body: SearchIn, request: Request, min_position: MinPosition = 0
    ) -> Response:
        if len(body.query) > max_query_chars:
            raise InvalidInput(
                "query",
                "max_length",
                f"query is {len(body.query)} characters; the limit is {max_query_chars}",
                code="query_too_long",
            )
        parsed = SearchRequest.parse(body.model_dump(exclude_unset=True), service.limits)
        await reach(request, min_position)
        hits = await run_in_threadpool(service.search, caller_of(request), parsed)
        return JsonAnswer({"results": [search_hit(h) for h in hits]})  # SearchOut already

    @app.get(
        "/v1/export",
        operation_id="exportMemories",
        tags=["transfer"],
        summary="Export memories as an NDJSON bundle",
        response_class=StreamingResponse,
        responses={200: openapi_streams.EXPORT},
    )
    def export(
        request: Request, scope: Annotated[list[str] | None, ScopesQuery] = None
    ) -> StreamingResponse:
        scopes = [validate_scope(s, service.limits) for s in scope] if scope else None
        lines = transfer.export(caller_of(request), scopes)
        body = _while_allowed(auth.rights_of(request), lines)
        return StreamingResponse(iterate_in_threadpool(body), media_type=NDJSON)

    @app.post(
        "/v1/import",
        operation_id="importMemories",
        tags=["transfer"],
        summary="Import an NDJSON bundle or bare records",
        response_model=ImportOut,
        responses={
            413: {"description": "line_too_long / body_too_large: the report of the lines before"},
            415: {"description": "unsupported_media_type: the body is not application/x-ndjson"},
        },
        openapi_extra={
            "requestBody": {
                "description": "NDJSON: one JSON object per line — bundle lines (header, "
                "record, tombstone, trailer) or bare records. Each line is checked and "
                "committed on its own; a line over the line limit is rejected by number.",
                "content": {
                    NDJSON: {
                        "schema": {
                            "type": "array",
                            "items": {"$ref": "#/components/schemas/MemoryIn"},
                        }
                    }
                },
                "required": True,
            }
        },
    )
    async def import_bundle(
        request: Request, wait: Wait = False, source: Source = "ndjson"
    ) -> dict[str, Any] | Response:
        edge.require_ndjson(request.headers.get("content-type"))
        # Each line is judged against the caller's scopes (its tombstones as forgets).
        caller = caller_of(request)
        session = transfer.begin_import(caller, source=source)
        batch: list[tuple[int, Line]] = []
        try:
            async for number, text in numbered_lines(request.stream(), settings.max_line_bytes):
                if isinstance(text, OversizedLine):
                    # Refused as a whole at that line, and the rest is not read: a line
                    # this long is not a memory but a broken or hostile upload. What came
                    # before it is imported; re-sending from that line is idempotent.
                    if batch:
                        await run_in_threadpool(session.feed, batch)
                    report = await run_in_threadpool(session.finish)
                    if wait:  # what landed is readable when the refusal answers, as asked
                        for position in session.newest_positions():
                            await service.wait_for_async(position)
                    shown = positions.shown_in(caller, report.to_json())
                    return _line_too_long(request, number, text.limit, shown)
                batch.append((number, text))
                if len(batch) >= 500:
                    await run_in_threadpool(session.feed, batch)
                    batch = []
        except Exception as error:
            # A chunked upload is only found too large on the way: what arrived before is
            # committed line by line, so the refusal carries the report of those lines.
            # (A middleware's task group may have wrapped the refusal in a group.)
            e = refusal_behind(error)
            if not isinstance(e, BodyTooLarge):
                raise
            if batch:
                await run_in_threadpool(session.feed, batch)
            report = await run_in_threadpool(session.finish)
            refused = problems.problem(
                e.status,
                e.code,
                f"{e.detail}; the complete lines before the limit were imported (see report)",
                report=positions.shown_in(caller, report.to_json()),
                request_id=problems.request_id_of(request.scope),
            )
            refused.headers["connection"] = "close"
            return refused
        if batch:
            await run_in_threadpool(session.feed, batch)
        report = await run_in_threadpool(session.finish)
        if wait:  # every partition the import touched, not only the highest position
            for position in session.newest_positions():
                await service.wait_for_async(position)
        return positions.shown_in(caller, report.to_json())

    app.include_router(browse_routes.router(service, caller_of, positions))
    app.include_router(batch_routes.router(service, caller_of, positions))
    app.include_router(notes_routes.router(services.notes, caller_of, positions))
    app.include_router(governance_routes.router(services.governance, caller_of, positions))
    app.include_router(audit_routes.router(services.audit, caller_of))
    app.include_router(change_routes.router(services.changes, service, caller_of))
    app.include_router(erasure_routes.router(services.erasures, caller_of, positions))
    app.include_router(usage_routes.router(services.usage, caller_of, positions))
    app.include_router(webhook_routes.router(services.webhooks, caller_of))
    mcp.mount(app)
    a2a.mount(app)

    @app.get(
        "/healthz",
        operation_id="getHealth",
        tags=["health"],
        summary="Liveness and projection health",
        response_model=None,  # documented below; the anonymous answer is only the status
        responses={200: {"model": HealthOut, "description": "ok or degraded"}},
    )
    def healthz(request: Request) -> dict[str, Any]:
        # "degraded" (a projection stuck, dead letters unresolved) still answers 200:
        # see service/health.py for why a liveness probe must not restart on it.
        report = services.health.report(__version__)
        # Positions, lag and writers count every tenant's events: they are for the
        # deployment-wide (an operator key of "*", open mode); a tenant's admin or
        # operator sees statuses; a probe without a key, or a reader or writer key,
        # learns only whether it is healthy.
        if auth.anonymous(request) or not services.health.may_read_details(caller_of(request)):
            return {"status": report["status"]}
        return services.health.shown(caller_of(request), report)

    openapi_doc.install(app)
    docs_pages.install(app)
    console_pages.install(app)
    return app


def _line_too_long(request: Request, line: int, limit: int, report: dict[str, Any]) -> Response:
    """413 naming the line, with the report of the lines imported before it."""
    refused = problems.problem(
        413,
        "line_too_long",
        f"line {line} is longer than {limit} bytes (AIMEM_MAX_LINE_BYTES); the lines before "
        "it were imported (see report), nothing after it was read",
        field="line",
        line=line,
        max_bytes=limit,
        report=report,
        request_id=problems.request_id_of(request.scope),
    )
    # The rest of the body is left unread: the connection cannot be reused.
    refused.headers["connection"] = "close"
    return refused
