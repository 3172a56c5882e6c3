"""Wire model of a ``GET /v1/changes`` entry (one definition, shared by the server's
documentation and the SDK)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

ChangeKind = Literal["written", "state_changed", "forgotten"]


class ChangeOut(BaseModel):
    """What changed about one memory — never its content."""

    cursor: str = Field(description="Resume here (since=, or SSE Last-Event-ID) for what follows.")
    kind: ChangeKind
    id: str = Field(description="The memory's id.")
    scope: str
    version: int | None = Field(
        description="written: the new version; forgotten: the last one; state_changed: null."
    )
    state: str | None = Field(description="The state after the change; null when forgotten.")
    at: str = Field(description="When it happened (ISO 8601).")
    actor: str = Field(description="Who caused it: the API key (key:<id>) or a component.")
    position: int = Field(
        description="The change's log position: a read with min_position=position sees it."
    )
