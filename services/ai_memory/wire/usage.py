"""Wire models of ``GET /v1/usage`` (one definition, shared by the server and the SDK)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class QuotaOut(BaseModel):
    """The tenant's limits on what it stores."""

    max_memories: int | None = Field(
        description="The most memories the tenant may store; null when it has no quota."
    )


class UsagePositionOut(BaseModel):
    """How far one log partition is counted."""

    partition: int
    position: int = Field(description="Every event of the partition up to it is counted.")


class UsageOut(BaseModel):
    """What a tenant stores: what its memory quota is checked against."""

    tenant: str
    memories: int = Field(
        description="Memories stored, archived ones included (forgotten ones are not)."
    )
    bytes: int = Field(description="UTF-8 bytes of their content.")
    quota: QuotaOut
    as_of: list[UsagePositionOut] = Field(
        description="Per log partition, the position up to which every event is counted: "
        "a write is in the answer once its partition's position reaches the write's."
    )
