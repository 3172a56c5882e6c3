"""Typed request and response models of the HTTP API.

The core models are the server's own (``ai_memory.gateway.models``: importing them pulls
in only pydantic and the pure ``ai_memory.core.record``), so the wire shape of records,
writes, searches and imports has one definition. The models of the notes and governance
routes live next to their FastAPI routers, which import the server's composition root;
they are mirrored here instead, and ``tests/unit/test_sdk_surface.py`` checks that each
mirror has the same JSON schema as the server's model. Response models of routes that
have no declared server model accept unknown fields (``extra="allow"``) so a newer
server never breaks an older SDK.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ai_memory.core.record import MemoryState, MemoryType
from ai_memory.gateway.models import (
    DeleteOut,
    ImportError_,
    ImportOut,
    MemoryIn,
    MemoryOut,
    SearchHitOut,
    SearchIn,
    SearchOut,
    WriteOut,
)

__all__ = [
    "DeleteOut",
    "Episode",
    "EpisodesOut",
    "GovernanceRunOut",
    "HealthOut",
    "ImportLineError",
    "ImportOut",
    "InteractionIn",
    "InteractionOut",
    "LineageOut",
    "MemoryIn",
    "MemoryOut",
    "MemoryState",
    "MemoryType",
    "NoteIn",
    "NoteSaveOut",
    "NotesOut",
    "PersonaOut",
    "ProjectionStatus",
    "SearchHitOut",
    "SearchIn",
    "SearchOut",
    "TopicNoteOut",
    "TurnIn",
    "WhyOut",
    "WriteOut",
    "WriteSuggestion",
    "WriteTriggersOut",
    "YourTopicOut",
]

#: One rejected line of an import (the server's ``ImportError_``, under a clearer name).
ImportLineError = ImportError_


class _Open(BaseModel):
    """A response model that keeps fields a newer server adds."""

    model_config = ConfigDict(extra="allow")


# --- governance (mirrors gateway/governance_routes.py) ----------------------------------
class InteractionIn(BaseModel):
    """``POST /v1/interactions``: one raw turn to keep (L0) and extract memories from."""

    model_config = ConfigDict(extra="forbid")

    scope: str = Field(examples=["user:alice"])
    source_agent: str
    session_id: str | None = None
    text: str = Field(description="What was said, verbatim (English or Chinese rules built in).")
    at: str | int | float | None = Field(None, description="When it was said; defaults to now.")


class TurnIn(BaseModel):
    """``POST /v1/write-triggers``: a conversation turn to judge."""

    model_config = ConfigDict(extra="forbid")

    text: str
    speaker: Literal["user", "agent"] = "user"
    task_outcome: Literal["succeeded", "failed"] | None = None
    conversation_ended: bool = False
    summary: str | None = None


class InteractionOut(_Open):
    """What recording an interaction did: the memories extracted and state changes."""

    interaction_id: str
    position: int
    memories: list[dict[str, Any]]
    transitions: list[dict[str, Any]]


class PersonaOut(_Open):
    """L3: the current active memories of a scope, by kind."""

    scope: str
    preferences: list[dict[str, Any]] = []
    goals: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    skills: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []


class Episode(_Open):
    """The memories extracted from one conversation."""

    session_id: str
    memories: list[dict[str, Any]]


class EpisodesOut(_Open):
    """L2: extracted memories grouped by conversation."""

    scope: str
    episodes: list[Episode]


class LineageOut(_Open):
    """What a memory superseded, what superseded it, and every event behind it."""

    id: str
    state: str
    version: int | None
    supersedes: list[str]
    superseded_by: list[str]
    events: list[dict[str, Any]]


class GovernanceRunOut(_Open):
    """The state transitions one governor pass made."""

    transitions: list[dict[str, Any]]


class WriteSuggestion(_Open):
    """One write trigger that fired: what to write, as which type, and why."""

    trigger: str
    type: MemoryType
    content: str | None = Field(description="None: the agent composes it (task, summary).")
    reason: str
    importance: float


class WriteTriggersOut(_Open):
    """``POST /v1/write-triggers``: whether and what to write (advisory)."""

    suggestions: list[WriteSuggestion]


# --- notes (mirrors gateway/notes_routes.py) ---------------------------------------------
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


# --- health ---------------------------------------------------------------------------
class ProjectionStatus(_Open):
    """One projection (partition) and how far behind the log it is."""

    projection: str
    partition: int
    position: int
    head: int
    lag: int
    in_process: bool


class HealthOut(_Open):
    """``GET /healthz``."""

    status: str
    version: str
    projections: list[ProjectionStatus]
    lag: dict[str, int]
    embedder: str
