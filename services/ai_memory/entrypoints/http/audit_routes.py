"""``GET /v1/audit``: who did what in a tenant (``service.audit``), from the log.

The door lets only admin and operator keys through (``auth.door_of``); here an admin
is kept to its own tenant, and an operator must name the tenant it looks at (an
operator sees no content, and the trail holds none). In open development mode (no key
exists) the trail of ``default`` — or of the tenant named — is open like every route.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ai_memory.core.access import validate_tenant
from ai_memory.core.errors import Forbidden, InvalidInput, NotFound
from ai_memory.core.record import DEFAULT_TENANT
from ai_memory.service.audit import DEFAULT_LIMIT, MAX_ACTOR_CHARS, MAX_LIMIT, AuditService
from ai_memory.wire.audit import AuditAction, AuditOut

from . import auth

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


def audited_tenant(request: Request, asked: str | None) -> str:
    """Whose trail the caller may read: an admin its own, an operator the one it names."""
    principal = auth.principal_of(request)
    if principal is None:  # open development mode
        return validate_tenant(asked) if asked else DEFAULT_TENANT
    if principal.role == "operator":
        if not asked:
            raise InvalidInput("tenant", "required", "an operator key must name the tenant")
        return validate_tenant(asked)
    if principal.role != "admin":  # the door refuses them already; never rely on one check
        raise Forbidden("the audit trail is for an admin of the tenant", code="role_forbidden")
    if asked and asked != principal.tenant:
        raise Forbidden(
            "an admin key reads the audit trail of its own tenant only", code="tenant_forbidden"
        )
    return principal.tenant


def router(audit: AuditService | None) -> APIRouter:
    api = APIRouter(tags=["audit"])

    @api.get("/v1/audit", response_model=AuditOut)
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
        whose = audited_tenant(request, tenant)
        if audit is None:
            raise NotFound("this server keeps no audit trail", code="audit_unavailable")
        page = await run_in_threadpool(
            lambda: audit.page(whose, since=since, actor=actor, action=action, limit=limit)
        )
        return page.to_json()

    return api
