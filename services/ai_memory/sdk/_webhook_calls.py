"""Webhook subscriptions in the SDK: their requests, as ``_wire`` describes every other
call (``MemoryClient.create_webhook`` and its four siblings name them). An admin key of
the tenant is needed for every one (``ForbiddenError`` otherwise)."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

import httpx

from ai_memory.wire.webhooks import WebhookCreated, WebhookIn, WebhookList, WebhookOut

from ._wire import Call, check, model

__all__ = [
    "create_call",
    "delete_call",
    "get_call",
    "list_call",
    "resume_call",
    "webhook_in",
]


def webhook_in(
    url: str, scopes: Sequence[str], kinds: Sequence[str] | None, description: str
) -> WebhookIn:
    """The body of ``create_webhook`` (checked here, so a bad kind fails before sending)."""
    return WebhookIn.model_validate(
        {
            "url": url,
            "scopes": list(scopes),
            "kinds": None if kinds is None else list(kinds),
            "description": description,
        }
    )


def _path(webhook_id: str) -> str:
    return f"/v1/webhooks/{quote(webhook_id, safe='')}"


def create_call(body: WebhookIn) -> Call[WebhookCreated]:
    """``POST /v1/webhooks`` — not retried: a repeat after a lost answer would subscribe
    the URL twice (two secrets, every change delivered twice)."""
    payload = body.model_dump(mode="json", exclude_none=True)
    return Call("POST", "/v1/webhooks", model(WebhookCreated), json=payload, idempotent=False)


def list_call() -> Call[WebhookList]:
    return Call("GET", "/v1/webhooks", model(WebhookList))


def get_call(webhook_id: str) -> Call[WebhookOut]:
    return Call("GET", _path(webhook_id), model(WebhookOut))


def _no_content(response: httpx.Response) -> None:
    check(response)


def delete_call(webhook_id: str) -> Call[None]:
    """``DELETE /v1/webhooks/{id}`` (204). Retried: a repeat after a lost answer answers
    ``NotFoundError``, which says the webhook is gone, as the caller wanted."""
    return Call("DELETE", _path(webhook_id), _no_content)


def resume_call(webhook_id: str) -> Call[WebhookOut]:
    """``POST /v1/webhooks/{id}:resume`` — idempotent (an active webhook stays active)."""
    return Call("POST", f"{_path(webhook_id)}:resume", model(WebhookOut))
