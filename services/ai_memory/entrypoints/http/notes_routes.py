"""``/v1/notes``: an agent's notebook over HTTP, a facade over memories.

``PUT /v1/notes`` saves, replaces (same topic) or deletes (``note: "off"``) one note.
``GET /v1/notes?agent=…&topic=…`` returns the best 3 matching notes with ``why`` they
ranked there, and ``your_topics``: every topic of the agent with its read count. The
notes returned are counted as read; counts in a response are those *before* that read,
and the next GET shows them incremented (the GET waits for its own recall event).
Errors are the usual problem+json (see ``problems``); the per-agent quota comes from
``AIMEM_NOTE_QUOTA`` (default 50).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from ai_memory.service.access import Caller
from ai_memory.service.notes import NoteRules, NotesService, page_json
from ai_memory.service.position_tokens import PositionTokens
from ai_memory.wire import constraints as wc
from ai_memory.wire.notes import NoteIn, NoteSaveOut, NotesOut


def router(
    notes: NotesService,
    caller_of: Callable[[Request], Caller],
    positions: PositionTokens,
    rules: NoteRules | None = None,
) -> APIRouter:
    """The notes routes; ``caller_of`` is the app's door."""
    # One NotesService per process (shared with MCP and A2A): its lock keeps the
    # per-agent quota check and the save together for every transport of this process.
    if rules is not None:
        notes = notes.with_rules(rules)
    api = APIRouter(tags=["notes"])

    @api.put(
        "/v1/notes",
        operation_id="saveNote",
        summary="Save, replace or delete an agent's note",
        response_model=NoteSaveOut,
        responses={
            201: {"model": NoteSaveOut, "description": "Created"},
            404: {"description": "'off' for a topic that never had a note"},
            409: {"description": "note_quota_exceeded: the agent has reached its quota"},
            422: {"description": "A limit was exceeded; `field` names it"},
        },
    )
    def save_note(body: NoteIn, request: Request, response: Response) -> dict[str, Any]:
        caller = caller_of(request)
        r = notes.save(caller, body.agent, body.topic, body.note, body.type)
        response.status_code = 201 if r.status == "created" else 200
        return {
            "id": r.id,
            "agent": r.agent,
            "topic": list(r.tags),
            "status": r.status,
            "version": r.version,
            "position": positions.shown(caller, r.position),
            "notes_used": r.notes_used,
            "quota": notes.rules.quota,
            "redacted": list(r.redacted) or None,
        }

    @api.get(
        "/v1/notes",
        operation_id="recallNotes",
        summary="Recall an agent's best notes for a topic",
        response_model=NotesOut,
    )
    async def recall_notes(
        request: Request,
        agent: Annotated[str, Query(description="Your agent id.", json_schema_extra=wc.name())],
        topic: Annotated[
            str | None,
            Query(
                description="Words or tags to recall, e.g. 'neo'.",
                json_schema_extra=wc.optional(wc.text(200)),
            ),
        ] = None,
        min_position: Annotated[
            int,
            Query(
                ge=0,
                le=2**62,
                description="Wait until projections reach the write this position token "
                "names (a `position` a write of the caller's tenant returned; any other "
                "value is refused at once).",
            ),
        ] = 0,
    ) -> dict[str, Any]:
        caller = caller_of(request)
        if min_position:  # the caller's token, refused at once beyond the head (or not
            # the caller's); waited for on the event loop
            position = await run_in_threadpool(
                positions.reachable, caller, min_position, notes.units.check_position
            )
            await notes.units.wait_for_async(position)
        page = await run_in_threadpool(notes.recall, caller, agent, topic)
        return positions.shown_in(caller, page_json(page, notes.rules.quota), ["recall_position"])

    return api
