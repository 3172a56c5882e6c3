"""``GET /v1/audit``: who did what in a tenant (``service.audit``), from the log.

The service decides whose trail a caller reads (``service.access.audited_tenant``): an
admin key its own tenant's, an operator key the tenant it names (an operator sees no
content, and the trail holds none); in open development mode (no key exists) the trail
of ``default`` — or of the tenant named.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ai_memory.core.errors import NotFound
from ai_memory.service.access import Caller
from ai_memory.service.audit import DEFAULT_LIMIT, MAX_ACTOR_CHARS, MAX_LIMIT, AuditService
from ai_memory.wire.audit import AuditAction, AuditOut

Since = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=8192,
        description="Continue after this cursor (a previous page's next); from the start "
        "without it.",
    ),
]
Actor = Annotated[
    str | None,
    Query(min_length=1, max_length=MAX_ACTOR_CHARS, description="Only this actor's events."),
]
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="At most this many entries.")]
Tenant = Annotated[
    str | None,
    Query(min_length=1, max_length=63, description="The tenant (operator keys must name it)."),
]


def router(audit: AuditService | None, caller_of: Callable[[Request], Caller]) -> APIRouter:
    api = APIRouter(tags=["audit"])

    @api.get(
        "/v1/audit",
        operation_id="listAuditEvents",
        summary="Read the tenant's audit trail",
        response_model=AuditOut,
        responses={404: {"description": "audit_unavailable: this server keeps no trail"}},
    )
    async def audit_trail(
        request: Request,
        since: Since = None,
        actor: Actor = None,
        action: AuditAction | None = None,
        limit: Limit = DEFAULT_LIMIT,
        tenant: Tenant = None,
    ) -> dict[str, Any]:
        """Who did what in the tenant, oldest first: position, time, actor, action,
        memory ids and scope of each event — never content. A page reads at most
        ``limit`` of the tenant's events; ``actor`` and ``action`` filter that page, so
        it may be short while ``more`` is true: continue with ``since=next``."""
        if audit is None:
            raise NotFound("this server keeps no audit trail", code="audit_unavailable")
        caller = caller_of(request)
        page = await run_in_threadpool(
            lambda: audit.page(
                caller, tenant=tenant, since=since, actor=actor, action=action, limit=limit
            )
        )
        return page.to_json()

    return api
