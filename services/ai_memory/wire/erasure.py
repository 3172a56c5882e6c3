"""Wire model of ``POST /v1/erasures`` (the rules are ``core.erasure``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ErasureIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scope: str | None = Field(None, description="Erase everything of this scope.")
    source_agent: str | None = Field(
        None, description="Erase everything this agent wrote or said, and its notes."
    )
    ids: list[str] | None = Field(None, description="Erase these memories.")
    interaction_ids: list[str] | None = Field(None, description="Erase these raw turns.")
    everything: bool | None = Field(
        None, description="Erase everything of the tenant (offboarding): every memory and turn."
    )
    reason: str = Field(description="Why: recorded on the log and in the receipt.")
    erasure_id: str | None = Field(
        None, description="Make a retry the same erasure (1-128 of A-Z a-z 0-9 . _ : -)."
    )
