"""Request/response models for the OpenAPI document.

They describe and type-check the wire shape; the rules themselves (content limits,
scope format, timestamps) live once in ``ai_memory.core.record`` and are applied after.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ai_memory.core.record import MemoryState, MemoryType

Timestamp = str | int | float


class MemoryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(None, description="Stable id; a UUID is generated when absent.")
    type: MemoryType
    content: str = Field(description="Self-contained UTF-8 text (the source of truth).")
    scope: str = Field(
        description="Namespace: 'public' or '<kind>:<name>', e.g. 'user:alice'.",
        examples=["user:alice"],
    )
    source_agent: str = Field(description="The agent that wrote this memory.")
    created_at: Timestamp | None = Field(
        None,
        description="ISO-8601 with offset or Z, naive ISO / 'YYYY-MM-DD HH:mm:ss' (UTC), or "
        "Unix seconds / milliseconds. Returned as UTC ISO-8601 with Z. Defaults to now "
        "(on upsert: the original creation time).",
    )
    ttl: int | None = Field(None, description="Seconds until the memory expires.")
    tags: list[str] | None = None
    meta: dict[str, Any] | None = None
    schema_version: int | None = None


class MemoryOut(BaseModel):
    id: str
    type: MemoryType
    content: str
    scope: str
    source_agent: str
    created_at: str
    ttl: int | None
    tags: list[str]
    meta: dict[str, Any]
    schema_version: int
    version: int
    state: MemoryState
    updated_at: str | None = None
    read_count: int | None = None


class WriteOut(BaseModel):
    record: MemoryOut
    position: int = Field(description="Log position of the write; pass as min_position to read it.")
    created: bool
    changed: bool = Field(description="False when the same content was already stored (no-op).")


class DeleteOut(BaseModel):
    id: str
    position: int
    forgotten: bool = True
    already_forgotten: bool


class SearchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str
    scope: str | None = None
    tags: list[str] | None = Field(None, description="Match memories with any of these tags.")
    types: list[MemoryType] | None = None
    top_k: int = 10
    mode: Literal["hybrid", "semantic", "keyword"] = "hybrid"
    states: list[MemoryState] | None = Field(
        None, description="Lifecycle states to include (default: only active memories)."
    )
    as_of: str | int | float | None = Field(
        None,
        description="What did we believe then: judge each memory by its state at this time "
        "(ISO-8601 or Unix time), from its lineage.",
    )
    rerank: bool = Field(
        True,
        description="Two-stage retrieval: recall K candidates by hybrid search, then rank by "
        "relevance 0.6 + recency 0.25 + type priority 0.15 (configurable), with explanations.",
    )


class SearchHitOut(BaseModel):
    record: MemoryOut
    score: float
    components: dict[str, float] = Field(description="Each retriever's rank and score.")
    explanation: dict[str, Any] | None = Field(
        None, description="The rerank's components: weight, value and contribution of each."
    )


class SearchOut(BaseModel):
    results: list[SearchHitOut]


class ImportError_(BaseModel):
    line: int
    code: str
    message: str
    field: str | None = None


class ImportOut(BaseModel):
    batch_id: str
    received: int
    written: int
    unchanged: int
    skipped_tombstoned: int
    tombstones_applied: int
    rejected: int
    errors: list[ImportError_]
    errors_truncated: bool
    position: int
