"""Verifying a webhook delivery on the receiving side.

::

    from ai_memory.sdk.webhooks import WebhookVerificationError, verify_webhook

    def receive(request):                       # any web framework
        try:
            delivery = verify_webhook(SECRET, request.headers, request.body)
        except WebhookVerificationError:
            return 400
        for event in delivery["events"]:
            if seen(event["event_id"]):          # at least once: de-duplicate
                continue
            ...                                  # read the memory with your own key
        return 204

Pass the body exactly as received (bytes, before any JSON parsing). A delivery is
refused if the ``X-AIMemory-Signature`` header is missing or malformed, if no ``v1``
signature matches the body under the secret, or if its timestamp is more than
``tolerance_s`` seconds from this machine's clock (a replay). The scheme is written out
in ``docs/API.md`` ("Webhooks").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ai_memory.core.webhooks.signing import (
    DEFAULT_TOLERANCE_S,
    SIGNATURE_HEADER,
    WebhookVerificationError,
    signature_header,
    verify,
)

__all__ = [
    "SIGNATURE_HEADER",
    "WebhookVerificationError",
    "signature_header",
    "verify_webhook",
]


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: bytes | str,
    tolerance_s: float = DEFAULT_TOLERANCE_S,
    *,
    now: float | None = None,
) -> dict[str, Any]:
    """The delivery (``{"type", "delivery_id", "webhook_id", "events", "cursor"}``) if
    ``body`` was signed with ``secret`` within ``tolerance_s`` seconds of now;
    ``WebhookVerificationError`` (``.reason``: ``missing_signature``,
    ``malformed_signature``, ``timestamp_out_of_tolerance``, ``signature_mismatch``,
    ``malformed_body``) otherwise."""
    verify(secret, headers, body, tolerance_s=tolerance_s, now=now)
    try:
        delivery = json.loads(body)
    except ValueError:
        raise WebhookVerificationError("malformed_body", "the body is not JSON") from None
    if not isinstance(delivery, dict):
        raise WebhookVerificationError("malformed_body", "the body is not a JSON object")
    return delivery
