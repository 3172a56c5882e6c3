"""HTTP routes of governed memory: interactions (L0), episodes (L2), persona (L3), the
governor, and lineage."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from ai_memory.core.governance import Turn, should_write
from ai_memory.core.record import check_utf8
from ai_memory.service.access import Caller
from ai_memory.service.governance import GovernanceService
from ai_memory.service.position_tokens import PositionTokens
from ai_memory.service.time_travel import TimePoint
from ai_memory.wire import constraints as wc
from ai_memory.wire.governance import (
    EpisodesOut,
    GovernorRunOut,
    InteractionIn,
    InteractionOut,
    LineageOut,
    PersonaOut,
    TurnIn,
    WriteTriggersOut,
)

ScopeQuery = Annotated[str, Query(json_schema_extra=wc.scope())]
Wait = Annotated[bool, Query(description="Return once every projection applied it.")]
AsOf = Annotated[
    str | None,
    Query(
        description="Valid time, what was true then (UTC ISO-8601 or Unix time).",
        json_schema_extra={"format": "date-time"},
    ),
]
KnownAt = Annotated[
    str | None,
    Query(
        description="Recorded time, what the system believed then (UTC ISO-8601 or Unix time).",
        json_schema_extra={"format": "date-time"},
    ),
]


def router(
    governance: GovernanceService, caller_of: Callable[[Request], Caller], positions: PositionTokens
) -> APIRouter:
    api = APIRouter(tags=["governance"])

    @api.post(
        "/v1/interactions",
        operation_id="recordInteraction",
        summary="Record a raw interaction and extract memories from it",
        status_code=201,
        responses={201: {"model": InteractionOut, "description": "Recorded"}},
    )
    async def record_interaction(body: InteractionIn, request: Request, wait: Wait = False) -> Any:
        """Keep a raw interaction (L0) and extract atomic memories (L1) from it; conflicts
        with current memories are resolved by the θ rule and every decision is an event."""
        caller = caller_of(request)
        result = await run_in_threadpool(
            governance.record_interaction, caller, body.model_dump(exclude_unset=True)
        )
        if wait:  # on the event loop: a slow projection holds no worker thread
            await governance.units.wait_for_async(result.position)
        return positions.shown_in(caller, result.to_json())

    @api.post(
        "/v1/write-triggers",
        operation_id="suggestWrites",
        summary="Suggest what to write for a conversation turn",
        responses={200: {"model": WriteTriggersOut, "description": "Suggestions"}},
    )
    def write_triggers(body: TurnIn) -> Any:
        """Whether and what to write for a conversation turn (core/governance/triggers): an explicit
        preference, a task closed, a problem solved (→ skill), a user correction, or the
        conversation summary. Advisory: nothing is written."""
        fields = body.model_dump()
        for name in ("text", "summary"):
            if fields[name] is not None:
                check_utf8(fields[name], name)  # the suggestions echo the text back
        suggestions = should_write(Turn(**fields))
        return {
            "suggestions": [
                {
                    "trigger": str(x.trigger),
                    "type": x.memory_type.value,
                    "content": x.content,
                    "reason": x.reason,
                    "importance": x.importance,
                }
                for x in suggestions
            ]
        }

    @api.get(
        "/v1/persona",
        operation_id="getPersona",
        summary="Read a scope's persona (L3)",
        responses={200: {"model": PersonaOut, "description": "The persona"}},
    )
    def persona(
        request: Request, scope: ScopeQuery, as_of: AsOf = None, known_at: KnownAt = None
    ) -> Any:
        """L3: the active preferences, goals, facts, skills and tasks of a scope — now, or
        as true at ``as_of`` and as known at ``known_at``."""
        at = TimePoint.parse(as_of, known_at)
        return governance.persona(caller_of(request), scope, at)

    @api.get(
        "/v1/episodes",
        operation_id="listEpisodes",
        summary="List a scope's episodes (L2)",
        responses={200: {"model": EpisodesOut, "description": "The episodes"}},
    )
    def episodes(request: Request, scope: ScopeQuery) -> Any:
        """L2: extracted memories grouped by the conversation they came from."""
        return governance.episodes(caller_of(request), scope)

    @api.post(
        "/v1/governance/run",
        operation_id="runGovernor",
        summary="Run one governor pass now",
        responses={200: {"model": GovernorRunOut, "description": "The transitions made"}},
    )
    async def run_governor(request: Request, wait: Wait = False) -> Any:
        """Run one governor pass now (TTL expiry, soft forgetting, slow-update takeovers)."""
        transitions = await run_in_threadpool(governance.govern, caller_of(request))
        if wait and transitions:
            await governance.units.wait_for_async(governance.last_position)
        return {"transitions": transitions}

    @api.get(
        "/v1/memories/{memory_id}/lineage",
        operation_id="getLineage",
        summary="Read a memory's lineage",
        responses={
            200: {"model": LineageOut, "description": "The lineage"},
            404: {"description": "memory_not_found: never existed"},
        },
    )
    def lineage(
        memory_id: Annotated[str, Path(json_schema_extra=wc.identifier())],
        request: Request,
        as_of: AsOf = None,
        known_at: KnownAt = None,
    ) -> Any:
        """What this memory superseded, what superseded it, and the events and rules behind
        each state change (kept after forgetting; never content)."""
        at = TimePoint.parse(as_of, known_at)
        caller = caller_of(request)
        lineage = governance.lineage(caller, memory_id, at)
        for event in lineage["events"]:  # each event's log position: the caller's tokens
            positions.shown_in(caller, event)
        return lineage

    return api
