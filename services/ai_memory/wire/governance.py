"""Wire models of the governed-memory routes (shared by the server and the SDK)."""

from __future__ import annotations

from typing import Literal

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
