"""Request/response models for the OpenAPI document.

They describe and type-check the wire shape; the rules themselves (content limits,
scope format, timestamps) live once in ``ai_memory.core.record`` and are applied after.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ai_memory.core.record import MemoryState, MemoryType

from . import constraints as wc

Timestamp = str | int | float


class MemoryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(
        None,
        description="Stable id; a UUID is generated when absent.",
        json_schema_extra=wc.optional(wc.identifier()),
    )
    type: MemoryType
    content: str = Field(
        description="Self-contained UTF-8 text (the source of truth), at most 16 KiB "
        "(AIMEM_MAX_CONTENT_BYTES) as UTF-8.",
        json_schema_extra=wc.text(wc.MAX_CONTENT_CHARS),
    )
    scope: str = Field(
        description="Namespace: 'public' or '<kind>:<name>', e.g. 'user:alice'.",
        examples=["user:alice"],
        json_schema_extra=wc.scope(),
    )
    source_agent: str = Field(
        description="The agent that wrote this memory.", json_schema_extra=wc.name()
    )
    created_at: Timestamp | None = Field(
        None,
        description="ISO-8601 with offset or Z, naive ISO / 'YYYY-MM-DD HH:mm:ss' (UTC), or "
        "Unix seconds / milliseconds. Returned as UTC ISO-8601 with Z. Defaults to now "
        "(on upsert: the original creation time). Years 1–9999 after the offset.",
        json_schema_extra=wc.optional(wc.timestamp()),
    )
    ttl: int | None = Field(
        None,
        description="Seconds until the memory expires (at most 100 years, and the expiry "
        "must fall before year 10000).",
        json_schema_extra={
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": wc.MAX_TTL_SECONDS},
                {"type": "null"},
            ]
        },
    )
    tags: list[str] | None = Field(None, json_schema_extra=wc.optional(wc.tags()))
    meta: dict[str, Any] | None = Field(
        None,
        description="Free-form JSON object (at most 16 KiB as JSON, 32 levels deep).",
        json_schema_extra={
            "anyOf": [
                {
                    "type": "object",
                    "maxProperties": 16,
                    "propertyNames": {"pattern": wc.NAME_PATTERN},
                },
                {"type": "null"},
            ]
        },
    )
    schema_version: int | None = Field(
        None,
        description="The record schema this body follows; omit it for the current one.",
        json_schema_extra=wc.replace_schema({"type": "integer", "enum": [1]}),
    )


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
    position: int = Field(
        description="The write's position token (the tenant's own, opaque: "
        "docs/design/POSITIONS.md); pass it as min_position to read it."
    )
    created: bool
    changed: bool = Field(description="False when the same content was already stored (no-op).")
    redacted: list[str] | None = Field(
        None,
        description="Fields whose credentials were replaced by [REDACTED:<kind>] under the "
        "tenant's `redact` secret policy (e.g. content, meta.notes); null when none were.",
    )


class MemoryListOut(BaseModel):
    items: list[MemoryOut] = Field(description="Memories in id order.")
    next_cursor: str | None = Field(
        description="Pass as `cursor` for the next page; null when the listing is complete. "
        "A page may hold fewer than `limit` items and still have a next one."
    )


class DeleteOut(BaseModel):
    id: str
    position: int
    forgotten: bool = True
    already_forgotten: bool


class SearchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        description="What to look for (at most AIMEM_MAX_QUERY_CHARS characters).",
        json_schema_extra=wc.text(wc.MAX_QUERY_CHARS),
    )
    scope: str | None = Field(None, json_schema_extra=wc.optional(wc.scope()))
    tags: list[str] | None = Field(
        None,
        description="Match memories with any of these tags.",
        json_schema_extra=wc.optional(wc.tags()),
    )
    types: list[MemoryType] | None = None
    top_k: int = Field(10, json_schema_extra={"minimum": 1, "maximum": 100})
    mode: Literal["hybrid", "semantic", "keyword"] = "hybrid"
    states: list[MemoryState] | None = Field(
        None, description="Lifecycle states to include (default: only active memories)."
    )
    as_of: str | int | float | None = Field(
        None,
        description="Valid time, what was true then (ISO-8601 or Unix time): each memory "
        "is judged inside its validity window, from its created_at (or its import's "
        "valid_at) to the valid time of what superseded it.",
        json_schema_extra=wc.optional(wc.timestamp()),
    )
    known_at: str | int | float | None = Field(
        None,
        description="Recorded time, what the system believed then (ISO-8601 or Unix time): "
        "only what the log held at this time counts.",
        json_schema_extra=wc.optional(wc.timestamp()),
    )
    rerank: bool = Field(
        True,
        description="Two-stage retrieval: recall K candidates by hybrid search, then rank by "
        "relevance 0.6 + recency 0.25 + type priority 0.15 (configurable), with explanations.",
    )
    context: bool = Field(
        True,
        description="Conversation context: an interaction also scores by the interactions "
        "just before and after it in its scope and session (meta.session_id), and those "
        "neighbours can be found through it (component `context`).",
    )
    dates: bool = Field(
        True,
        description='Periods the query names ("in March 2023", "on 13 October 2023", '
        '"last week"): memories created in them also compete in their own right, beside '
        "the usual ranking (components `dated_dense_*`, `dated_keyword_*`; hybrid mode).",
    )


class SearchHitOut(BaseModel):
    record: MemoryOut
    score: float
    components: dict[str, float] = Field(
        description="Each retriever's rank and score; `context`: what neighbouring turns "
        "added; `dated_*`: the retrievers restricted to the periods the query names."
    )
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
    # Lines older than the live local memory, not written (import never regresses);
    # defaulted so a client still reads the report of a server that predates it.
    stale: int = 0
    # Lines written with their credentials redacted (the tenant's `redact` secret policy).
    redacted: int = 0
    # Lines whose content was unchanged but whose newer state moved the memory's state.
    states_applied: int = 0
    errors: list[ImportError_]
    errors_truncated: bool
    position: int


# --- POST /v1/memories:batch ------------------------------------------------------------
#: Items in one batch (the service's ``batch_write.MAX_BATCH_ITEMS``; the edge's body
#: limit applies too).
MAX_BATCH_ITEMS = 1000


class BatchWriteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Any JSON per item: each is validated on its own and refused on its own, so one bad
    # item never fails the request (the document shows what a good item is).
    items: list[Any] = Field(
        description=f"Up to {MAX_BATCH_ITEMS} memories, each as the body of "
        "PUT /v1/memories/{id} plus its `id` (a UUID is generated when absent; give ids "
        "to make a retried batch idempotent).",
        json_schema_extra={
            "maxItems": MAX_BATCH_ITEMS,
            "items": {"$ref": "#/components/schemas/MemoryIn"},
        },
    )


class ItemProblemOut(BaseModel):
    """Why one item was refused: the problem the single-memory route would answer."""

    type: str
    title: str
    status: int
    code: str
    detail: str
    field: str | None = None
    rule: str | None = None


class BatchItemOut(BaseModel):
    index: int = Field(description="The item's position in `items`, from 0.")
    status: int = Field(
        description="201 created, 200 updated or unchanged, 4xx refused (see `problem`)."
    )
    id: str | None = None
    version: int | None = None
    changed: bool | None = Field(None, description="False when the same content was stored.")
    position: int | None = Field(None, description="The position token of the item's write.")
    problem: ItemProblemOut | None = None
    redacted: list[str] | None = Field(
        None, description="Fields whose credentials were redacted (`redact` secret policy)."
    )

    @property
    def ok(self) -> bool:
        return self.problem is None


class BatchWriteOut(BaseModel):
    results: list[BatchItemOut] = Field(description="One per item, in input order.")
    written: int
    unchanged: int
    rejected: int
    position: int = Field(
        description="The token of the batch's newest write (0: none). On the embedded "
        "log, min_position for reading every one of them; on a partitioned log (Kafka) "
        "writes of different partitions are not ordered: use each item's position."
    )
