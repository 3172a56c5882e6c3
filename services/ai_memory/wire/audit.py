"""Wire models of ``GET /v1/audit`` (one definition, shared by the server and the SDK)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# What happened, by event type (``service.audit.ACTIONS`` maps each event to its name).
AuditAction = Literal[
    "written",
    "forgotten",
    "state_changed",
    "recalled",
    "imported",
    "interaction_recorded",
    "erased",
]


class AuditEntryOut(BaseModel):
    """One event of the tenant's log: who did what to which memories — never content."""

    position: int = Field(description="The event's log position.")
    time: str = Field(description="When the event was recorded (ISO 8601).")
    actor: str = Field(description="Who caused it: the API key (key:<id>) or a component.")
    action: AuditAction
    memory_ids: list[str] = Field(description="The memories it concerns (may be empty).")
    scope: str | None = Field(description="The memories' scope; null for an import batch.")


class AuditOut(BaseModel):
    """A page of the tenant's audit trail, oldest first."""

    tenant: str
    entries: list[AuditEntryOut]
    next: str = Field(description="Cursor of what this page consumed: pass it as since.")
    more: bool = Field(description="Whether more events may follow next right now.")
