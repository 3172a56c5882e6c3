"""Subject erasure over HTTP: ``POST /v1/erasures``, its signed receipt
``GET /v1/erasures/{id}``, the key that verifies receipts, and
``DELETE /v1/interactions/{id}`` (one raw turn, and the memories extracted from it).

Every route here needs an admin key of the tenant (``ErasureService`` decides): an
erasure reaches every scope of its subject. An operator key may not
erase — it runs the deployment, it does not own any tenant's content — and a key of
another tenant never finds an erasure or a turn of this one (404).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from ai_memory.core.errors import NotFound
from ai_memory.service.access import Caller
from ai_memory.service.erasure import ErasureService
from ai_memory.service.position_tokens import PositionTokens
from ai_memory.service.receipts import key_id, public_key_pem
from ai_memory.wire.erasure import ErasureIn, ErasureOut, ReceiptKeyOut, ReceiptOut

Wait = Annotated[bool, Query(description="Return once every projection applied it.")]
ErasureId = Annotated[str, Path(min_length=1, max_length=128)]
InteractionId = Annotated[str, Path(min_length=1, max_length=200)]
Reason = Annotated[str, Query(min_length=1, max_length=1000, description="Why it is erased.")]
_NOT_SERVED: dict[int | str, dict[str, Any]] = {
    404: {"description": "not_served: erasures are not served by this process"}
}


def router(
    erasures: ErasureService | None,
    caller_of: Callable[[Request], Caller],
    positions: PositionTokens,
) -> APIRouter:
    def service() -> ErasureService:
        if erasures is None:
            raise NotFound("erasures are not served by this process", code="not_served")
        return erasures

    def owner(request: Request) -> None:
        """Before the body or the path is judged, the service judges the caller: one that
        may not erase learns nothing from how its request would be refused."""
        service().owner(caller_of(request))

    api = APIRouter(tags=["erasures"], dependencies=[Depends(owner)])

    @api.get(
        "/v1/erasures/public-key",
        operation_id="getReceiptPublicKey",
        summary="Read the key that verifies erasure receipts",
        responses={200: {"model": ReceiptKeyOut, "description": "The public key"}, **_NOT_SERVED},
    )
    def public_key(request: Request) -> Any:
        """The Ed25519 public key that verifies erasure receipts (``ai-memory
        verify-receipt``)."""
        verifying = service().receipt_key(caller_of(request))
        return {
            "algorithm": "Ed25519",
            "key_id": key_id(verifying),
            "pem": public_key_pem(verifying),
        }

    @api.post(
        "/v1/erasures",
        operation_id="createErasure",
        summary="Erase a subject (crypto-shredding) and sign a receipt",
        status_code=201,
        responses={
            201: {"model": ErasureOut, "description": "Erased"},
            200: {"model": ErasureOut, "description": "This erasure id had already run"},
            **_NOT_SERVED,
        },
    )
    async def erase(
        body: ErasureIn, request: Request, response: Response, wait: Wait = False
    ) -> Any:
        """Forget everything of a subject — a scope, a source agent, memory ids or raw
        turns: memories, raw interactions, notes, episodes and persona — destroying their
        keys; returns the erasure id. The same ``erasure_id`` again is the same erasure."""
        svc = service()
        parsed = svc.parse(body.model_dump(exclude_none=True))
        caller = caller_of(request)
        result = await run_in_threadpool(svc.erase, caller, parsed, actor="http", wait=wait)
        if result.already_done:
            response.status_code = 200
        return positions.shown_in(caller, result.to_json())

    @api.get(
        "/v1/erasures/{erasure_id}",
        operation_id="getErasureReceipt",
        summary="Read an erasure's signed receipt",
        responses={
            200: {"model": ReceiptOut, "description": "The signed receipt"},
            404: {"description": "erasure_not_found; not_served: no erasures in this process"},
        },
    )
    async def receipt(erasure_id: ErasureId, request: Request) -> Any:
        """The erasure's receipt, signed with the server's key: what was erased, the
        events, each projection's position, when the keys were destroyed, and a
        verification scan made now."""
        return await run_in_threadpool(service().receipt, caller_of(request), erasure_id)

    @api.delete(
        "/v1/interactions/{interaction_id}",
        operation_id="deleteInteraction",
        summary="Forget a raw interaction and the memories extracted from it",
        responses={
            200: {"model": ErasureOut, "description": "Erased"},
            404: {"description": "interaction_not_found; not_served: no erasures here"},
        },
    )
    async def forget_interaction(
        interaction_id: InteractionId,
        request: Request,
        reason: Reason = "interaction forgotten",
        wait: Wait = False,
    ) -> Any:
        """Forget one raw turn: its data key is destroyed and every memory extracted from
        it is forgotten (an erasure of ``interaction_ids: [id]``; the receipt is its)."""
        caller = caller_of(request)
        result = await run_in_threadpool(
            lambda: service().forget_interaction(
                caller, interaction_id, reason=reason, actor="http", wait=wait
            )
        )
        return positions.shown_in(caller, result.to_json())

    return api
