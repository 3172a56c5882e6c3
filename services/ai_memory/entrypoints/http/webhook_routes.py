"""``/v1/webhooks``: a tenant's admin subscribes URLs to its change feed
(``service.webhooks``); the dispatcher (``service.webhook_dispatcher``) runs with the
app's lifespan and delivers.

Every route needs an admin key of the tenant (403 ``role_forbidden`` for any other
role); a key of another tenant finds none of this tenant's webhooks (404). The secret
is in the answer of ``POST /v1/webhooks`` only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Path, Request, Response
from starlette.concurrency import run_in_threadpool

from ai_memory.core.errors import NotFound
from ai_memory.core.webhooks.model import Subscription
from ai_memory.service.access import Caller
from ai_memory.service.webhook_dispatcher import WebhookDispatcher
from ai_memory.service.webhooks import WebhookRequest, WebhookService
from ai_memory.wire.webhooks import WebhookCreated, WebhookIn, WebhookList, WebhookOut

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]
WebhookId = Annotated[
    str,
    Path(
        description="The webhook's id (wh_ and 16 hex digits).",
        json_schema_extra={"pattern": "^wh_[0-9a-f]{16}$"},
    ),
]
_REFUSALS: dict[int | str, dict[str, Any]] = {
    403: {"description": "role_forbidden: not an admin key of the tenant"},
    404: {"description": "webhook_not_found (also for another tenant's webhook)"},
}


def lifespan(dispatcher: WebhookDispatcher | None, inner: Lifespan) -> Lifespan:
    """``inner`` with the dispatcher running inside it (started after, stopped before)."""

    @asynccontextmanager
    async def run(app: FastAPI) -> AsyncIterator[None]:
        async with inner(app):
            if dispatcher is not None:
                await dispatcher.start()
            try:
                yield
            finally:
                if dispatcher is not None:
                    await dispatcher.stop()

    return run


def router(webhooks: WebhookService | None, caller_of: Callable[[Request], Caller]) -> APIRouter:
    api = APIRouter(tags=["webhooks"])

    def service() -> WebhookService:
        if webhooks is None:
            raise NotFound("this server does not serve webhooks", code="not_served")
        return webhooks

    def shown(subscription: Subscription) -> dict[str, Any]:
        return {**subscription.to_json(), "positions": service().positions(subscription)}

    @api.post(
        "/v1/webhooks",
        operation_id="createWebhook",
        summary="Subscribe a URL to changes",
        status_code=201,
        response_model=WebhookCreated,
        responses={
            **_REFUSALS,
            409: {"description": "webhook_quota: AIMEM_WEBHOOK_MAX_PER_TENANT reached"},
            422: {"description": "A bad field (`url`: scheme, credentials, destination refused)"},
        },
    )
    async def create_webhook(body: WebhookIn, request: Request) -> dict[str, Any]:
        """Subscribe a URL to the changes of some scopes (from now on). The answer holds
        the signing secret: it is never shown again."""
        caller = caller_of(request)
        asked = WebhookRequest(
            url=body.url, scopes=body.scopes, kinds=body.kinds, description=body.description
        )
        created = await run_in_threadpool(service().create, caller, asked)
        return {**shown(created), "secret": created.secret}

    @api.get(
        "/v1/webhooks",
        operation_id="listWebhooks",
        summary="List webhooks",
        response_model=WebhookList,
        responses={403: _REFUSALS[403]},
    )
    async def list_webhooks(request: Request) -> dict[str, Any]:
        """The tenant's webhooks and their delivery state (never their secrets)."""
        found = await run_in_threadpool(service().list_of, caller_of(request))
        return {"webhooks": [shown(s) for s in found]}

    @api.get(
        "/v1/webhooks/{webhook_id}",
        operation_id="getWebhook",
        summary="Get a webhook",
        response_model=WebhookOut,
        responses=_REFUSALS,
    )
    async def get_webhook(webhook_id: WebhookId, request: Request) -> dict[str, Any]:
        """One webhook: active or paused (and why), the cursor and log positions
        acknowledged, the last attempt, consecutive failures."""
        return shown(await run_in_threadpool(service().get, caller_of(request), webhook_id))

    @api.delete(
        "/v1/webhooks/{webhook_id}",
        operation_id="deleteWebhook",
        summary="Delete a webhook",
        status_code=204,
        responses=_REFUSALS,
    )
    async def delete_webhook(webhook_id: WebhookId, request: Request) -> Response:
        """Stop delivering for good (a delivery in flight may still arrive)."""
        await run_in_threadpool(service().delete, caller_of(request), webhook_id)
        return Response(status_code=204)

    @api.post(
        "/v1/webhooks/{webhook_id}:resume",
        operation_id="resumeWebhook",
        summary="Resume a paused webhook",
        response_model=WebhookOut,
        responses=_REFUSALS,
    )
    async def resume_webhook(webhook_id: WebhookId, request: Request) -> dict[str, Any]:
        """Resume a paused webhook: deliveries start again from the last change the
        receiver acknowledged (nothing is skipped)."""
        return shown(await run_in_threadpool(service().resume, caller_of(request), webhook_id))

    return api
