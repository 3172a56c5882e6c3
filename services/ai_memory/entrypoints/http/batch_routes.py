"""``POST /v1/memories:batch``: many upserts in one request.

The answer is 200 whenever the batch was processed, with one result per item (201/200
written, 4xx refused with its problem), as bulk APIs elsewhere do: the caller reads the
items, not the status. Only a request that is not a batch at all (no ``items`` array,
more than 1,000 items, a body over ``AIMEM_MAX_BODY_BYTES``) is refused as a whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ai_memory.service.access import Caller
from ai_memory.service.batch_write import batch_report, positions_to_wait
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.position_tokens import PositionTokens
from ai_memory.wire.models import BatchWriteIn, BatchWriteOut

Wait = Annotated[bool, Query(description="Return only after every projection applied every item.")]


def router(
    memory: MemoryService, caller_of: Callable[[Request], Caller], positions: PositionTokens
) -> APIRouter:
    api = APIRouter(tags=["memories"])

    @api.post(
        "/v1/memories:batch",
        operation_id="batchUpsertMemories",
        summary="Upsert up to 1,000 memories in one request",
        response_model=BatchWriteOut,
        response_model_exclude_none=True,  # a written item has no problem, a refused no version
        responses={
            422: {"description": "Not a batch: `items` missing, not an array, or over 1,000"},
            413: {"description": "The body is over AIMEM_MAX_BODY_BYTES"},
            403: {"description": "The API key may not write at all"},
        },
    )
    async def write_batch(
        body: BatchWriteIn, request: Request, wait: Wait = False
    ) -> dict[str, Any]:
        """Upsert up to 1,000 memories: each item as ``PUT /v1/memories/{id}`` would
        (idempotent, versioned, never moving scope, never reusing a forgotten id), all
        decided together and appended to the log at once. One result per item, in order."""
        # A caller that may never write is refused whole; an item it may not write, alone.
        caller = caller_of(request)
        results = await run_in_threadpool(lambda: memory.write_many(caller, body.items))
        if wait:  # on the event loop: a slow projection holds no worker thread
            await memory.wait_for_all_async(positions_to_wait(results))
        report = batch_report(results)
        for item in report["results"]:
            positions.shown_in(caller, item)
        return positions.shown_in(caller, report)

    return api
