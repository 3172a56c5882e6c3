"""Subject erasure in the SDK: the requests (as ``_wire`` describes every other call) and
the four methods, once for the sync and once for the async client.

The methods live in mixins so ``MemoryClient`` and ``AsyncMemoryClient`` share the
request building and differ only in ``await``; ``InProcessClient`` has its own (it calls
the service) with the same signatures, pinned by ``MemoryApi``.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import quote

from ai_memory.wire.erasure import ErasureIn

from ._wire import Call, Params, model
from .models import ErasureOut, ErasurePublicKeyOut, ErasureReceipt

__all__ = [
    "FORGET_INTERACTION_REASON",
    "AsyncErasureMethods",
    "ErasureMethods",
    "erasure_in",
]

T = TypeVar("T")
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
    """``GET /v1/erasures/{id}``."""
    path = f"/v1/erasures/{quote(erasure_id, safe='')}"
    return Call("GET", path, model(ErasureReceipt))


def public_key_call() -> Call[ErasurePublicKeyOut]:
    """``GET /v1/erasures/public-key``."""
    return Call("GET", "/v1/erasures/public-key", model(ErasurePublicKeyOut))


def forget_interaction_call(interaction_id: str, reason: str, wait: bool) -> Call[ErasureOut]:
    """``DELETE /v1/interactions/{id}`` — not retried: each call records an erasure of its
    own, so a repeat would add a second erasure (and receipt) of the same turn."""
    path = f"/v1/interactions/{quote(interaction_id, safe='')}"
    params = _wait(wait) | {"reason": reason}
    return Call("DELETE", path, model(ErasureOut), params, idempotent=False)


class ErasureMethods:
    """``erase``, ``erasure_receipt``, ``erasure_public_key`` and ``forget_interaction``
    of ``MemoryClient`` (an admin key of the tenant; others get ``ForbiddenError``)."""

    if TYPE_CHECKING:

        def _call(self, call: Call[T]) -> T: ...

    def erase(
        self,
        *,
        reason: str,
        scope: str | None = None,
        source_agent: str | None = None,
        ids: Sequence[str] | None = None,
        interaction_ids: Sequence[str] | None = None,
        everything: bool = False,
        erasure_id: str | None = None,
        wait: bool = False,
    ) -> ErasureOut:
        """``POST /v1/erasures``: forget everything of one subject — exactly one of
        ``scope``, ``source_agent``, memory ``ids``, raw ``interaction_ids`` or
        ``everything`` of the tenant — its memories, raw turns, notes, episodes and
        persona, destroying their data keys. ``reason`` is recorded on the log and in the
        receipt. The same ``erasure_id`` again is the same erasure (``already_done``)."""
        body = erasure_in(reason, scope, source_agent, ids, interaction_ids, everything, erasure_id)
        return self._call(erase_call(body, wait))

    def erasure_receipt(self, erasure_id: str) -> ErasureReceipt:
        """``GET /v1/erasures/{id}``: the signed receipt (``.raw`` is the document as
        served; check it offline with ``verify_receipt``)."""
        return self._call(receipt_call(erasure_id))

    def erasure_public_key(self) -> ErasurePublicKeyOut:
        """``GET /v1/erasures/public-key``: the Ed25519 key (``.pem``) verifying receipts."""
        return self._call(public_key_call())

    def forget_interaction(
        self, interaction_id: str, *, reason: str = FORGET_INTERACTION_REASON, wait: bool = False
    ) -> ErasureOut:
        """``DELETE /v1/interactions/{id}``: forget one raw turn and every memory
        extracted from it (an erasure; ``erasure_receipt`` of its id is the receipt)."""
        return self._call(forget_interaction_call(interaction_id, reason, wait))


class AsyncErasureMethods:
    """The same four methods of ``AsyncMemoryClient``, awaited."""

    if TYPE_CHECKING:

        async def _call(self, call: Call[T]) -> T: ...

    async def erase(
        self,
        *,
        reason: str,
        scope: str | None = None,
        source_agent: str | None = None,
        ids: Sequence[str] | None = None,
        interaction_ids: Sequence[str] | None = None,
        everything: bool = False,
        erasure_id: str | None = None,
        wait: bool = False,
    ) -> ErasureOut:
        """``POST /v1/erasures`` (see ``MemoryClient.erase``)."""
        body = erasure_in(reason, scope, source_agent, ids, interaction_ids, everything, erasure_id)
        return await self._call(erase_call(body, wait))

    async def erasure_receipt(self, erasure_id: str) -> ErasureReceipt:
        """``GET /v1/erasures/{id}``: the signed receipt."""
        return await self._call(receipt_call(erasure_id))

    async def erasure_public_key(self) -> ErasurePublicKeyOut:
        """``GET /v1/erasures/public-key``."""
        return await self._call(public_key_call())

    async def forget_interaction(
        self, interaction_id: str, *, reason: str = FORGET_INTERACTION_REASON, wait: bool = False
    ) -> ErasureOut:
        """``DELETE /v1/interactions/{id}`` (see ``MemoryClient.forget_interaction``)."""
        return await self._call(forget_interaction_call(interaction_id, reason, wait))
