"""Wire models of the governed-memory routes (shared by the server and the SDK)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from . import constraints as wc


class InteractionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scope: str = Field(examples=["user:alice"], json_schema_extra=wc.scope())
    source_agent: str = Field(json_schema_extra=wc.name())
    session_id: str | None = Field(None, json_schema_extra=wc.optional(wc.identifier()))
    text: str = Field(
        description="What was said, verbatim (English or Chinese rules built in).",
        json_schema_extra=wc.text(wc.MAX_CONTENT_CHARS),
    )
    at: str | int | float | None = Field(
        None,
        description="When it was said; defaults to now.",
        json_schema_extra=wc.optional(wc.timestamp()),
    )


class TurnIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(json_schema_extra=wc.text(wc.MAX_CONTENT_CHARS))
    speaker: Literal["user", "agent"] = "user"
    task_outcome: Literal["succeeded", "failed"] | None = None
    conversation_ended: bool = False
    summary: str | None = Field(
        default=None, json_schema_extra=wc.optional(wc.text(wc.MAX_CONTENT_CHARS))
    )


# --- answers (documented in the OpenAPI document; the routes return the service's JSON) ---
# Items the governance rules shape (memories, transitions, events) are open objects: their
# fields follow core.governance and grow with it, so only what every one carries is named.
class InteractionOut(BaseModel):
    """``POST /v1/interactions``: the raw turn kept and what was extracted from it."""

    interaction_id: str
    position: int = Field(description="Log position of the last event; pass as min_position.")
    memories: list[dict[str, Any]] = Field(description="The memories written (L1).")
    transitions: list[dict[str, Any]] = Field(
        description="State changes of current memories the θ rule decided (supersede, merge…)."
    )
    redacted: list[str] | None = Field(
        None, description="Present when the text's credentials were redacted: ['text']."
    )


class WriteSuggestionOut(BaseModel):
    trigger: str = Field(description="What fired: explicit_preference, task_closed, …")
    type: str = Field(description="The memory type to write.")
    content: str | None = Field(description="null: the agent composes it (task, summary).")
    reason: str
    importance: float


class WriteTriggersOut(BaseModel):
    """``POST /v1/write-triggers``: advisory, nothing is written."""

    suggestions: list[WriteSuggestionOut]


class PersonaOut(BaseModel):
    """``GET /v1/persona``: the active memories of a scope by slot (L3)."""

    scope: str
    preferences: list[dict[str, Any]]
    goals: list[dict[str, Any]]
    facts: list[dict[str, Any]]
    skills: list[dict[str, Any]]
    tasks: list[dict[str, Any]]


class EpisodeOut(BaseModel):
    session_id: str | None = Field(description="The conversation; null for memories without one.")
    memories: list[dict[str, Any]]


class EpisodesOut(BaseModel):
    """``GET /v1/episodes``: extracted memories grouped by conversation (L2)."""

    scope: str
    episodes: list[EpisodeOut]


class GovernorRunOut(BaseModel):
    """``POST /v1/governance/run``: the transitions one governor pass made."""

    transitions: list[dict[str, Any]] = Field(
        description="One per state change: scope, memory id, from and to state, rule."
    )


class LineageOut(BaseModel):
    """``GET /v1/memories/{id}/lineage``: never content."""

    id: str
    state: str = Field(description="active, archived…; deleted when forgotten; else unknown.")
    version: int | None
    supersedes: list[str]
    superseded_by: list[str]
    valid_from: str | None = Field(None, description="A live memory's validity window.")
    valid_to: str | None = None
    events: list[dict[str, Any]] = Field(description="Oldest first: position, at, kind, rule…")
