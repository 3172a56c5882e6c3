"""Wire model of ``POST /v1/erasures`` (the rules are ``core.erasure``)."""

from __future__ import annotations

from typing import Any

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


# --- answers (documented in the OpenAPI document; the routes return the service's JSON) ---
class ErasureOut(BaseModel):
    """``POST /v1/erasures`` and ``DELETE /v1/interactions/{id}``."""

    erasure_id: str
    position: int = Field(description="Log position of the erasure; pass as min_position.")
    memories: int = Field(description="How many memories were erased.")
    interactions: int = Field(description="How many raw turns were erased.")
    already_done: bool = Field(description="True when this erasure id had already run (200).")
    receipt: str = Field(description="Where its signed receipt is read: /v1/erasures/{id}.")


class ReceiptSignatureOut(BaseModel):
    algorithm: str = Field(description="Ed25519.")
    key_id: str = Field(description="The id of the key that signed (GET /v1/erasures/public-key).")
    value: str = Field(description="Base64 signature of the canonical JSON of `receipt`.")


class ReceiptOut(BaseModel):
    """``GET /v1/erasures/{id}``: the receipt and its signature (``ai-memory verify-receipt``)."""

    receipt: dict[str, Any] = Field(
        description="What was erased, the events, each projection's position, when the keys "
        "were destroyed, and a verification scan made now."
    )
    signature: ReceiptSignatureOut


class ReceiptKeyOut(BaseModel):
    """``GET /v1/erasures/public-key``: the key that verifies receipts."""

    algorithm: str = Field(description="Ed25519.")
    key_id: str
    pem: str = Field(description="The public key, PEM (SubjectPublicKeyInfo).")
