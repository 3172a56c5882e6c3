"""Typed request and response models of the HTTP API.

The core models are the server's own (``ai_memory.wire.models``: importing them pulls
in only pydantic and the pure ``ai_memory.core.record``), so the wire shape of records,
writes, searches and imports has one definition. The models of the notes and governance
routes live next to their FastAPI routers, which import the server's composition root;
they are mirrored here instead, and ``tests/unit/test_sdk_surface.py`` checks that each
mirror has the same JSON schema as the server's model. Response models of routes that
have no declared server model accept unknown fields (``extra="allow"``) so a newer
server never breaks an older SDK.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ai_memory.core.record import MemoryState, MemoryType
from ai_memory.wire.audit import AuditEntryOut, AuditOut
from ai_memory.wire.changes import ChangeOut
from ai_memory.wire.governance import InteractionIn, TurnIn
from ai_memory.wire.models import (
    BatchItemOut,
    BatchWriteOut,
    DeleteOut,
    ImportError_,
    ImportOut,
    ItemProblemOut,
    MemoryIn,
    MemoryListOut,
    MemoryOut,
    SearchHitOut,
    SearchIn,
    SearchOut,
    WriteOut,
)
from ai_memory.wire.notes import (
    NoteIn,
    NoteSaveOut,
    NotesOut,
    TopicNoteOut,
    WhyOut,
    YourTopicOut,
)

__all__ = [
    "AuditEntryOut",
    "AuditOut",
    "BatchItemOut",
    "BatchWriteOut",
    "ChangeOut",
    "DeleteOut",
    "Episode",
    "EpisodesOut",
    "GovernanceRunOut",
    "HealthOut",
    "ImportLineError",
    "ImportOut",
    "InteractionIn",
    "InteractionOut",
    "ItemProblemOut",
    "LineageOut",
    "MemoryIn",
    "MemoryListOut",
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


# --- governance (mirrors entrypoints/http/governance_routes.py) ------------------------
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
    valid_from: str | None = None  # valid time (deploy/TIME.md); None for a forgotten one
    valid_to: str | None = None  # None while nothing has ended it


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
