"""Subject erasure in the SDK: its requests, as ``_wire`` describes every other call
(``MemoryClient.erase`` and its three siblings name them)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from urllib.parse import quote

from ai_memory.core.receipt_format import parse_signed
from ai_memory.wire.erasure import ErasureIn

from ._wire import Call, Params, model
from .models import ErasureOut, ErasurePublicKeyOut, ErasureReceipt

__all__ = [
    "FORGET_INTERACTION_REASON",
    "erase_call",
    "erasure_in",
    "forget_interaction_call",
    "public_key_call",
    "receipt_call",
]

#: The reason ``DELETE /v1/interactions/{id}`` records when none is given.
FORGET_INTERACTION_REASON = "interaction forgotten"


def erasure_in(
    reason: str,
    scope: str | None,
    source_agent: str | None,
    ids: Sequence[str] | None,
    interaction_ids: Sequence[str] | None,
    everything: bool,
    erasure_id: str | None,
) -> ErasureIn:
    """The body of an ``erase(...)`` call. Without an ``erasure_id`` one is made here, so
    the request names its erasure and a retry after a lost answer is the same erasure
    (the server answers ``already_done``) instead of a second one."""
    return ErasureIn(
        scope=scope,
        source_agent=source_agent,
        ids=None if ids is None else list(ids),
        interaction_ids=None if interaction_ids is None else list(interaction_ids),
        everything=True if everything else None,
        reason=reason,
        erasure_id=erasure_id or f"era-{uuid.uuid4()}",
    )


def _wait(wait: bool) -> Params:
    return {"wait": "true"} if wait else {}


def erase_call(body: ErasureIn, wait: bool) -> Call[ErasureOut]:
    """``POST /v1/erasures`` — idempotent: the body always names its erasure id."""
    payload = body.model_dump(mode="json", exclude_none=True)
    return Call("POST", "/v1/erasures", model(ErasureOut), _wait(wait), payload)


def receipt_call(erasure_id: str) -> Call[ErasureReceipt]:
    """``GET /v1/erasures/{id}``, its body read as a signed document
    (``receipt_format.parse_signed``): a key twice or a number written another way is
    refused, not collapsed by a lenient parser before anyone verifies it."""
    path = f"/v1/erasures/{quote(erasure_id, safe='')}"
    return Call("GET", path, model(ErasureReceipt, parse_signed))


def public_key_call() -> Call[ErasurePublicKeyOut]:
    """``GET /v1/erasures/public-key``."""
    return Call("GET", "/v1/erasures/public-key", model(ErasurePublicKeyOut))


def forget_interaction_call(interaction_id: str, reason: str, wait: bool) -> Call[ErasureOut]:
    """``DELETE /v1/interactions/{id}`` — not retried: each call records an erasure of its
    own, so a repeat would add a second erasure (and receipt) of the same turn."""
    path = f"/v1/interactions/{quote(interaction_id, safe='')}"
    params = _wait(wait) | {"reason": reason}
    return Call("DELETE", path, model(ErasureOut), params, idempotent=False)
