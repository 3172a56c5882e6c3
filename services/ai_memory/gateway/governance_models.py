"""Wire models of the governed-memory routes (shared by the server and the SDK)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class InteractionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scope: str = Field(examples=["user:alice"])
    source_agent: str
    session_id: str | None = None
    text: str = Field(description="What was said, verbatim (English or Chinese rules built in).")
    at: str | int | float | None = Field(None, description="When it was said; defaults to now.")


class TurnIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    speaker: Literal["user", "agent"] = "user"
    task_outcome: Literal["succeeded", "failed"] | None = None
    conversation_ended: bool = False
    summary: str | None = None
