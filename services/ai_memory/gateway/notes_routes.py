"""``/v1/notes``: an agent's notebook over HTTP (seed 003), a facade over memories.

``PUT /v1/notes`` saves, replaces (same topic) or deletes (``note: "off"``) one note.
``GET /v1/notes?agent=…&topic=…`` returns the best 3 matching notes with ``why`` they
ranked there, and ``your_topics``: every topic of the agent with its read count. The
notes returned are counted as read; counts in a response are those *before* that read,
and the next GET shows them incremented (the GET waits for its own recall event).
Errors are the usual problem+json (see ``problems``); the per-agent quota comes from
``AIMEM_NOTE_QUOTA`` (default 50).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from ai_memory.bootstrap import Container
from ai_memory.core.errors import InvalidInput
from ai_memory.core.record import MemoryType
from ai_memory.core.timeparse import format_timestamp
from ai_memory.service.notes import NoteRules, NotesPage, NotesService, NoteView, RankedNote, Why


class NoteIn(BaseModel):
    """Save, replace or (note: 'off') delete the note on a topic."""

    model_config = ConfigDict(extra="forbid")

    agent: str = Field(description="Your agent id; notes live in scope 'agent:<agent>'.")
    topic: str | list[str] = Field(
        description="Up to 5 tags in any language, split on commas or spaces, e.g. "
        "'neo, jobs'. Case-insensitive; the same tag set is the same topic.",
        examples=["neo, jobs"],
    )
    note: str = Field(
        description="At most 500 characters. 'off' deletes the note on this topic.",
        examples=["neo asked about X; I owe a plain answer"],
    )
    type: MemoryType | None = Field(None, description="Memory type; defaults to 'fact'.")


class NoteSaveOut(BaseModel):
    """What a save did."""

    id: str = Field(description="The memory id of the note (readable at /v1/memories/{id}).")
    agent: str
    topic: list[str] = Field(description="The normalised tags of the topic.")
    status: Literal["created", "replaced", "unchanged", "deleted", "already_off"]
    version: int | None = Field(description="Memory version; null when deleted.")
    position: int = Field(description="Log position of the change (0 when nothing changed).")
    notes_used: int
    quota: int


class WhyOut(BaseModel):
    """Why a note was returned: its tier, what matched, the reads used to rank it."""

    tier: int = Field(
        description="1: a tag equals a query word; 2: a tag or the body contains one."
    )
    match: Literal["exact_tag", "contains"]
    words: list[str] = Field(description="Query words that matched.")
    tags: list[str] = Field(description="Tags of the note that matched.")
    in_body: bool = Field(description="The note's text contains a matched word.")
    read_count: int = Field(description="Reads before this one (the third ranking key).")
    summary: str


class TopicNoteOut(BaseModel):
    """A note recalled for the topic."""

    id: str
    topic: list[str]
    note: str
    read_count: int = Field(description="Reads before this one.")
    updated_at: str
    why: WhyOut


class YourTopicOut(BaseModel):
    """One of the agent's topics with its read count."""

    id: str
    topic: list[str]
    read_count: int


class NotesOut(BaseModel):
    """The notes recalled for a topic and every topic of the agent."""

    agent: str
    topic: list[str] = Field(description="The normalised query words.")
    topic_notes: list[TopicNoteOut] = Field(description="Best matches first (at most 3).")
    your_topics: list[YourTopicOut] = Field(description="All your topics, most read first.")
    notes_used: int
    quota: int
    recall_position: int | None = Field(
        description="Log position of the read recorded for topic_notes; null if none."
    )


def rules_from_env() -> NoteRules:
    """``AIMEM_NOTE_QUOTA`` (notes per agent, default 50)."""
    raw = os.environ.get("AIMEM_NOTE_QUOTA", "").strip()
    if not raw:
        return NoteRules()
    if not raw.isdigit() or int(raw) < 1:
        raise InvalidInput("AIMEM_NOTE_QUOTA", "positive_integer", "must be an integer ≥ 1")
    return NoteRules(quota=int(raw))


def why_json(why: Why) -> dict[str, Any]:
    """``why`` on the wire, with a one-line summary an agent can read."""
    words = ", ".join(repr(w) for w in why.words)
    if why.tier == 1:
        what = f"exact tag match on {words}"
    else:
        where = [x for x, hit in (("a tag", bool(why.tags)), ("the text", why.in_body)) if hit]
        what = f"{' and '.join(where)} contains {words}"
    return {
        "tier": why.tier,
        "match": "exact_tag" if why.tier == 1 else "contains",
        "words": list(why.words),
        "tags": list(why.tags),
        "in_body": why.in_body,
        "read_count": why.read_count,
        "summary": f"tier {why.tier}: {what}; read {why.read_count} time(s) before",
    }


def page_json(page: NotesPage, quota: int) -> dict[str, Any]:
    """The GET body (``NotesOut``)."""

    def note(r: RankedNote) -> dict[str, Any]:
        n = r.note
        return {
            "id": n.id,
            "topic": list(n.tags),
            "note": n.body,
            "read_count": n.read_count,
            "updated_at": format_timestamp(n.updated_at),
            "why": why_json(r.why),
        }

    def topic(n: NoteView) -> dict[str, Any]:
        return {"id": n.id, "topic": list(n.tags), "read_count": n.read_count}

    return {
        "agent": page.agent,
        "topic": list(page.query),
        "topic_notes": [note(r) for r in page.topic_notes],
        "your_topics": [topic(n) for n in page.your_topics],
        "notes_used": len(page.your_topics),
        "quota": quota,
        "recall_position": page.recall_position,
    }


def router(
    container: Container, tenant_of: Callable[[Request], str], rules: NoteRules | None = None
) -> APIRouter:
    """The notes routes over ``container.service``; ``tenant_of`` is the app's helper."""
    notes = NotesService(container.service, rules or rules_from_env())
    api = APIRouter(tags=["notes"])

    @api.put(
        "/v1/notes",
        response_model=NoteSaveOut,
        responses={
            201: {"model": NoteSaveOut, "description": "Created"},
            404: {"description": "'off' for a topic that never had a note"},
            409: {"description": "note_quota_exceeded: the agent has reached its quota"},
            422: {"description": "A limit was exceeded; `field` names it"},
        },
    )
    def save_note(body: NoteIn, request: Request, response: Response) -> dict[str, Any]:
        r = notes.save(tenant_of(request), body.agent, body.topic, body.note, body.type)
        response.status_code = 201 if r.status == "created" else 200
        return {
            "id": r.id,
            "agent": r.agent,
            "topic": list(r.tags),
            "status": r.status,
            "version": r.version,
            "position": r.position,
            "notes_used": r.notes_used,
            "quota": notes.rules.quota,
        }

    @api.get("/v1/notes", response_model=NotesOut)
    def recall_notes(
        request: Request,
        agent: Annotated[str, Query(description="Your agent id.")],
        topic: Annotated[
            str | None, Query(description="Words or tags to recall, e.g. 'neo'.")
        ] = None,
        min_position: Annotated[
            int, Query(ge=0, description="Wait until projections reach this log position.")
        ] = 0,
    ) -> dict[str, Any]:
        page = notes.recall(tenant_of(request), agent, topic, min_position=min_position)
        return page_json(page, notes.rules.quota)

    return api
