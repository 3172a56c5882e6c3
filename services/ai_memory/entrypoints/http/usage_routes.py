"""``GET /v1/usage``: a tenant's live memories, the bytes of their content, and its quota
(``service.usage``).

The service decides whose usage a caller reads (``service.access.reported_tenant``): an
admin key its own tenant's, an operator key the tenant it names; in open development
mode (no key exists) ``default``'s — or the tenant named. Other keys get 403.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ai_memory.core.errors import NotFound
from ai_memory.service.access import Caller
from ai_memory.service.position_tokens import PositionTokens
from ai_memory.service.usage import UsageService
from ai_memory.wire.usage import UsageOut

# The tenant rule itself is the service's (422 naming ``tenant``); the pattern is for the
# document (``wire.constraints``).
Tenant = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=63,
        description="The tenant (operator keys must name it).",
        json_schema_extra={"pattern": "^[a-z0-9][a-z0-9_-]{0,62}$"},
    ),
]


def router(
    usage: UsageService | None, caller_of: Callable[[Request], Caller], positions: PositionTokens
) -> APIRouter:
    api = APIRouter(tags=["usage"])

    @api.get(
        "/v1/usage",
        operation_id="getUsage",
        summary="Read the tenant's usage and quota",
        response_model=UsageOut,
        responses={404: {"description": "not_served: this server does not serve usage"}},
    )
    async def tenant_usage(request: Request, tenant: Tenant = None) -> dict[str, Any]:
        """What the tenant stores: its memories (archived ones included; what the memory
        quota counts), the UTF-8 bytes of their content, its quota, and up to which log
        position of each partition that is counted."""
        if usage is None:
            raise NotFound("this server does not serve usage", code="not_served")
        caller = caller_of(request)
        report = await run_in_threadpool(lambda: usage.usage(caller, tenant=tenant))
        answer = report.to_json()
        for counted in answer["as_of"]:  # the tenant's tokens, not log positions
            positions.shown_in(report.tenant, counted)
        return answer

    return api
