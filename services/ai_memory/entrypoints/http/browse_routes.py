"""``GET /v1/memories``: browse a tenant's memories page by page, without a query.

Pages are in id order and continue after an opaque ``cursor`` (``core.listing``); a key
limited to some scopes lists only those (and ``public``), decided exactly as for a
search: named scopes must each be readable, and a key with a kind wildcard
(``user:*``) must name the scopes to list (``scope_required``) — the store filters by
scope in its query, so the allowed scopes must be a finite list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ai_memory.core.listing import DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT
from ai_memory.core.record import MemoryState, MemoryType
from ai_memory.service.access import Caller
from ai_memory.service.listing import MAX_LIST_SCOPES
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.position_tokens import PositionTokens
from ai_memory.wire import constraints as wc
from ai_memory.wire.models import MemoryListOut

# Validated by ListRequest (a bad value names its parameter); enumerated for the document.
_TYPES: dict[str, Any] = {"items": {"type": "string", "enum": [t.value for t in MemoryType]}}
_STATES: dict[str, Any] = {"items": {"type": "string", "enum": [s.value for s in MemoryState]}}
_LIMIT_DOC = f"Items per page, 1..{MAX_LIST_LIMIT} (default {DEFAULT_LIST_LIMIT})."


def router(
    service: MemoryService, caller_of: Callable[[Request], Caller], positions: PositionTokens
) -> APIRouter:
    api = APIRouter(tags=["memories"])

    @api.get(
        "/v1/memories",
        operation_id="listMemories",
        summary="List memories page by page",
        response_model=MemoryListOut,
        responses={
            403: {"description": "scope_forbidden / scope_required (a wildcard key)"},
            422: {"description": "A bad parameter; `field` names it (e.g. cursor)"},
        },
    )
    async def list_memories(
        request: Request,
        scope: Annotated[
            list[str] | None,
            Query(
                description="Only these scopes (repeatable). Without it: every scope the "
                "key may read.",
                json_schema_extra={"maxItems": MAX_LIST_SCOPES, "items": wc.scope()},
            ),
        ] = None,
        type: Annotated[  # the parameter's name on the wire
            list[str] | None,
            Query(description="Only these types (repeatable).", json_schema_extra=_TYPES),
        ] = None,
        state: Annotated[
            list[str] | None,
            Query(
                description="Only these states (repeatable); default active.",
                json_schema_extra=_STATES,
            ),
        ] = None,
        tag: Annotated[
            str | None, Query(min_length=1, max_length=200, description="Only with this tag.")
        ] = None,
        cursor: Annotated[
            str | None,
            Query(min_length=1, max_length=2048, description="`next_cursor` of the previous page."),
        ] = None,
        limit: Annotated[
            int, Query(ge=1, le=MAX_LIST_LIMIT, description=_LIMIT_DOC)
        ] = DEFAULT_LIST_LIMIT,
        min_position: Annotated[
            int,
            Query(
                ge=0,
                le=2**62,
                description="Wait until projections reach the write this position token names.",
            ),
        ] = 0,
    ) -> dict[str, Any]:
        parameters = {
            "scopes": scope,
            "types": type,
            "states": state,
            "tag": tag,
            "cursor": cursor,
            "limit": limit,
        }
        caller = caller_of(request)
        if min_position:  # the caller's token → a log position (refused if not its own)
            position = await run_in_threadpool(
                positions.reachable, caller, min_position, service.check_position
            )
            await service.wait_for_async(position)
        page = await run_in_threadpool(service.list_memories, caller, parameters)
        return page.to_json()

    return api
